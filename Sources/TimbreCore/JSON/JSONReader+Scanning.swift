import Foundation

/// The byte-level scanner under the reader: whitespace, separators, literals, strings, numbers
/// and unescaping.
extension JSONReader {

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

    mutating func literal(_ word: StaticString) throws {
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
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return hasZero(quote) || hasZero(backslash) || control
    }

    /// Moves past a number, checking its grammar; returns where it started and whether it is a
    /// plain integer (no fraction or exponent).
    mutating func scanNumber() throws -> (start: Int, integral: Bool) {
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

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    func hex(at position: Int) -> UInt32? {
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
                        let low = hex(at: i + 2), (0xDC00...0xDFFF).contains(low)
                    {
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

    func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
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
