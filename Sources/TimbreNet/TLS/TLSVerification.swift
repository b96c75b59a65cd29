import COpenSSL
import TimbreCore

/// Per-transfer trust state that the OpenSSL verify callback works on. The callback runs inside the
/// TLS handshake, so a refusal here means nothing — no request line, no token — is ever sent.
///
/// Only the curl loop thread touches it: the callback runs there, and results are read there after
/// the transfer completes.
final class TLSVerification: @unchecked Sendable {
    enum Purpose {
        /// Normal requests: system trust, then the host's pin rule.
        case enforce(PinRule)
        /// `timbre pins https://…`: record the chain, accept it, send nothing.
        case inspect
    }

    let host: String
    let purpose: Purpose
    let observer: any TrustObserver
    /// `[tls] client_cert`, presented only when the server asks for a client certificate.
    let identity: ClientIdentity?

    private(set) var failure: TrustFailure.Reason?
    private(set) var inspectedChain: [ChainEntry] = []
    private(set) var inspectedTrustError: String?
    /// The server sent a CertificateRequest during this transfer's handshake.
    private(set) var serverAskedForCertificate = false
    /// `identity` went out in that handshake.
    private(set) var clientCertificateSent = false
    /// The description of a fatal alert the server sent ("unknown CA", "certificate required").
    private(set) var fatalAlert: String?

    init(host: String, purpose: Purpose, observer: any TrustObserver, identity: ClientIdentity? = nil) {
        self.host = host
        self.purpose = purpose
        self.observer = observer
        self.identity = identity
    }

    /// The cert callback: OpenSSL runs it on a client only when the server asked for a certificate.
    /// Returns 1 to go on (with the identity set, or with none), 0 to abort the handshake.
    func certificateRequested(_ ssl: OpaquePointer) -> Int32 {
        serverAskedForCertificate = true
        guard let identity else { return 1 }
        guard identity.present(on: ssl) else { return 0 }
        clientCertificateSent = true
        return 1
    }

    /// The info callback, for alerts the server sends (level in the high byte, 2 = fatal).
    func alertReceived(_ value: Int32) {
        guard value >> 8 == 2, fatalAlert == nil else { return }
        let code = value & 0xFF
        let known = SSL_alert_desc_string_long(value).map { String(cString: $0) }
        // OpenSSL 3.0 has no names for the TLS 1.3 additions.
        let tls13 = [109: "missing extension", 116: "certificate required", 120: "no application protocol"]
        fatalAlert = known.flatMap { $0 == "unknown" ? nil : $0 } ?? tls13[Int(code)] ?? "alert \(code)"
    }

