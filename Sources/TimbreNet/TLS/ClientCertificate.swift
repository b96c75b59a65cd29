import COpenSSL
import Foundation
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

/// The PKCS#12 password as the composition root found it, or why there is none. Asked for only
/// when the file turns out to need one.
public enum ClientCertificatePassword: Sendable {
    /// `origin` names where it came from ("TIMBRE_CLIENT_CERT_PASSWORD", "the keyring").
    case found(bytes: [UInt8], origin: String)
    /// `note` says why, when something went wrong looking (a keyring that could not be read).
    case missing(note: String?)
}

/// `[tls] client_cert`: the PKCS#12 file and how to get its password. `passwordHelp` is the
/// sentence that tells a user where the password goes (it names the keyring item of the profile).
public struct ClientCertificateSettings: Sendable {
    public var path: String
    public var passwordHelp: String
    public var password: @Sendable () async -> ClientCertificatePassword

    public init(path: String, passwordHelp: String, password: @escaping @Sendable () async -> ClientCertificatePassword) {
        self.path = path
        self.passwordHelp = passwordHelp
        self.password = password
    }
}

/// Why the configured client certificate cannot be used. Exit 5, like every trust failure.
public struct ClientCertificateError: UserFacingError, Equatable {
    public enum Problem: Sendable, Equatable {
        case unreadable(String)
        case notPKCS12
        case passwordMissing(note: String?)
        case passwordWrong(origin: String)
        /// The password is right but the contents could not be decrypted (a legacy cipher).
        case undecryptable(String)
        case noCertificate
        case noPrivateKey
        case keyMismatch
        case expired(String)
        case notYetValid(String)
    }

    public var path: String
    public var problem: Problem
    public var passwordHelp: String

    public init(path: String, problem: Problem, passwordHelp: String) {
        self.path = path
        self.problem = problem
        self.passwordHelp = passwordHelp
    }

    public var exitStatus: ExitStatus { .trustFailure }

    public var message: String {
        let file = TerminalText.preview(path)
        switch problem {
        case .unreadable(let detail):
            return "the client certificate file \(file) ([tls] client_cert) cannot be read: \(detail)"
        case .notPKCS12:
            return "the client certificate file \(file) ([tls] client_cert) is not a PKCS#12 (.p12) file, or it is damaged"
        case .passwordMissing(let note):
            return "the PKCS#12 file \(file) needs a password\(note.map { " (\($0))" } ?? ""): \(passwordHelp)"
        case .passwordWrong(let origin):
            return "the PKCS#12 password for \(file) is wrong (it came from \(origin)): \(passwordHelp)"
        case .undecryptable(let detail):
            return "the PKCS#12 file \(file) cannot be decrypted with this OpenSSL (\(TerminalText.preview(detail)))"
        case .noCertificate:
            return "the PKCS#12 file \(file) holds no certificate"
        case .noPrivateKey:
            return "the PKCS#12 file \(file) holds no private key"
        case .keyMismatch:
            return "the private key in \(file) does not belong to its certificate"
        case .expired(let date):
            return "the client certificate in \(file) expired on \(date)"
        case .notYetValid(let date):
            return "the client certificate in \(file) is not valid before \(date)"
        }
    }

    public var hint: String? {
        switch problem {
        case .unreadable, .notPKCS12, .noCertificate, .noPrivateKey, .keyMismatch:
            return "make one with `openssl pkcs12 -export -in client.pem -inkey client.key -out client.p12` (README: Client certificates)"
        case .undecryptable:
            return "export it again with OpenSSL 3's defaults (AES-256, no -legacy): `openssl pkcs12 -export …`"
        case .expired, .notYetValid:
            return "ask whoever issued it for a new certificate, then point [tls] client_cert at it"
        case .passwordMissing, .passwordWrong:
            return nil
        }
    }
}

/// A client certificate, its private key and any chain certificates, loaded from a PKCS#12 file.
/// Owns every OpenSSL pointer it holds; none leaves this file. Nothing is written to disk: the
/// handshake hands them to OpenSSL from memory (`present(on:)`).
public final class ClientIdentity: @unchecked Sendable {
    private let certificate: OpaquePointer
    private let key: OpaquePointer
    private let chain: [OpaquePointer]

    public let path: String
    public let subject: String
    public let issuer: String
    public let notAfter: Date
    public let pin: SPKIPin
    public var chainLength: Int { chain.count }

    private init(path: String, certificate: OpaquePointer, key: OpaquePointer, chain: [OpaquePointer]) {
        self.path = path
        self.certificate = certificate
        self.key = key
        self.chain = chain
        subject = Certificate.describe(X509_get_subject_name(certificate))
        issuer = Certificate.describe(X509_get_issuer_name(certificate))
        notAfter = Self.date(X509_get0_notAfter(certificate)) ?? .distantPast
        pin = Certificate.spkiPin(of: certificate)
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
        chain.forEach { X509_free($0) }
    }

