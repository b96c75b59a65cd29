/// Base62 identifiers, 22 characters like Spotify's.
public enum SpotifyID {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A deterministic 22-character base62 id for (seed, namespace, index).
    public static func make(seed: UInt64, namespace: UInt64, index: Int) -> String {
        var rng = SplitMix64(seed: seed, stream: 0x1D00 &+ namespace, index: UInt64(index))
        var bytes = [UInt8]()
        bytes.reserveCapacity(22)
        for _ in 0..<22 { bytes.append(alphabet[rng.below(62)]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func isValid(_ id: String) -> Bool {
        let utf8 = id.utf8
        return utf8.count == 22 && utf8.allSatisfy { alphabet.contains($0) }
    }
}
