/// One CSV cell from text someone else controls (a playlist's other users name its entries):
/// RFC 4180 quoting, no terminal control bytes, and no formula a spreadsheet would run.
///
/// - Control characters are dropped, except TAB, CR and LF, which are text in a quoted cell:
///   C0, DEL, C1 and the bidi controls (a cell must never carry ESC to a terminal or reorder a line).
/// - A cell that starts with `=`, `+`, `-`, `@`, TAB or CR (after any number of `'`) gets one more
///   leading `'` and is quoted (OWASP's CSV-injection rule), so `=HYPERLINK(…)` stays text.
///   `decode` removes exactly that one `'`, so export → import gives back the same text.
///
/// Only text cells go through it; numbers timbre writes itself (positions, durations) don't.
public enum CSVCell {
    static let formulaLeaders: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// The cell as it goes into the file, quoted when needed.
    public static func encode(_ text: String) -> String {
        var clean = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where keeps(scalar) { clean.append(scalar) }
        var cell = String(clean)
        var quote = false
        if needsNeutralising(cell) {
            cell = "'" + cell
            quote = true
        }
        if quote || cell.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return cell
    }

    /// A field as a CSV reader returned it (already unquoted): the neutralising `'` removed.
    public static func decode(_ field: String) -> String {
        guard field.hasPrefix("'"), needsNeutralising(String(field.dropFirst())) else { return field }
        return String(field.dropFirst())
    }

    /// `'`* then a formula leader — decided on the first Unicode scalar, not the first
    /// `Character`: `=` with a combining mark (U+0301), a joiner (U+200D) or an enclosing mark
    /// (U+20DD) after it, and a leading CRLF, are one `Character` that is not `=`, `-` or CR, yet
    /// a spreadsheet reads the `=` all the same.
    static func needsNeutralising(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first(where: { $0 != "'" }) else { return false }
        return formulaLeaders.contains(first)
    }

    private static func keeps(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return true
        case 0x00...0x1F, 0x7F...0x9F: return false
        default: return !TerminalText.isBidiControl(scalar)
        }
    }
}
