import Testing

@testable import TimbreCore

/// Text from the network made inert: for the terminal, and for spreadsheets.
@Suite struct TextSafetyTests {
    @Test func bidiControlsAreShownNotObeyed() {
        #expect(TerminalText.sanitize("evil\u{202E}gpj.exe") == "evil<U+202E>gpj.exe")
        for scalar in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C] {
            let text = "a" + String(Character(Unicode.Scalar(UInt32(scalar))!)) + "b"
            let hex = String(scalar, radix: 16, uppercase: true)
            #expect(TerminalText.sanitize(text) == "a<U+\(String(repeating: "0", count: 4 - hex.count))\(hex)>b")
        }
        // Right-to-left text itself is data, not a control.
        #expect(TerminalText.sanitize("שלום مرحبا") == "שלום مرحبا")
        #expect(TerminalText.preview("x\u{2067}y") == "x<U+2067>y")
    }

    @Test func csvCellsCarryNoControlCharacters() {
        #expect(CSVCell.encode("a\u{1B}]0;pwned\u{07}b") == "a]0;pwnedb")
        #expect(CSVCell.encode("\u{9B}31mred") == "31mred")
        #expect(CSVCell.encode("x\u{202E}y") == "xy")
        #expect(CSVCell.encode("two\nlines") == "\"two\nlines\"", "a newline is text in a quoted cell")
        #expect(CSVCell.encode("a,b \"c\"") == "\"a,b \"\"c\"\"\"")
        #expect(CSVCell.encode("plain") == "plain")
        #expect(CSVCell.encode("日本語 🎵") == "日本語 🎵")
    }

    @Test func formulasAreNeutralisedTheOWASPWay() {
        #expect(CSVCell.encode("=1+1") == "\"'=1+1\"")
        #expect(CSVCell.encode("+cmd|' /C calc'!A0") == "\"'+cmd|' /C calc'!A0\"")
        #expect(CSVCell.encode("-2+3") == "\"'-2+3\"")
        #expect(CSVCell.encode("@SUM(A1:A9)") == "\"'@SUM(A1:A9)\"")
        #expect(CSVCell.encode("\tleading tab") == "\"'\tleading tab\"")
        #expect(CSVCell.encode("\rleading cr") == "\"'\rleading cr\"")
        #expect(CSVCell.encode("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"")
        // Only the first character counts; a control dropped in front cannot hide a formula.
        #expect(CSVCell.encode("a=b") == "a=b")
        #expect(CSVCell.encode("\u{1B}=1+1") == "\"'=1+1\"")
    }

    /// Issue #31, item 8: the first Unicode scalar decides, not the first `Character`.
    @Test(arguments: ["=\u{301}1+1", "=\u{200D}1+1", "-\u{20DD}2", "\r\n=1+1", "+\u{301}x", "@\u{200D}a", "'=\u{301}x", "\t\u{301}x"])
    func aLeaderJoinedToAMarkIsStillAFormula(_ text: String) {
        let cell = CSVCell.encode(text)
        #expect(cell.unicodeScalars.starts(with: "\"'".unicodeScalars), "\(cell.debugDescription)")
        #expect(CSVCell.decode(String(cell.dropFirst().dropLast())) == text)
    }

    @Test func userinfoIsMaskedInAnyURLInAnyText() {
        #expect(Redactor.maskUserinfo("in 'http://TOKEN@proxy:3128' and socks5h://u:p@ss@h:1/x") == "in 'http://***@proxy:3128' and socks5h://***@h:1/x")
        #expect(Redactor.maskUserinfo("https://api.spotify.com/v1/me and a@b.example") == "https://api.spotify.com/v1/me and a@b.example")
        #expect(Redactor.redact("Unsupported proxy syntax in 'http://TOKENSECRET:pw@pro xy:3128'") == "Unsupported proxy syntax in 'http://***@pro xy:3128'")
    }

    @Test func decodeUndoesExactlyTheNeutralising() {
        for text in ["=1+1", "+x", "-2", "@a", "\tt", "\rr", "'=already quoted", "''=two", "'plain quote", "it's", "", "'", "normal"] {
            let cell = CSVCell.encode(text)
            // What a CSV reader hands back: the quotes of a quoted cell removed, inner quotes undoubled.
            let field = cell.hasPrefix("\"") ? String(cell.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"") : cell
            #expect(CSVCell.decode(field) == text, "round trip of \(text.debugDescription) via \(cell.debugDescription)")
        }
    }
}
