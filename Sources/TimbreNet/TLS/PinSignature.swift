import COpenSSL
import Foundation
import TimbreCore

/// The outcome of checking one signature: valid, or a sentence saying why not.
public enum SignatureCheck: Sendable, Equatable {
    case valid
    case invalid(String)
}

/// The key signed pin documents must verify with (`[tls.remote]` in config.toml).
public enum PinDocumentKey: Sendable {
    /// `public_key = "…pem"`: ECDSA P-256 (DER signature over SHA-256) or Ed25519.
    case publicKey(SignerPublicKey)
    /// `hmac = true`: HMAC-SHA256 with a shared secret (never printed, never logged).
    case hmac(HMACKey)

    /// "the Ed25519 key /path/signer.pem", "the HMAC-SHA256 key from TIMBRE_PINS_HMAC_KEY".
    public var description: String {
        switch self {
        case .publicKey(let key): return "the \(key.algorithm.rawValue) key \(key.path)"
        case .hmac(let key): return "the HMAC-SHA256 key from \(key.origin)"
        }
    }

    public func verify(signature: [UInt8], of data: [UInt8]) -> SignatureCheck {
        switch self {
        case .publicKey(let key): return key.verify(signature: signature, of: data)
        case .hmac(let key): return key.verify(signature: signature, of: data)
        }
    }
}

/// A shared HMAC-SHA256 key. Holds its bytes only as long as the value lives; `origin` names where
/// it came from (`TIMBRE_PINS_HMAC_KEY`, `the keyring`) for messages.
public struct HMACKey: Sendable {
    /// Shorter keys are refused: a guessable key would let anyone sign pins.
    public static let minimumLength = 16

    let bytes: [UInt8]
    public let origin: String

    public init(bytes: [UInt8], origin: String) throws(RemotePinError) {
        guard bytes.count >= Self.minimumLength else {
            throw RemotePinError.keyUnusable(
                "the HMAC key from \(origin) is \(bytes.count) bytes; use at least \(Self.minimumLength) random bytes (e.g. `openssl rand -hex 32`)")
        }
        self.bytes = bytes
        self.origin = origin
    }

    func verify(signature: [UInt8], of data: [UInt8]) -> SignatureCheck {
        guard signature.count == 32 else {
            return .invalid("the signature is \(signature.count) bytes; an HMAC-SHA256 signature is 32 (truncated or not an HMAC)")
        }
        let expected = Crypto.hmacSHA256(key: bytes, data: data)
        return Crypto.constantTimeEquals(expected, signature)
            ? .valid
            : .invalid(
                "the HMAC-SHA256 signature does not match the document with the key from \(origin) (the document was changed, or signed with another key)")
    }
}

/// An ECDSA P-256 or Ed25519 public key read from a PEM file. Owns its `EVP_PKEY*`; no pointer
/// leaves this file.
public final class SignerPublicKey: @unchecked Sendable {
    public enum Algorithm: String, Sendable {
        case ecdsaP256 = "ECDSA P-256"
        case ed25519 = "Ed25519"
    }

    public let algorithm: Algorithm
    public let path: String
    private let key: OpaquePointer

    private init(key: OpaquePointer, algorithm: Algorithm, path: String) {
        self.key = key
        self.algorithm = algorithm
        self.path = path
    }

    deinit { EVP_PKEY_free(key) }

    /// Reads `path` (`-----BEGIN PUBLIC KEY-----`).
    public static func load(path: String) throws(RemotePinError) -> SignerPublicKey {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw RemotePinError.keyUnusable("cannot read the signer's public key \(path): \((error as NSError).localizedDescription)")
        }
        return try parse(pem: data, path: path)
    }

    public static func parse(pem data: Data, path: String) throws(RemotePinError) -> SignerPublicKey {
        if data.range(of: Data("PRIVATE KEY-----".utf8)) != nil {
            throw RemotePinError.keyUnusable(
                "\(path) holds a private key; give timbre the public key only (`openssl pkey -in KEY.pem -pubout -out signer.pem`) and keep the private key on the signing machine"
            )
        }
        let parsed: OpaquePointer? = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> OpaquePointer? in
            guard let base = raw.baseAddress, let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let key = parsed else {
            throw RemotePinError.keyUnusable("\(path) is not a PEM public key (expected -----BEGIN PUBLIC KEY-----)")
        }
        if tossl_pkey_is_ed25519(key) == 1 { return SignerPublicKey(key: key, algorithm: .ed25519, path: path) }
        if tossl_pkey_is_p256(key) == 1 { return SignerPublicKey(key: key, algorithm: .ecdsaP256, path: path) }
        EVP_PKEY_free(key)
        throw RemotePinError.keyUnusable("\(path) is neither an ECDSA P-256 nor an Ed25519 public key; pin documents are signed with one of those")
    }

    func verify(signature: [UInt8], of data: [UInt8]) -> SignatureCheck {
        switch algorithm {
        case .ed25519:
            guard signature.count == 64 else {
                return .invalid("the signature is \(signature.count) bytes; an Ed25519 signature is 64 (truncated or not Ed25519)")
            }
        case .ecdsaP256:
            guard signature.withUnsafeBufferPointer({ tossl_is_der_ecdsa_signature($0.baseAddress, $0.count) }) == 1 else {
                return .invalid("the signature is not one whole DER ECDSA signature (\(signature.count) bytes: truncated, or made with another algorithm)")
            }
        }
        guard let context = EVP_MD_CTX_new() else { return .invalid("OpenSSL could not allocate a verification context") }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 hashes internally and takes no digest; ECDSA signs SHA-256 of the bytes.
        let digest = algorithm == .ed25519 ? nil : EVP_sha256()
        var result = EVP_DigestVerifyInit(context, nil, digest, nil, key)
        if result == 1 {
            let message = data.isEmpty ? [0] : data
            result = signature.withUnsafeBufferPointer { s in
                message.withUnsafeBufferPointer { m in
                    EVP_DigestVerify(context, s.baseAddress, s.count, m.baseAddress, data.count)
                }
            }
        }
        ERR_clear_error()
        return result == 1
            ? .valid : .invalid("the \(algorithm.rawValue) signature does not verify with \(path) (the document was changed, or signed with another key)")
    }
}
