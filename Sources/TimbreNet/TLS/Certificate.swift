import COpenSSL
import Foundation
import TimbreCore

/// An X.509 certificate held through OpenSSL. Owns its `X509*`; no pointer leaves this file.
public final class Certificate: @unchecked Sendable {
    private let x509: OpaquePointer

    /// Takes a reference to an `X509*` owned elsewhere (for example a chain in a verify callback).
    init(borrowing pointer: OpaquePointer) {
        X509_up_ref(pointer)
        x509 = pointer
    }

    private init(owning pointer: OpaquePointer) { x509 = pointer }

    deinit { X509_free(x509) }

    /// Every certificate in a PEM document, in file order.
    public static func parsePEM(_ data: Data) throws(CertificateError) -> [Certificate] {
        var result: [Certificate] = []
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress, let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return }
            defer { BIO_free(bio) }
            while let cert = PEM_read_bio_X509(bio, nil, nil, nil) {
                result.append(Certificate(owning: cert))
            }
        }
        ERR_clear_error()  // the loop ends on an expected "no start line"
        guard !result.isEmpty else { throw CertificateError.noCertificates }
        return result
    }

    /// SHA-256 of the DER-encoded SubjectPublicKeyInfo: what an SPKI pin names.
    public var spkiPin: SPKIPin { Self.spkiPin(of: x509) }

    public var subject: String { Self.describe(X509_get_subject_name(x509)) }
    public var issuer: String { Self.describe(X509_get_issuer_name(x509)) }

    /// Issued by itself and signed by its own key: a root.
    public var isSelfSigned: Bool {
        X509_check_issued(x509, x509) == X509_V_OK && X509_verify(x509, X509_get0_pubkey(x509)) == 1
    }

    public var isCertificateAuthority: Bool { X509_check_ca(x509) != 0 }

    static func spkiPin(of cert: OpaquePointer) -> SPKIPin {
        guard let key = X509_get_X509_PUBKEY(cert) else { return SPKIPin(digest: []) }
        let length = i2d_X509_PUBKEY(key, nil)
        guard length > 0 else { return SPKIPin(digest: []) }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_X509_PUBKEY(key, &cursor)
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var digestLength: UInt32 = 0
        _ = EVP_Digest(der, der.count, &digest, &digestLength, EVP_sha256(), nil)
        return SPKIPin(digest: Array(digest.prefix(Int(digestLength))))
    }

    /// "CN=…, O=…" with UTF-8 values, in the order the name lists them.
    static func describe(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var parts: [String] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index) else { continue }
            let nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry))
            let key = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "?"
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry))
            guard length >= 0, let utf8 else { continue }
            let value = String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
            tossl_free(utf8)
            parts.append("\(key)=\(TerminalText.sanitize(value))")
        }
        return parts.joined(separator: ", ")
    }

    /// The chain of a verify callback as pinning sees it.
    static func entries(ofChain stack: OpaquePointer?, positions: (Int) -> [ChainPosition]) -> [ChainEntry] {
        guard let stack else { return [] }
        let count = Int(tossl_sk_X509_num(stack))
        let slots = positions(count)
        return (0..<count).compactMap { index in
            guard let cert = tossl_sk_X509_value(stack, Int32(index)) else { return nil }
            return ChainEntry(position: slots[index], subject: describe(X509_get_subject_name(cert)), pin: spkiPin(of: cert))
        }
    }
}

public enum CertificateError: UserFacingError, Equatable {
    case noCertificates
    case unreadable(path: String, detail: String)

    public var message: String {
        switch self {
        case .noCertificates: return "no PEM certificate found (expected -----BEGIN CERTIFICATE----- blocks)"
        case .unreadable(let path, let detail): return "cannot read \(path): \(detail)"
        }
    }

    public var exitStatus: ExitStatus { .usage }
}

extension Certificate {
    /// Positions for certificates read from a file, where nothing was verified: self-signed is a
    /// root, a CA certificate an intermediate, anything else a leaf.
    public static func describeFileChain(_ certs: [Certificate]) -> [ChainEntry] {
        certs.map { cert in
            let position: ChainPosition = cert.isSelfSigned ? .root : (cert.isCertificateAuthority ? .intermediate : .leaf)
            return ChainEntry(position: position, subject: cert.subject, pin: cert.spkiPin)
        }
    }
}
