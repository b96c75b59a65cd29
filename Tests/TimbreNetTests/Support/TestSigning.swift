import COpenSSL
import Foundation

/// A signing key made with libcrypto for tests: ECDSA P-256 or Ed25519. Signs the way the
/// README's openssl commands do (ECDSA: DER over SHA-256; Ed25519: the raw message).
final class TestSigningKey: @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable { case ecdsaP256 = "EC", ed25519 = "ED25519" }

    let kind: Kind
    private let key: OpaquePointer

    init(_ kind: Kind) throws {
        self.kind = kind
        guard let context = EVP_PKEY_CTX_new_from_name(nil, kind.rawValue, nil) else { throw TestSigningError("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        var made: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            kind == .ed25519 || EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &made) == 1, let made
        else { throw TestSigningError("key generation") }
        key = made
    }

    deinit { EVP_PKEY_free(key) }

    /// `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo).
    func publicKeyPEM() throws -> Data {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TestSigningError("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, key) == 1 else { throw TestSigningError("PEM_write_bio_PUBKEY") }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = tossl_bio_get_mem_data(bio, &pointer)
        guard length > 0, let pointer else { throw TestSigningError("BIO_get_mem_data") }
        return Data(bytes: pointer, count: length)
    }

    /// Writes the public key to a fresh temporary file and returns its path.
    func publicKeyFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-signer-\(UUID().uuidString).pem").path
        try publicKeyPEM().write(to: URL(fileURLWithPath: path))
        return path
    }

    func sign(_ data: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw TestSigningError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, kind == .ed25519 ? nil : EVP_sha256(), nil, key) == 1 else { throw TestSigningError("EVP_DigestSignInit") }
        let message = data.isEmpty ? [0] : data
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, data.count) }) == 1 else {
            throw TestSigningError("EVP_DigestSign (length)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, &signature, &length, $0.baseAddress, data.count) }) == 1 else {
            throw TestSigningError("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    /// The `.sig` file's text: base64 of the signature.
    func signatureText(_ data: [UInt8]) throws -> String { Data(try sign(data)).base64EncodedString() }
}

struct TestSigningError: Error, CustomStringConvertible {
    let description: String
    init(_ operation: String) {
        ERR_clear_error()
        description = "OpenSSL \(operation) failed"
    }
}
