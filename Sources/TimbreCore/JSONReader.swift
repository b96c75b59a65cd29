import Foundation

/// A forward-only JSON reader over UTF-8 bytes, for the hot paths where `JSONDecoder` costs more
/// than the network (a full sync reads ~4,000 pages): no intermediate tree, no `Codable` witness
/// tables, keys compared as bytes. Callers walk the document in order:
///
///     var more = try r.enterObject()
///     while more {
///         let key = try r.readKey()
///         if r.key(key, is: "name") { name = try r.string() } else { try r.skipValue() }
///         more = try r.nextMember()
///     }
///
/// The grammar is RFC 8259's: anything else (truncated input, trailing garbage, a raw control
/// character in a string, nesting deeper than `maxDepth`) throws `JSONReader.SyntaxError`.
/// The typed accessors are lenient on purpose: `string()`, `int()` and `bool()` read a value of
/// another type (or null) as nil and skip it, so one odd field never costs a whole page.
public struct JSONReader {
    public enum Kind: Sendable, Equatable { case object, array, string, number, bool, null }

    public struct SyntaxError: Error, CustomStringConvertible, Equatable {
        public var offset: Int
        public var reason: String
        public var description: String { "malformed JSON at byte \(offset): \(reason)" }
    }

    /// A key in the document, not yet turned into a `String`.
    public struct Key {
        @usableFromInline var start: Int
        @usableFromInline var end: Int
        @usableFromInline var escaped: Bool

        @usableFromInline init(start: Int, end: Int, escaped: Bool) {
            self.start = start
            self.end = end
            self.escaped = escaped
        }
    }

    public static let maxDepth = 512

    // Internal to the module, usable from inlined code: the calls a page makes per member —
    // `key(_:is:)`, `peek`, `nextMember`… — are inlined into `TimbreLibrary`'s readers, where
    // they were a call each (16 million key comparisons in a full sync).
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    @usableFromInline var depth = 0

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Reads a whole document: `body` reads the top-level value, and only whitespace may follow it.
    public static func read<T>(_ data: Data, _ body: (inout JSONReader) throws -> T) throws -> T {
        try data.withUnsafeBytes { try read($0.bindMemory(to: UInt8.self), body) }
    }

    public static func read<T>(_ text: String, _ body: (inout JSONReader) throws -> T) throws -> T {
        var text = text
        return try text.withUTF8 { try read($0, body) }
    }

