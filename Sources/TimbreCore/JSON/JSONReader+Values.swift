import Foundation

/// Reading values: strings, numbers, booleans, null, and skipping what is not wanted.
extension JSONReader {

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
}
