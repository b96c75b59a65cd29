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
        // Most names need no escape at all: copy them whole (this runs per row in the cache and in
        // `timbre tracks --json`).
        guard needsEscaping(text) else {
            out += text
            out += "\""
            return
        }
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

    /// Whether any scalar of `text` is one `writeString` escapes: controls (C0, DEL, C1), quote,
    /// backslash, U+2028/U+2029. Checked on the UTF-8 bytes: C1 is C2 80–9F, U+2028/9 is E2 80 A8/A9.
    private static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return true }
                if byte == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) { return true }
                if byte == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 { return true }
                i += 1
            }
            return false
        }
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
        try? JSONReader.read(text) { reader in
            var result: [String] = []
            var more = try reader.enterArray()
            while more {
                result.append(try reader.readString())
                more = try reader.nextElement()
            }
            return result
        }
    }
}
