import Foundation
import TimbreCore

/// Terminal display width, by grapheme cluster (one `Character`), as terminals draw them: a
/// cluster with an emoji-presentation scalar (a ZWJ family 👨‍👩‍👧‍👦, a flag 🇸🇪) or an emoji made
/// emoji by VS16 (🎙️) takes two columns; any other cluster takes its first scalar's width (CJK
/// two, combining marks after it nothing); a cluster of only zero-width scalars none. Text from
/// the API is made safe first: control characters and escape sequences become visible placeholders.
public enum TextWidth {
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if first.properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if isWide(first) { return 2 }
        if scalars.allSatisfy({ isZeroWidth($0) }) { return 0 }
        return 1
    }

    public static func width(of text: String) -> Int {
        if TerminalText.isPrintableASCII(text) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// Sanitised, then cut to `columns` with an ellipsis in the last column when cut; never wider.
    public static func fit(_ text: String, columns: Int) -> String {
        guard columns > 0 else { return "" }
        let safe = TerminalText.sanitize(text)
        if width(of: safe) <= columns { return safe }
        var result = ""
        var used = 0
        for character in safe {
            let w = width(of: character)
            if used + w > columns - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `fit`, then padded with spaces to exactly `columns`.
    public static func pad(_ text: String, columns: Int) -> String {
        let fitted = fit(text, columns: columns)
        return fitted + String(repeating: " ", count: max(0, columns - width(of: fitted)))
    }

    /// `text` broken into lines at most `columns` wide: at spaces where it can, inside a word
    /// longer than a line where it must. Each line of `text` starts a new one.
    public static func wrap(_ text: String, columns: Int) -> [String] {
        let columns = max(1, columns)
        var out: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
                let w = width(of: word)
                if used > 0, used + 1 + w <= columns {
                    line += " " + word
                    used += 1 + w
                    continue
                }
                if used > 0 || !line.isEmpty { out.append(line) }
                line = ""
                used = 0
                for character in word {
                    let cw = width(of: character)
                    if used + cw > columns {
                        out.append(line)
                        line = ""
                        used = 0
                    }
                    line.append(character)
                    used += cw
                }
            }
            out.append(line)
        }
        return out
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return scalar.value == 0x200B || (0xFE00...0xFE0F).contains(scalar.value)
        }
    }

    /// East Asian Wide and Fullwidth ranges (Unicode 15), the ones that matter in practice; the
    /// emoji among them by their presentation (🎙 alone is text-style: one column).
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v >= 0x1F000 && v < 0x20000 { return scalar.properties.isEmojiPresentation }
        return (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }
}
