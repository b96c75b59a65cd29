import Foundation
import Testing

@testable import TimbreTUI

@Suite struct GraphemeWidthTests {
    /// What terminals draw (tmux 3.3a agrees on all but VS16, which it draws one wide).
    static let table: [(String, Int)] = [
        ("abc", 3),
        ("👨‍👩‍👧‍👦", 2),  // ZWJ sequence: one cluster, two columns
        ("🇸🇪", 2),  // a flag: two regional indicators, one cluster
        ("🎙️", 2),  // VS16 makes a text-style emoji an emoji
        ("🎙", 1),  // without it, text style
        ("e\u{301}", 1),  // combining mark: nothing extra
        ("Cafe\u{301} Noir", 9),
        ("Z\u{336}a\u{337}l\u{338}g\u{335}o\u{334}", 5),
        ("☕", 2),
        ("坂本龍一", 8),
        ("한국어", 6),
        ("\u{200B}", 0),
        ("a👨‍👩‍👧‍👦b🇸🇪c", 7),
    ]

    @Test(arguments: table) func measuresClusters(text: String, columns: Int) {
        #expect(TextWidth.width(of: text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func fitNeverCutsACluster() {
        let fitted = TextWidth.fit("👨‍👩‍👧‍👦🇸🇪🇸🇪", columns: 4)
        #expect(fitted == "👨‍👩‍👧‍👦…")
        #expect(TextWidth.width(of: TextWidth.pad("🇸🇪 e\u{301}", columns: 6)) == 6)
    }

    @Test func theTerminalPlacesEveryClusterWhereItIsMeasured() {
        setlocale(LC_ALL, "C.UTF-8")
        let cells = Terminal.cells("ab👨‍👩‍👧‍👦c🎙️d🇸🇪e\u{301}")
        #expect(cells.reduce(0) { $0 + $1.1 } == TextWidth.width(of: "ab👨‍👩‍👧‍👦c🎙️d🇸🇪e\u{301}"))
        // The family is drawn as its first person (ncurses would take 8 columns for it).
        #expect(cells.contains { $0.0 == "👨" && $0.1 == 2 })
        #expect(cells.contains { $0.0 == "🎙️ " && $0.1 == 2 })
        #expect(cells.first?.0 == "ab")
    }
}
