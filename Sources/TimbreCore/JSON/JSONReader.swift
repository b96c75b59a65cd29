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
}
