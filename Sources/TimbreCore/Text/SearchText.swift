import Foundation

/// Case-, diacritic- and width-insensitive text for `/` and `F`, as UTF-8 bytes: matching and
/// sorting compare bytes, never `String`s.
public enum SearchText {
    public static func fold(_ text: String) -> String {
        String(decoding: foldedBytes(text), as: UTF8.self)
    }

    /// Folded UTF-8. ASCII (most names) is lower-cased byte by byte; anything else goes through
    /// Foundation's case, diacritic and width folding. Control characters become spaces, so the
    /// separators `FoldedColumns` puts between fields can never occur inside one.
    public static func foldedBytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        append(text, to: &bytes)
        return bytes
    }

    /// `foldedBytes(text)`, appended to `bytes` (no intermediate array for ASCII text).
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        if text.withUTF8({ appendASCII($0, to: &bytes) }) { return }
        appendFolded(text, to: &bytes)
    }

    /// `foldedBytes` of UTF-8 `bytes` (a column straight from SQLite, say).
    public static func append(bytes utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        if appendASCII(utf8, to: &bytes) { return }
        appendFolded(String(decoding: utf8, as: UTF8.self), to: &bytes)
    }

    /// Appends `utf8` folded when it is all ASCII and returns true; appends nothing and returns
    /// false when it holds any other byte. A copy, then eight bytes folded at a time in place:
    /// `F` folds every name, artist and album of the cache for each query, and appending byte by
    /// byte was most of its time.
    public static func appendASCII(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) -> Bool {
        guard !utf8.isEmpty else { return true }
        let start = bytes.count
        bytes.append(contentsOf: utf8)
        let ascii = bytes.withUnsafeMutableBytes { raw in
            foldInPlace(UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
        }
        if !ascii { bytes.removeSubrange(start...) }
        return ascii
    }

    /// Foundation's case, diacritic and width folding; control characters become spaces.
    private static func appendFolded(_ text: String, to bytes: inout [UInt8]) {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        for byte in folded.utf8 { bytes.append(byte < 0x20 ? 0x20 : byte) }
    }

    @inline(__always)
    static func foldASCII(_ byte: UInt8) -> UInt8 {
        if byte >= 0x41 && byte <= 0x5A { return byte | 0x20 }
        return byte < 0x20 ? 0x20 : byte
    }

    /// `foldASCII` over every byte; false (the buffer partly folded) at the first non-ASCII one.
    private static func foldInPlace(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        let count = buffer.count
        var offset = 0
        while offset + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if word & highBits != 0 { return false }
            base.storeBytes(of: foldWord(word), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            if byte >= 0x80 { return false }
            base.storeBytes(of: foldASCII(byte), toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        return true
    }

    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// `foldASCII` of eight ASCII bytes at once. Adding `0x80 - c` to a byte below 0x80 sets its
    /// high bit exactly when the byte is at least `c`, and never carries into the next byte.
    @inline(__always)
    private static func foldWord(_ word: UInt64) -> UInt64 {
        let atLeastA = (word &+ lowBits &* (0x80 - 0x41)) & highBits
        let pastZ = (word &+ lowBits &* (0x80 - 0x5B)) & highBits
        let control = ~(word &+ lowBits &* (0x80 - 0x20)) & highBits
        let upper = atLeastA & ~pastZ
        // Upper case gains 0x20; a control byte is replaced by 0x20.
        let lowered = word | (upper >> 2)
        return (lowered & ~((control >> 7) &* 0xFF)) | (control >> 2)
    }

    /// The index of the needle byte least likely to occur in names (English letter frequencies;
    /// digits, punctuation and non-ASCII bytes count as rare): the byte a scan looks for first.
    public static func rarestIndex(_ needle: [UInt8]) -> Int {
        var best = 0
        var bestRank = Int.max
        for (index, byte) in needle.enumerated() {
            let rank = commonness[Int(byte)]
            if rank < bestRank {
                best = index
                bestRank = rank
            }
        }
        return best
    }

    /// Higher is more common: space, then letters by their frequency in English text.
    private static let commonness: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        let letters = Array("zqjxkvbpygfwmucldrhsnioate".utf8)
        for (rank, letter) in letters.enumerated() { table[Int(letter)] = rank + 1 }
        table[0x20] = letters.count + 1
        return table
    }()

    /// Byte substring search.
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                guard let h = hay.baseAddress, let n = pin.baseAddress else { return false }
                return find(n, pin.count, in: h, hay.count) != nil
            }
        }
    }

    /// The offset of the first occurrence of `needle` in `haystack`: `memchr` (vectorised in libc)
    /// finds candidates for the first byte, `memcmp` checks the rest. (`memmem` is a GNU extension
    /// Swift's Glibc module does not export.)
    public static func find(_ needle: UnsafeRawPointer, _ needleCount: Int, in haystack: UnsafeRawPointer, _ count: Int) -> Int? {
        guard needleCount > 0 else { return 0 }
        guard needleCount <= count else { return nil }
        let first = Int32(needle.load(as: UInt8.self))
        let last = count - needleCount
        var offset = 0
        while offset <= last {
            guard let hit = memchr(haystack + offset, first, last - offset + 1) else { return nil }
            let at = haystack.distance(to: UnsafeRawPointer(hit))
            if needleCount == 1 || memcmp(haystack + at + 1, needle + 1, needleCount - 1) == 0 { return at }
            offset = at + 1
        }
        return nil
    }
}
