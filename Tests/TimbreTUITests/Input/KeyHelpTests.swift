import Foundation
import Testing

@testable import TimbreTUI

/// One table says what every key does: the keymap, the help screen and README's key table come
/// from it, so they cannot drift apart.
@Suite struct KeyHelpTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../README.md").standardized
    static let start = "<!-- keys: generated from KeyHelp.table"
    static let end = "<!-- end of keys -->"

    /// README's table is the generated one. `TIMBRE_WRITE_README=1 scripts/test.sh --unit --filter KeyHelpTests`
    /// writes it after a change to the table.
    @Test func readmesKeyTableIsTheGeneratedOne() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let startRange = try #require(text.range(of: Self.start), "README.md has no “\(Self.start)” marker")
        let lineEnd = try #require(text[startRange.upperBound...].firstIndex(of: "\n"))
        let endRange = try #require(text.range(of: Self.end, range: lineEnd..<text.endIndex), "README.md has no “\(Self.end)” marker")
        let current = String(text[text.index(after: lineEnd)..<endRange.lowerBound])
        if ProcessInfo.processInfo.environment["TIMBRE_WRITE_README"] == "1", current != KeyHelp.markdown {
            let updated = text.replacingCharacters(in: text.index(after: lineEnd)..<endRange.lowerBound, with: KeyHelp.markdown)
            try updated.write(to: Self.readme, atomically: true, encoding: .utf8)
            return
        }
        #expect(
            current == KeyHelp.markdown,
            "README's key table differs from KeyHelp.table: run `TIMBRE_WRITE_README=1 scripts/test.sh --unit --filter KeyHelpTests`, or paste:\n\(KeyHelp.markdown)"
        )
    }

    @Test func everyCommandOfTheTableParsesAndEveryVerbIsListed() throws {
        for entry in KeyHelp.table where !entry.isVerb {
            #expect(try Command.parse(entry.command).description == entry.command)
        }
        let listed = Set(
            KeyHelp.table.compactMap { entry -> Command.Name? in
                let word = String(entry.command.drop { $0 == ":" }.prefix { $0 != " " })
                return Command.Name(rawValue: word) ?? Command.cliNames[word]
            })
        for name in Command.Name.allCases { #expect(listed.contains(name), "\(name.rawValue) is not in the help") }
        for group in KeyHelp.Group.allCases { #expect(KeyHelp.table.contains { $0.group == group }, "\(group) is empty") }
        #expect(Keymap().bindings.count == KeyHelp.table.reduce(0) { $0 + $1.keys.count }, "every default key of the table is bound, once")
    }

    @Test func theHelpIsGroupedAndShowsKeysAsBound() throws {
        var keymap = Keymap()
        #expect(keymap.apply(["x": "quit", "q": "none", "Z": "move down 10"]).isEmpty)
        let lines = KeyHelp.lines(for: keymap)
        #expect(lines.filter(KeyHelp.isTitle) == KeyHelp.Group.allCases.map(\.rawValue) + ["Bound in config.toml"])
        let quit = try #require(lines.first { $0.hasSuffix("  quit") })
        #expect(quit.hasPrefix("  x "), "\(quit)")
        let down = try #require(lines.first { $0.contains("down one row") })
        #expect(down.hasPrefix("  j Down "), "defaults in the table's order: \(down)")
        #expect(lines.last?.hasPrefix("  Z ") == true && lines.last?.hasSuffix(":move down 10") == true)
        #expect(lines.contains { $0.hasPrefix("  :dedupe [--fuzzy]") })
    }

    @Test func helpScrollsSearchesAndClosesOnlyWithEscOrQ() throws {
        var state = sampleState()
        state.pageSize = 9
        #expect(state.handle(.character("?")) == [])
        let total = state.overlayText.count
        for (key, top) in [("j", 1), ("j", 2), ("k", 1), ("C-d", 5), ("C-u", 1), ("G", total - 10), ("g", 0)] {
            _ = state.handle(key.count == 1 ? .character(Character(key)) : .key(try #require(Key(key))))
            #expect(state.currentOverlay?.top == top, "after \(key)")
        }
        for key in ["U", "d", "x", ":", "?", "M"] {
            #expect(state.handle(.character(Character(key))) == [], "\(key) does nothing in help")
            #expect(state.mode.kind == .help, "\(key) leaves help open")
        }
        #expect(state.currentOverlay?.top == 0)
        for character in "/redo" { _ = state.handle(.character(character)) }
        let typed = Screen.render(state, rows: 10, columns: 80).map { $0.map(\.text).joined() }
        #expect(typed[8].hasPrefix("/redo▏"))
        _ = state.handle(.key(try #require(Key("Enter"))))
        let top = try #require(state.currentOverlay?.top)
        #expect(state.overlayText[top].contains("redo the edit"), "the view starts at the first line holding it")
        let screen = Screen.render(state, rows: 10, columns: 80)
        #expect(screen[1].first?.style == .selected, "the match stands out")
        _ = state.handle(.key(try #require(Key("Esc"))))
        #expect(state.mode.kind == .normal)
        _ = state.handle(.character("?"))
        _ = state.handle(.character("q"))
        #expect(state.mode.kind == .normal, "q closes help and does not quit")
    }
}
