/// Text from the network (API names, error messages) is data, never terminal control: these
/// helpers make control characters visible before anything reaches a terminal or a log line.
public enum TerminalText {
    /// Replaces C0 and C1 control characters (ESC, BEL, CSI, newlines, tabs …) and bidi controls
    /// with visible placeholders: `^[` style caret notation for C0 and DEL, `<U+009B>` for C1,
    /// `<U+202E>` for bidi.
    public static func sanitize(_ text: String) -> String {
        if isPrintableASCII(text) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F:
                out.append("^")
                out.append(Unicode.Scalar(UInt8(scalar.value + 0x40)))
            case 0x7F:
                out.append(contentsOf: "^?".unicodeScalars)
            case 0x80...0x9F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out.append(contentsOf: "<U+00\(hex)>".unicodeScalars)
            case _ where isBidiControl(scalar):
                // Direction overrides and isolates reorder what follows them (a name ending in
                // U+202E reverses the rest of the line): shown, never obeyed.
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out.append(contentsOf: "<U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)>".unicodeScalars)
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The Unicode bidirectional formatting characters: embeddings and overrides (U+202A–U+202E),
    /// isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C).
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }

    /// Only printable ASCII (0x20–0x7E): safe as it is, one column per byte. Most names are.
    public static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Sanitised and cut to `limit` characters, with an ellipsis when cut.
    public static func preview(_ text: String, limit: Int = 200) -> String {
        let clean = sanitize(text)
        guard clean.count > limit else { return clean }
        return String(clean.prefix(limit)) + "…"
    }
}
