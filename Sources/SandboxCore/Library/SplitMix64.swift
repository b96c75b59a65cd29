/// A small, fast, seedable generator. Library data must be reproducible from a seed on every
/// platform, so `SystemRandomNumberGenerator` is never used for it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one named stream derived from a seed, so that adding draws to one part
    /// of the library does not shift every other part.
    public init(seed: UInt64, stream: UInt64, index: UInt64 = 0) {
        state = SplitMix64.mix(seed ^ SplitMix64.mix(stream &+ 0x9E37_79B9_7F4A_7C15 &* (index &+ 1)))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<upperBound` (upperBound > 0).
    public mutating func below(_ upperBound: Int) -> Int {
        Int(next() % UInt64(max(upperBound, 1)))
    }

    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    public mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}
