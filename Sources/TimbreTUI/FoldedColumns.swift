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

    public init() {}

    public init(_ rows: [TrackRow]) {
        bytes.reserveCapacity(rows.count * 48)
        starts.reserveCapacity(rows.count + 1)
        artistStarts.reserveCapacity(rows.count)
        albumStarts.reserveCapacity(rows.count)
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
        starts.append(Int32(bytes.count))
    }

    /// Rows (ascending) whose folded text contains `needle` (folded). `among`: only these rows,
    /// kept in their order (the visible rows, for a needle that extends the previous one).
    public func rows(matching needle: [UInt8], among candidates: [Int]? = nil) -> [Int] {
        guard !needle.isEmpty else { return candidates ?? Array(0..<count) }
        return bytes.withUnsafeBytes { buffer in
            needle.withUnsafeBytes { pin in
                guard let base = buffer.baseAddress, let pinBase = pin.baseAddress else { return [] }
                var result: [Int] = []
                if let candidates {
                    for row in candidates {
                        let start = Int(starts[row]), end = Int(starts[row + 1]) - 1
                        if SearchText.find(pinBase, pin.count, in: base + start, end - start) != nil { result.append(row) }
                    }
                    return result
                }
                // One pass: each hit names its row; the search resumes at the next row.
                var offset = 0
                var row = 0
                while offset < buffer.count, let found = SearchText.find(pinBase, pin.count, in: base + offset, buffer.count - offset) {
                    let at = offset + found
                    row = upperRow(for: at, from: row)
                    result.append(row)
                    offset = Int(starts[row + 1])
                    row += 1
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
