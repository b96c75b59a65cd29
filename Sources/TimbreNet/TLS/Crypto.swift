import COpenSSL
import Foundation
import TimbreCore

/// Hashing and randomness from the libcrypto curl already links (no second crypto stack).
public enum Crypto {
    /// Bytes from OpenSSL's CSPRNG.
    public static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw CryptoError.randomUnavailable }
        return bytes
    }

    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_Digest(data, data.count, &digest, &length, EVP_sha256(), nil)
        return Array(digest.prefix(Int(length)))
    }

    /// HMAC-SHA256 (RFC 2104 with SHA-256; test vectors in RFC 4231).
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // An empty key is legal HMAC; OpenSSL wants a non-null pointer all the same.
        let keyBytes = key.isEmpty ? [0] : key
        _ = keyBytes.withUnsafeBufferPointer { k in
            data.withUnsafeBufferPointer { d in
                HMAC(EVP_sha256(), k.baseAddress, Int32(key.count), d.baseAddress, d.count, &mac, &length)
            }
        }
        return Array(mac.prefix(Int(length)))
    }

    /// Compares bytes in time that depends on the length only (MACs, signatures).
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }

    /// Lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 4648 §5 base64url without padding (what PKCE and OAuth `state` use).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Compares without an early exit, for secrets such as `state`.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

public enum CryptoError: UserFacingError {
    case randomUnavailable
    public var message: String { "the system random number generator is unavailable" }
    public var exitStatus: ExitStatus { .failure }
}
