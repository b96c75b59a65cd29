import COpenSSL
import Foundation

public struct OpenSSLError: Error, CustomStringConvertible {
    public var description: String

    init(_ operation: String) {
        var detail = ""
        let code = ERR_get_error()
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            detail = ": " + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
        description = "OpenSSL \(operation) failed\(detail)"
    }
}

/// An EC P-256 key; owns its EVP_PKEY.
final class ECPrivateKey {
    let pointer: OpaquePointer

    init() throws {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw OpenSSLError("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1,
            EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
            EVP_PKEY_generate(ctx, &key) == 1,
            let key
        else { throw OpenSSLError("EC key generation") }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }

    /// PKCS#8 PEM.
    func pem() throws -> String {
        try withMemoryBIO { bio in PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) }
    }
}

/// An X.509 certificate; owns its X509.
final class Certificate {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }

    /// Every certificate in a PEM text, in order.
    static func all(fromPEM pem: String) throws -> [Certificate] {
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBytes { raw -> [Certificate] in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw OpenSSLError("BIO_new_mem_buf") }
            defer { BIO_free(bio) }
            var result: [Certificate] = []
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) { result.append(Certificate(owning: x509)) }
            ERR_clear_error()  // the loop ends on an expected "no start line"
            return result
        }
    }

    func pem() throws -> String {
        try withMemoryBIO { bio in PEM_write_bio_X509(bio, pointer) }
    }

    /// DER of the SubjectPublicKeyInfo.
    func subjectPublicKeyInfoDER() throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(pointer), &out)
        guard length > 0, let out else { throw OpenSSLError("i2d_X509_PUBKEY") }
        defer { tossl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    var subject: String {
        guard let name = X509_get_subject_name(pointer),
            let line = X509_NAME_oneline(name, nil, 0)
        else { return "" }
        defer { tossl_free(line) }
        return String(cString: line)
    }
}

/// Runs a PEM writer against a memory BIO and returns what it wrote.
func withMemoryBIO(_ write: (OpaquePointer) -> Int32) throws -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw OpenSSLError("PEM write") }
    var data: UnsafeMutablePointer<CChar>?
    let length = tossl_bio_get_mem_data(bio, &data)
    guard length > 0, let data else { throw OpenSSLError("BIO_get_mem_data") }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
}

public enum Digest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = bytes.withUnsafeBytes { raw in EVP_Digest(raw.baseAddress, raw.count, &out, &length, EVP_sha256(), nil) }
        return out
    }

    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// PKCE S256: base64url(SHA-256(ASCII(verifier))), no padding.
    public static func pkceChallenge(verifier: String) -> String {
        base64URL(sha256(Array(verifier.utf8)))
    }

    /// Random URL-safe text for tokens and codes (not library data: this is meant to be unpredictable).
    public static func randomToken(bytes count: Int, prefix: String = "") -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&bytes, Int32(count)) != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        }
        return prefix + base64URL(bytes)
    }
}
