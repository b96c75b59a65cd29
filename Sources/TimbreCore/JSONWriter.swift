/// A JSON value whose objects keep their key order, for output whose shape CONTRACT.md fixes
/// (Foundation's encoder does not promise an order).
public indirect enum JSONValue: Sendable, Equatable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Compact JSON. Strings are escaped per RFC 8259: quotes, backslashes and every control
    /// character, so hostile names cannot break the document or a terminal showing it.
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .string(let text): JSONValue.writeString(text, to: &out)
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        }
    }

    private static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension Paths {
    public var json: JSONValue {
        .object([("config", .string(config)), ("cache", .string(cache)), ("log", .string(log)), ("credentials", .string(credentials))])
    }
}

extension JSONValue {
    /// Reads a JSON array of strings (what `serialized()` writes for `.array([.string…])`) without
    /// the cost of a general decoder: the cache reads one per row. Nil for anything else.
    public static func parseStringArray(_ text: String) -> [String]? {
        var bytes = Array(text.utf8)[...]
        func skipSpace() { while let b = bytes.first, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { bytes.removeFirst() } }
        skipSpace()
        guard bytes.first == UInt8(ascii: "[") else { return nil }
        bytes.removeFirst()
        var result: [String] = []
        skipSpace()
        if bytes.first == UInt8(ascii: "]") { return result }
        while true {
            skipSpace()
            guard bytes.first == UInt8(ascii: "\"") else { return nil }
            bytes.removeFirst()
            var value: [UInt8] = []
            while true {
                guard let b = bytes.popFirst() else { return nil }
                if b == UInt8(ascii: "\"") { break }
                if b != UInt8(ascii: "\\") { value.append(b); continue }
                guard let escape = bytes.popFirst() else { return nil }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): value.append(escape)
                case UInt8(ascii: "n"): value.append(0x0A)
                case UInt8(ascii: "r"): value.append(0x0D)
                case UInt8(ascii: "t"): value.append(0x09)
                case UInt8(ascii: "b"): value.append(0x08)
                case UInt8(ascii: "f"): value.append(0x0C)
                case UInt8(ascii: "u"):
                    guard bytes.count >= 4, let code = UInt32(String(decoding: bytes.prefix(4), as: UTF8.self), radix: 16) else { return nil }
                    bytes.removeFirst(4)
                    var scalarValue = code
                    if (0xD800...0xDBFF).contains(code) {
                        // A surrogate pair: \uD83C\uDFB5
                        guard bytes.count >= 6, bytes.first == UInt8(ascii: "\\"),
                              let low = UInt32(String(decoding: bytes.dropFirst(2).prefix(4), as: UTF8.self), radix: 16),
                              (0xDC00...0xDFFF).contains(low) else { return nil }
                        bytes.removeFirst(6)
                        scalarValue = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { return nil }
                    value.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            }
            result.append(String(decoding: value, as: UTF8.self))
            skipSpace()
            guard let separator = bytes.popFirst() else { return nil }
            if separator == UInt8(ascii: "]") { return result }
            guard separator == UInt8(ascii: ",") else { return nil }
        }
    }
}
