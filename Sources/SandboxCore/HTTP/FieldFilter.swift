/// Spotify's `fields` selector: `next,total,items(added_at,item(id,name,artists(name)))`.
///
/// Names are comma-separated; parentheses select inside an object (or inside every element of an
/// array); `a.b` is shorthand for `a(b)`; a leading `!` excludes a field.
public struct FieldFilter: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var excluded: Bool
        public var children: FieldFilter?
    }

    public enum ParseError: Error, Equatable {
        case invalid(String)
    }

    public var entries: [Entry]

    public init(parsing text: String) throws(ParseError) {
        var parser = Parser(bytes: Array(text.utf8))
        let filter = try parser.parseList()
        guard parser.index == parser.bytes.count else {
            throw .invalid("unexpected '\(parser.peekText)' at \(parser.index)")
        }
        self = filter
    }

    init(entries: [Entry]) { self.entries = entries }

    public func apply(to value: JSONValue) -> JSONValue {
        switch value {
        case let .array(items):
            return .array(items.map { apply(to: $0) })
        case let .object(pairs):
            let includes = entries.filter { !$0.excluded }
            let excludes = Set(entries.filter(\.excluded).map(\.name))
            var result: [(String, JSONValue)] = []
            for (key, child) in pairs where !excludes.contains(key) {
                if includes.isEmpty {
                    result.append((key, child))
                } else if let entry = includes.first(where: { $0.name == key }) {
                    result.append((key, entry.children.map { $0.apply(to: child) } ?? child))
                }
            }
            return .object(result)
        default:
            return value
        }
    }

    private mutating func add(_ entry: Entry) {
        guard let existing = entries.firstIndex(where: { $0.name == entry.name && $0.excluded == entry.excluded }) else {
            entries.append(entry)
            return
        }
        // `a(b),a(c)` means `a(b,c)`; a bare `a` anywhere means all of `a`.
        switch (entries[existing].children, entry.children) {
        case (nil, _), (_, nil):
            entries[existing].children = nil
        case (var mine?, let theirs?):
            for child in theirs.entries { mine.add(child) }
            entries[existing].children = mine
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        var peekText: String {
            index < bytes.count ? String(decoding: bytes[index...index], as: UTF8.self) : "end"
        }

        mutating func parseList() throws(ParseError) -> FieldFilter {
            var filter = FieldFilter(entries: [])
            repeat {
                filter.add(try parseEntry())
            } while consume(UInt8(ascii: ","))
            return filter
        }

        mutating func parseEntry() throws(ParseError) -> Entry {
            let excluded = consume(UInt8(ascii: "!"))
            let start = index
            while index < bytes.count, !"(),.!".utf8.contains(bytes[index]) { index += 1 }
            let name = String(decoding: bytes[start..<index], as: UTF8.self).trimmingSpaces
            guard !name.isEmpty else { throw .invalid("empty field name at \(start)") }
            var entry = Entry(name: name, excluded: excluded, children: nil)
            if consume(UInt8(ascii: "(")) {
                entry.children = try parseList()
                guard consume(UInt8(ascii: ")")) else { throw .invalid("missing ')' at \(index)") }
            } else if consume(UInt8(ascii: ".")) {
                entry.children = FieldFilter(entries: [try parseEntry()])
            }
            return entry
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
