/// A JSON value whose objects keep their key order, for output whose shape docs/CLI.md fixes
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
        var utf8 = text
        let quoted: [UInt8]? = utf8.withUTF8 { utf8 in
            // Most names need no escape at all: copy them whole (this runs per row in the cache
            // and in `timbre tracks --json`).
            guard needsEscaping(utf8) else { return nil }
            var quoted: [UInt8] = []
            appendQuoted(utf8, to: &quoted)
            return quoted
        }
        if let quoted {
            out += String(decoding: quoted, as: UTF8.self)
        } else {
            out += "\""
            out += text
            out += "\""
        }
    }

    /// `utf8` (valid UTF-8) as a JSON string, quotes included, appended to `out`: the one escaping
    /// rule of every JSON timbre writes — quote, backslash and controls (C0, DEL, C1), plus
    /// U+2028/U+2029, so hostile names can break neither the document nor a terminal showing it.
    public static func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        defer { out.append(UInt8(ascii: "\"")) }
        guard needsEscaping(utf8) else { return out.append(contentsOf: utf8) }
        func escape(_ value: UInt32) {
            let digits: StaticString = "0123456789abcdef"
            out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
            for shift in stride(from: 12, through: 0, by: -4) { out.append(digits.utf8Start[Int(value >> UInt32(shift) & 0xF)]) }
        }
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            i += 1
            switch byte {
            case 0x22: out.append(contentsOf: [UInt8(ascii: "\\"), 0x22])
            case 0x5C: out.append(contentsOf: [UInt8(ascii: "\\"), 0x5C])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20, 0x7F: escape(UInt32(byte))
            case 0xC2 where i < utf8.count && (0x80...0x9F).contains(utf8[i]):
                escape(UInt32(utf8[i]))
                i += 1
            case 0xE2 where i + 1 < utf8.count && utf8[i] == 0x80 && (utf8[i + 1] == 0xA8 || utf8[i + 1] == 0xA9):
                escape(utf8[i + 1] == 0xA8 ? 0x2028 : 0x2029)
                i += 2
            default: out.append(byte)
            }
        }
    }

    /// Whether any scalar of `utf8` is one `appendQuoted` escapes. Checked on the UTF-8 bytes: C1
    /// is C2 80–9F, U+2028/9 is E2 80 A8/A9.
    private static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