    /// Returns 1 to continue the handshake, 0 to abort it.
    func verify(_ store: OpaquePointer) -> Int32 {
        // Ordinary chain verification against the configured anchors always runs first.
        let systemTrusted = X509_verify_cert(store) == 1
        switch purpose {
        case .inspect:
            if systemTrusted {
                inspectedChain = Certificate.entries(ofChain: X509_STORE_CTX_get0_chain(store), positions: PinVerifier.positions)
            } else {
                inspectedTrustError = Self.errorText(store)
                let presented = Self.presentedCertificates(store)
                inspectedChain = Certificate.describeFileChain(presented)
            }
            X509_STORE_CTX_set_error(store, X509_V_OK)
            return 1

        case .enforce(let rule):
            guard systemTrusted else {
                let reason = Self.errorText(store)
                failure = .certificateInvalid(reason)
                observer.record(.systemTrustFailed(host: host, reason: reason))
                return 0
            }
            let chain = Certificate.entries(ofChain: X509_STORE_CTX_get0_chain(store), positions: PinVerifier.positions)
            switch PinVerifier.evaluate(rule: rule, chain: chain) {
            case .matched(let pin, let position, let isPrimary):
                observer.record(.pinMatched(host: host, pin: pin, position: position, isPrimary: isPrimary))
                return 1
            case .mismatch where rule.mode == .permissive:
                observer.record(.allowedByPermissiveMode(host: host, presented: chain))
                return 1
            case .mismatch:
                failure = .pinMismatch(expected: rule.pins, scope: rule.scope, presented: chain)
                observer.record(.pinMismatch(host: host, presented: chain))
                X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION)
                return 0
            }
        }
    }

    private static func errorText(_ store: OpaquePointer) -> String {
        let code = X509_STORE_CTX_get_error(store)
        guard let text = X509_verify_cert_error_string(Int(code)) else { return "verification error \(code)" }
        return String(cString: text)
    }

    /// The chain as the server sent it (leaf first), when it did not verify.
    private static func presentedCertificates(_ store: OpaquePointer) -> [Certificate] {
        var certs: [Certificate] = []
        var seen = Set<SPKIPin>()
        if let leaf = X509_STORE_CTX_get0_cert(store) {
            let cert = Certificate(borrowing: leaf)
            seen.insert(cert.spkiPin)
            certs.append(cert)
        }
        if let stack = X509_STORE_CTX_get0_untrusted(store) {
            for index in 0..<tossl_sk_X509_num(stack) {
                guard let pointer = tossl_sk_X509_value(stack, index) else { continue }
                let cert = Certificate(borrowing: pointer)
                if seen.insert(cert.spkiPin).inserted { certs.append(cert) }
            }
        }
        return certs
    }

    /// Installed on every SSL_CTX curl creates (one per connection), through CURLOPT_SSL_CTX_FUNCTION.
    /// The context outlives the transfer that made it (curl caches the connection), so it holds its
    /// own reference to `verification`, dropped by OpenSSL when the context is freed; renegotiation,
    /// the one way a later transfer could re-run the callback, is refused.
    static func installVerifyCallback(sslContext: UnsafeMutableRawPointer, verification: UnsafeMutableRawPointer) {
        let context = OpaquePointer(sslContext)
        tossl_ctx_refuse_renegotiation(context)
        let index = contextDataIndex
        let retained = Unmanaged<TLSVerification>.fromOpaque(verification).retain().toOpaque()
        if let previous = SSL_CTX_get_ex_data(context, index) {
            Unmanaged<TLSVerification>.fromOpaque(previous).release()
        }
        guard index >= 0, SSL_CTX_set_ex_data(context, index, retained) == 1 else {
            // Without a slot to own it, the reference would leak; fail closed instead of dangling.
            Unmanaged<TLSVerification>.fromOpaque(retained).release()
            SSL_CTX_set_cert_verify_callback(context, { _, _ in 0 }, nil)
            return
        }
        SSL_CTX_set_cert_verify_callback(
            context,
            { store, argument in
                guard let store, let argument else { return 0 }
                return Unmanaged<TLSVerification>.fromOpaque(argument).takeUnretainedValue().verify(store)
            }, retained)
        SSL_CTX_set_cert_cb(
            context,
            { ssl, argument in
                guard let ssl, let argument else { return 0 }
                return Unmanaged<TLSVerification>.fromOpaque(argument).takeUnretainedValue().certificateRequested(ssl)
            }, retained)
        SSL_CTX_set_info_callback(context) { ssl, situation, value in
            guard situation & tossl_cb_read_alert() == tossl_cb_read_alert(), let ssl,
                let owner = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), TLSVerification.contextDataIndex)
            else { return }
            Unmanaged<TLSVerification>.fromOpaque(owner).takeUnretainedValue().alertReceived(value)
        }
    }

    /// The SSL_CTX ex_data slot that owns a reference; OpenSSL calls the free function with it when
    /// the context goes.
    private static let contextDataIndex: Int32 = tossl_ctx_new_ex_index { _, pointer, _, _, _, _ in
        guard let pointer else { return }
        Unmanaged<TLSVerification>.fromOpaque(pointer).release()
    }
}
