import Foundation
import TimbreCore

/// The folded title, artist and album of every row of a list in one byte buffer
/// (`title 0x1F artist 0x1F album 0x1E` per row), so that `/` is one search pass over
/// contiguous memory instead of a visit to every row, and sorting compares slices of it. About
/// 60 bytes per row, against ~200 for three arrays per row.
public struct FoldedColumns: Sendable {
    public enum Field: Sendable { case title, artist, album }

    private var bytes: [UInt8] = []
    /// Row `i` is `bytes[starts[i] ..< starts[i + 1] - 1]` (its 0x1E left out).
    private var starts: [Int32] = [0]
    /// Where each row's artist and album begin.
    private var artistStarts: [Int32] = []
    private var albumStarts: [Int32] = []
    /// Per row, which bytes occur in it (`bit(for:)`): a row missing one of the needle's bytes is
    /// skipped without reading its text, and a one-letter needle needs no text at all.
    private var masks: [UInt64] = []

    public init() {}

    public init(_ rows: [EntryRow]) {
        bytes.reserveCapacity(rows.count * 48)
        starts.reserveCapacity(rows.count + 1)
        artistStarts.reserveCapacity(rows.count)
        albumStarts.reserveCapacity(rows.count)
        masks.reserveCapacity(rows.count)
        for row in rows { append(title: row.title, artist: row.artist, album: row.album) }
    }

    public var count: Int { artistStarts.count }

    public mutating func append(title: String, artist: String, album: String) {
        SearchText.append(title, to: &bytes)
        bytes.append(0x1F)
        artistStarts.append(Int32(bytes.count))
        SearchText.append(artist, to: &bytes)
        bytes.append(0x1F)
        albumStarts.append(Int32(bytes.count))
        SearchText.append(album, to: &bytes)
        bytes.append(0x1E)
        let start = Int(starts[starts.count - 1])
        starts.append(Int32(bytes.count))
        var mask: UInt64 = 0
        for index in start..<(bytes.count - 1) { mask |= Self.bit(for: bytes[index]) }
        masks.append(mask)
    }

    /// One bit per folded letter, digit and the space (exact), the other bytes shared among the
    /// remaining 27 bits; the field separators have none.
    @inline(__always)
    static func bit(for byte: UInt8) -> UInt64 {
        switch byte {
        case 0x61...0x7A: return 1 << UInt64(byte - 0x61)
        case 0x30...0x39: return 1 << UInt64(26 + byte - 0x30)
        case 0x20: return 1 << 36
        case 0x1E, 0x1F: return 0
        default: return 1 << UInt64(37 + Int(byte) % 27)
        }
    }

    /// Whether `bit(for: byte)` belongs to `byte` alone.
    private static func bitIsExact(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x20
    }

    /// Rows whose folded text contains `needle` (folded), ascending; `among`: only these rows,
    /// kept in their order (the visible rows, or every row in a sort order).
    public func rows(matching needle: [UInt8], among candidates: [Int]? = nil) -> [Int] {
        guard !needle.isEmpty else { return candidates ?? Array(0..<count) }
        var wanted: UInt64 = 0
        for byte in needle { wanted |= Self.bit(for: byte) }
        // One letter, digit or space: the masks alone answer.
        if needle.count == 1, Self.bitIsExact(needle[0]) {
            return masks.withUnsafeBufferPointer { masks in
                if let candidates { return candidates.filter { masks[$0] & wanted != 0 } }
                var result: [Int] = []
                for row in 0..<masks.count where masks[row] & wanted != 0 { result.append(row) }
                return result
            }
        }
        // A few candidates: look at each (those missing a byte of the needle are skipped unread).
        if let candidates, candidates.count < count / 8 {
            return candidates.filter { row in masks[row] & wanted == wanted && rowContains(row, needle) }
        }
        let matches = scan(for: needle)
        guard let candidates else { return matches }
        var matched = [Bool](repeating: false, count: count)
        for row in matches { matched[row] = true }
        return candidates.filter { matched[$0] }
    }

    private func rowContains(_ row: Int, _ needle: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            needle.withUnsafeBytes { pin in
                guard let base = buffer.baseAddress, let pinBase = pin.baseAddress else { return false }
                let start = Int(starts[row]), end = Int(starts[row + 1]) - 1
                return SearchText.find(pinBase, pin.count, in: base + start, end - start) != nil
            }
        }
    }

    /// Every row holding `needle`, in one pass over the whole buffer: `memchr` for the needle's
    /// rarest byte, the rest compared around each hit, and the search resumes at the next row.
    private func scan(for needle: [UInt8]) -> [Int] {
        let anchor = SearchText.rarestIndex(needle)
        let anchorByte = Int32(needle[anchor])
        return bytes.withUnsafeBytes { buffer in
            needle.withUnsafeBytes { pin in
                guard let base = buffer.baseAddress, let pinBase = pin.baseAddress else { return [] }
                var result: [Int] = []
                var offset = anchor
                var row = 0
                while offset < buffer.count, let hit = memchr(base + offset, anchorByte, buffer.count - offset) {
                    let at = base.distance(to: UnsafeRawPointer(hit)) - anchor
                    guard at + pin.count <= buffer.count else { break }
                    if memcmp(base + at, pinBase, pin.count) == 0 {
                        // No needle byte is a separator, so the match lies inside one row.
                        row = upperRow(for: at, from: row)
                        result.append(row)
                        row += 1
                        guard row < count else { break }
                        offset = Int(starts[row]) + anchor
                    } else {
                        offset = at + anchor + 1
                    }
                }
                return result
            }
        }
    }

    /// The row holding byte `offset`, searching forward from `from` (hits come in order).
    private func upperRow(for offset: Int, from: Int) -> Int {
        // Hits are often in the next few rows: gallop forward, then bisect.
        var low = from, step = 1
        while low + step < count, Int(starts[low + step]) <= offset {
            low += step
            step *= 2
        }
        var high = min(count - 1, low + step)
        while low < high {
            let mid = (low + high + 1) / 2
            if Int(starts[mid]) <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Whether row `a`'s field sorts before row `b`'s (folded bytes, lexicographically).
    public func precedes(_ a: Int, _ b: Int, by field: Field) -> Bool {
        let x = range(a, field), y = range(b, field)
        return bytes.withUnsafeBytes { buffer in
            let common = min(x.count, y.count)
            guard common > 0, let base = buffer.baseAddress else { return x.count < y.count }
            let order = memcmp(base + x.lowerBound, base + y.lowerBound, common)
            return order != 0 ? order < 0 : x.count < y.count
        }
    }

    /// Whether one field of `row` contains `needle` (folded): `:filter artist:…` and friends.
    public func field(_ row: Int, _ field: Field, contains needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        let span = range(row, field)
        return bytes.withUnsafeBytes { buffer in
            needle.withUnsafeBytes { pin in
                guard let base = buffer.baseAddress, let first = pin.baseAddress else { return false }
                return SearchText.find(first, pin.count, in: base + span.lowerBound, span.count) != nil
            }
        }
    }

    /// The folded text of one field, for tests and display.
    public func text(_ row: Int, _ field: Field) -> String {
        String(decoding: bytes[range(row, field)], as: UTF8.self)
    }

    private func range(_ row: Int, _ field: Field) -> Range<Int> {
        switch field {
        case .title: return Int(starts[row])..<(Int(artistStarts[row]) - 1)
        case .artist: return Int(artistStarts[row])..<(Int(albumStarts[row]) - 1)
        case .album: return Int(albumStarts[row])..<(Int(starts[row + 1]) - 1)
        }
    }
}