    /// Reads and decrypts the file. The password is asked for only when the file is protected by
    /// one (a PKCS#12 MAC that does not verify with an empty password).
    public static func load(_ settings: ClientCertificateSettings, now: Date = Date()) async throws(ClientCertificateError) -> ClientIdentity {
        func fail(_ problem: ClientCertificateError.Problem) -> ClientCertificateError {
            ERR_clear_error()
            return ClientCertificateError(path: settings.path, problem: problem, passwordHelp: settings.passwordHelp)
        }
        let bytes = try read(settings.path, fail: fail)
        guard let p12 = bytes.withUnsafeBufferPointer({ buffer in buffer.baseAddress.flatMap { tossl_d2i_pkcs12($0, buffer.count) } }) else {
            throw fail(.notPKCS12)
        }
        defer { PKCS12_free(p12) }

        var password: [UInt8]? = nil
        defer { password?.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        if PKCS12_mac_present(p12) == 1, PKCS12_verify_mac(p12, nil, 0) != 1, PKCS12_verify_mac(p12, "", 0) != 1 {
            switch await settings.password() {
            case .missing(let note):
                throw fail(.passwordMissing(note: note))
            case .found(let given, let origin):
                let terminated = given + [0]
                password = terminated
                let verified = terminated.withUnsafeBytes { raw in
                    PKCS12_verify_mac(p12, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(given.count))
                }
                guard verified == 1 else { throw fail(.passwordWrong(origin: origin)) }
            }
        }
        ERR_clear_error()

        var keyPointer: OpaquePointer?
        var certPointer: OpaquePointer?
        var caStack: OpaquePointer?
        let parsed = (password ?? [0]).withUnsafeBytes { raw in
            PKCS12_parse(p12, raw.baseAddress?.assumingMemoryBound(to: CChar.self), &keyPointer, &certPointer, &caStack)
        }
        var extra: [OpaquePointer] = []
        if let caStack {
            for index in 0..<tossl_sk_X509_num(caStack) {
                if let cert = tossl_sk_X509_value(caStack, index), X509_up_ref(cert) == 1 { extra.append(cert) }
            }
            tossl_sk_X509_pop_free(caStack)
        }
        guard parsed == 1 else {
            let detail = OpenSSLErrorText.last() ?? "PKCS12_parse failed"
            if let certPointer { X509_free(certPointer) }
            if let keyPointer { EVP_PKEY_free(keyPointer) }
            extra.forEach { X509_free($0) }
            throw fail(.undecryptable(detail))
        }
        guard let certPointer else {
            if let keyPointer { EVP_PKEY_free(keyPointer) }
            extra.forEach { X509_free($0) }
            throw fail(.noCertificate)
        }
        guard let keyPointer else {
            X509_free(certPointer)
            extra.forEach { X509_free($0) }
            throw fail(.noPrivateKey)
        }
        // From here the identity owns the pointers and frees them however this ends.
        let identity = ClientIdentity(path: settings.path, certificate: certPointer, key: keyPointer, chain: extra)
        guard X509_check_private_key(certPointer, keyPointer) == 1 else { throw fail(.keyMismatch) }
        var moment = time_t(now.timeIntervalSince1970)
        if X509_cmp_time(X509_get0_notAfter(certPointer), &moment) < 0 {
            throw fail(.expired(ClockText.iso(identity.notAfter)))
        }
        if X509_cmp_time(X509_get0_notBefore(certPointer), &moment) > 0 {
            throw fail(.notYetValid(Self.date(X509_get0_notBefore(certPointer)).map { ClockText.iso($0) } ?? "?"))
        }
        return identity
    }

    private static func read(_ path: String, fail: (ClientCertificateError.Problem) -> ClientCertificateError) throws(ClientCertificateError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw fail(.unreadable("no such file")) }
        guard !isDirectory.boolValue else { throw fail(.unreadable("it is a directory")) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail(.unreadable(FileManager.default.isReadableFile(atPath: path) ? "reading failed" : "permission denied"))
        }
        guard data.count <= 1 << 20 else { throw fail(.unreadable("it is larger than 1 MiB; a PKCS#12 file is a few KiB")) }
        return [UInt8](data)
    }

    /// Sets certificate, key and chain on one TLS connection, from the cert callback that runs when
    /// the server asks for a client certificate. OpenSSL takes its own references.
    func present(on ssl: OpaquePointer) -> Bool {
        guard SSL_use_certificate(ssl, certificate) == 1, SSL_use_PrivateKey(ssl, key) == 1 else { return false }
        return chain.allSatisfy { tossl_ssl_add1_chain_cert(ssl, $0) == 1 }
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

enum OpenSSLErrorText {
    /// The most recent error on this thread's OpenSSL queue, which is then cleared.
    static func last() -> String? {
        var code: UInt = 0
        var next = ERR_get_error()
        while next != 0 {
            code = next
            next = ERR_get_error()
        }
        guard code != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