    private static func read<T>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout JSONReader) throws -> T) throws -> T {
        var reader = JSONReader(bytes)
        let value = try body(&reader)
        try reader.finish()
        return value
    }

    /// Only whitespace is left.
    public mutating func finish() throws {
        skipSpace()
        if index < bytes.count { throw fail("unexpected data after the value") }
    }

    // MARK: Structure

    /// The kind of the next value, without consuming it.
    @inlinable
    public mutating func peek() throws -> Kind {
        skipSpace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw fail("unexpected character")
        }
    }

    /// Consumes `{`; false when the object is empty (its `}` is consumed too).
    @inlinable
    public mutating func enterObject() throws -> Bool {
        try open(UInt8(ascii: "{"), closing: UInt8(ascii: "}"))
    }

    /// After a member's value: true when another member follows, false at the closing `}`.
    @inlinable
    public mutating func nextMember() throws -> Bool {
        try separator(closing: UInt8(ascii: "}"))
    }

    /// Consumes `[`; false when the array is empty (its `]` is consumed too).
    @inlinable
    public mutating func enterArray() throws -> Bool {
        try open(UInt8(ascii: "["), closing: UInt8(ascii: "]"))
    }

    /// After an element: true when another element follows, false at the closing `]`.
    @inlinable
    public mutating func nextElement() throws -> Bool {
        try separator(closing: UInt8(ascii: "]"))
    }

    /// A member's key and its `:`.
    @inlinable
    public mutating func readKey() throws -> Key {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
        let (start, end, escaped, _) = try scanString()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
        index += 1
        return Key(start: start, end: end, escaped: escaped)
    }

    /// Whether `key` spells `name` (compared as UTF-8 bytes, escapes decoded).
    @inlinable
    public func key(_ key: Key, is name: StaticString) -> Bool {
        if key.escaped { return escapedKey(key, is: name) }
        guard key.end - key.start == name.utf8CodeUnitCount else { return false }
        let literal = name.utf8Start
        var i = 0
        while i < name.utf8CodeUnitCount {
            if bytes[key.start + i] != literal[i] { return false }
            i += 1
        }
        return true
    }

    @usableFromInline
    func escapedKey(_ key: Key, is name: StaticString) -> Bool {
        decode(key.start, key.end, escaped: true) == String(describing: name)
    }

    public func string(of key: Key) -> String {
        decode(key.start, key.end, escaped: key.escaped)
    }

    // MARK: Values

    /// The next value, which must be a string.
    public mutating func readString() throws -> String {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        let (start, end, escaped, _) = try scanString()
        return decode(start, end, escaped: escaped)
    }

    /// A string, or nil (and the value skipped) for null or any other type.
    public mutating func string() throws -> String? {
        if try peek() == .string { return try readString() }
        try skipValue()
        return nil
    }

    /// Appends a string value's text to `out` as UTF-8 (escapes decoded, invalid UTF-8 replaced by
    /// U+FFFD, exactly what `readString` returns) without making a `String` for plain ASCII text;
    /// false, with the value skipped, for null or any other type.
    @inlinable
    public mutating func appendString(to out: inout [UInt8]) throws -> Bool {
        guard try peek() == .string else {
            try skipValue()
            return false
        }
        let (start, end, escaped, ascii) = try scanString()
        if !escaped, ascii {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        } else {
            out.append(contentsOf: decode(start, end, escaped: escaped).utf8)
        }
        return true
    }

    /// Whether the next value is the string `literal` (the value is consumed either way).
    public mutating func stringEquals(_ literal: StaticString) throws -> Bool {
        guard try peek() == .string else {
            try skipValue()
            return false
        }
        let (start, end, escaped, _) = try scanString()
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        if escaped { return decode(start, end, escaped: true).utf8.elementsEqual(expected) }
        return UnsafeBufferPointer(rebasing: bytes[start..<end]).elementsEqual(expected)
    }

    /// An integer, or nil (and the value skipped) for null, another type, a fraction or an
    /// integer too large for `Int`.
    public mutating func int() throws -> Int? {
        guard try peek() == .number else {
            try skipValue()
            return nil
        }
        let (start, integral) = try scanNumber()
        guard integral else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.rounded() == value, let exact = Int(exactly: value) else { return nil }
            return exact
        }
        var i = start
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var value = 0
        while i < index {
            let digit = Int(bytes[i] &- UInt8(ascii: "0"))
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = sum
            i += 1
        }
        return value
    }

    /// A boolean, or nil (and the value skipped) for null or any other type.
    public mutating func bool() throws -> Bool? {
        guard try peek() == .bool else {
            try skipValue()
            return nil
        }
        if bytes[index] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// Consumes `null` when it comes next.
    public mutating func skipNull() throws -> Bool {
        guard try peek() == .null else { return false }
        try literal("null")
        return true
    }

    /// Skips one value of any kind (checking its syntax).
    public mutating func skipValue() throws {
        switch try peek() {
        case .object:
            var more = try enterObject()
            while more {
                _ = try readKey()
                try skipValue()
                more = try nextMember()
            }
        case .array:
            var more = try enterArray()
            while more {
                try skipValue()
                more = try nextElement()
            }
        case .string: _ = try scanString()
        case .number: _ = try scanNumber()
        case .bool: try literal(bytes[index] == UInt8(ascii: "t") ? "true" : "false")
        case .null: try literal("null")
        }
    }

    // MARK: Scanning

    @inlinable
    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    @usableFromInline
    func fail(_ reason: String) -> SyntaxError {
        SyntaxError(offset: index, reason: reason)
    }

    @inlinable
    mutating func open(_ opening: UInt8, closing: UInt8) throws -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == opening else {
            throw fail(opening == UInt8(ascii: "{") ? "expected an object" : "expected an array")
        }
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth) levels") }
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == closing {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    @inlinable
    mutating func separator(closing: UInt8) throws -> Bool {
        skipSpace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return true
        case closing:
            index += 1
            depth -= 1
            return false
        default:
            throw fail(closing == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("unexpected end of input") }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw fail("unexpected character") }
        index += count
    }

    /// Moves past a string (index at its opening quote); returns its contents' range, whether it
    /// holds escapes and whether every byte is ASCII. Eight bytes at a time while none of them is
    /// a quote, a backslash or a control character: most strings in a page are 10–40 bytes.
    @usableFromInline
    mutating func scanString() throws -> (start: Int, end: Int, escaped: Bool, ascii: Bool) {
        index += 1
        let start = index
        var escaped = false
        var high: UInt64 = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if Self.hasSpecialByte(word) { break }
                high |= word
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start, index - 1, escaped, high & 0x8080_8080_8080_8080 == 0)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard index + 1 < bytes.count else { break }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 5 < bytes.count, hex(at: index + 2) != nil else { throw fail("bad \\u escape") }
                    index += 6
                default:
                    throw fail("bad escape")
                }
                continue
            }
            if byte < 0x20 { throw fail("control character in a string") }
            high |= UInt64(byte)
            index += 1
        }
        throw fail("unterminated string")
    }

    /// Whether any of the eight bytes is `"`, `\` or below 0x20 (the bytes that end the fast
    /// path of `scanString`). Bytes of 0x80 and above never match.
    @inline(__always)
    private static func hasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return hasZero(quote) || hasZero(backslash) || control
    }

    /// Moves past a number, checking its grammar; returns where it started and whether it is a
    /// plain integer (no fraction or exponent).
    private mutating func scanNumber() throws -> (start: Int, integral: Bool) {
        let start = index
        var integral = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return (start, integral)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func hex(at position: Int) -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for i in position..<position + 4 {
            let byte = bytes[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// A scanned string's text. Invalid UTF-8 and unpaired surrogates become U+FFFD.
    @usableFromInline
    func decode(_ start: Int, _ end: Int, escaped: Bool) -> String {
        guard escaped else { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var i = start
        while i < end {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(at: i) ?? 0xFFFD
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    if i + 6 <= end, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                       let low = hex(at: i + 2), (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    scalar = 0xFFFD
                }
                appendUTF8(Unicode.Scalar(scalar) ?? "\u{FFFD}", to: &out)
            default: out.append(escape)  // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            out.append(UInt8(value))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | value >> 6))
            out.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | value >> 12))
            out.append(UInt8(0x80 | value >> 6 & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        default:
            out.append(UInt8(0xF0 | value >> 18))
            out.append(UInt8(0x80 | value >> 12 & 0x3F))
            out.append(UInt8(0x80 | value >> 6 & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        }
    }
}
