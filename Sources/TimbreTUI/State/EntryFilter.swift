import Foundation
import TimbreCore

/// `:filter year:1990-1999 duration:<3:00 artist:NAME album:NAME title:NAME`: field terms that
/// narrow the open playlist on top of `/`'s text. Every term must hold; a row without a year
/// fails a year term.
public struct EntryFilter: Sendable, Equatable, CustomStringConvertible {
    public var years: ClosedRange<Int>?
    public var duration: ClosedRange<Int>?
    public var artist: [UInt8]?
    public var album: [UInt8]?
    public var title: [UInt8]?
    /// The terms as typed, for the header.
    public private(set) var text = ""

    public init() {}

    public var isEmpty: Bool { years == nil && duration == nil && artist == nil && album == nil && title == nil }
    public var description: String { text }

    public static let fields = ["year", "duration", "artist", "album", "title"]

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Splits `text` into field terms (this filter) and the words that are not (the text filter).
    /// A value may be quoted: `artist:"the the"`.
    public static func parse(_ text: String) throws(Problem) -> (filter: EntryFilter, rest: String) {
        var filter = EntryFilter()
        var rest: [String] = []
        var terms: [String] = []
        for word in words(text) {
            guard let colon = word.firstIndex(of: ":"), fields.contains(word[..<colon].lowercased()) else {
                rest.append(word)
                continue
            }
            let field = word[..<colon].lowercased()
            let value = String(word[word.index(after: colon)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard !value.isEmpty else { throw Problem(description: "'\(field):' needs a value, e.g. \(example(field))") }
            switch field {
            case "year":
                guard let range = years(value) else {
                    throw Problem(description: "'year:\(TerminalText.preview(value, limit: 20))' is not a year or range; e.g. year:1990-1999, year:>2000")
                }
                filter.years = range
            case "duration":
                guard let range = durations(value) else {
                    throw Problem(
                        description: "'duration:\(TerminalText.preview(value, limit: 20))' is not a duration; e.g. duration:<3:00, duration:2:30-4:00")
                }
                filter.duration = range
            case "artist": filter.artist = SearchText.foldedBytes(value)
            case "album": filter.album = SearchText.foldedBytes(value)
            default: filter.title = SearchText.foldedBytes(value)
            }
            terms.append(word)
        }
        filter.text = terms.joined(separator: " ")
        return (filter, rest.joined(separator: " "))
    }

    /// Whether row `index` of a list holds: its numbers from `row`, its texts from the list's
    /// folded columns (already folded once for `/`).
    public func matches(_ row: EntryRow, folded: FoldedColumns, at index: Int) -> Bool {
        if let years {
            guard let year = row.year, years.contains(year) else { return false }
        }
        if let duration, !duration.contains(row.durationMS) { return false }
        if let artist, !folded.field(index, .artist, contains: artist) { return false }
        if let album, !folded.field(index, .album, contains: album) { return false }
        if let title, !folded.field(index, .title, contains: title) { return false }
        return true
    }

    private static func example(_ field: String) -> String {
        switch field {
        case "year": return "year:1990-1999"
        case "duration": return "duration:<3:00"
        default: return "\(field):NAME"
        }
    }

    /// Words split on spaces, a double-quoted part kept whole.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
                current.append(character)
                continue
            }
            if character == " ", !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `1990`, `1990-1999`, `<2000`, `>=1990`, …
    static func years(_ text: String) -> ClosedRange<Int>? {
        bounds(text, max: 9_999) { Int($0).flatMap { (1...9_999).contains($0) ? $0 : nil } }
    }

    /// `3:00`, `<3:00`, `>4:30`, `2:30-4:00`, `180` (seconds); in milliseconds. `<3:00` means
    /// shorter than three minutes.
    static func durations(_ text: String) -> ClosedRange<Int>? {
        bounds(text, max: Int(Int32.max)) { value in
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }) else { return nil }
            var seconds = 0
            for part in parts {
                guard let n = Int(part), n >= 0, n < 100_000 else { return nil }
                seconds = seconds * 60 + n
            }
            return seconds * 1000
        }
    }

    /// A value, a `low-high` range, or a comparison (`<`, `<=`, `>`, `>=`) as a closed range.
    /// `<x` excludes x itself (minus one unit: a millisecond or a year).
    private static func bounds(_ text: String, max: Int, value: (String) -> Int?) -> ClosedRange<Int>? {
        for (prefix, make) in [
            ("<=", { (v: Int) in 0...v }), (">=", { (v: Int) in v...max }),
            ("<", { (v: Int) in 0...Swift.max(0, v - 1) }), (">", { (v: Int) in Swift.min(v + 1, max)...max }),
        ] as [(String, (Int) -> ClosedRange<Int>)] {
            if text.hasPrefix(prefix) { return value(String(text.dropFirst(prefix.count))).map(make) }
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 2, let low = value(String(parts[0])), let high = value(String(parts[1])), low <= high { return low...high }
        return value(text).map { $0...$0 }
    }
}
