import Testing
import TimbreCore
import TimbreLibrary

@testable import TimbreTUI

@Suite struct CommandTests {
    @Test(arguments: [
        "move down", "move pageup 3", "focus tracks", "open", "filter", "filter beyoncé", "next-match",
        "previous-match", "clear", "order title", "order added desc", "order next", "order reverse", "sort title", "sort year reverse", "sort! title",
        "sort! year reverse", "save-order", "mark", "mark-range",
        "remove", "yank", "paste after", "paste before", "shift down", "shift up", "undo", "redo", "add", "add massive attack", "add-to", "add-to road",
        "copy-link", "info", "toggle",
        "new Road Trip", "rename Old Name", "delete", "dedupe", "dedupe fuzzy", "shuffle", "export /tmp/a b.csv", "import list.csv", "folder create Mixes",
        "folder add Mixes", "folder remove", "folder rename Other", "folder delete", "search",
        "search hey jude", "sync", "help", "messages", "redraw", "prompt", "quit",
    ])
    func printsBackToWhatItParsed(_ text: String) throws {
        #expect(try Command.parse(text).description == text)
    }

    /// Every name parses: alone, or (when it needs an argument) with each argument its error
    /// lists. Each command is named by the name it was parsed from and prints back to its text.
    @Test(arguments: Command.Name.allCases)
    func everyNameRoundTrips(_ name: Command.Name) throws {
        var texts = [name.rawValue]
        do {
            _ = try Command.parse(name.rawValue)
        } catch let error {
            guard case .missingArgument(let command, let expected) = error else {
                Issue.record("'\(name.rawValue)' alone failed with \(error)")
                return
            }
            #expect(command == name.rawValue)
            #expect(!expected.isEmpty)
            texts = expected.map { "\(name.rawValue) \($0)" }
        }
        for text in texts {
            let command = try Command.parse(text)
            #expect(command.name == name, "\(text)")
            #expect(command.description.hasPrefix(name.rawValue), "\(text)")
            #expect(try Command.parse(command.description) == command, "\(text)")
        }
    }

    @Test func namesComeFromTheEnum() {
        #expect(Command.names == Command.Name.allCases.map(\.rawValue))
        #expect(Command.names.count == 48)
        #expect(Command.names.contains("next-match") && Command.names.contains("quit"))
        #expect(Set(Command.names).count == Command.names.count, "no name twice")
        let listed = CommandError.unknownCommand("jump").description
        for name in Command.Name.allCases { #expect(listed.contains(name.rawValue), "\(name.rawValue)") }
    }

    @Test func parsingIsForgivingAboutCaseAndSpaces() throws {
        #expect(try Command.parse("  MOVE   Down ") == .cursor(.down, count: 1))
        #expect(try Command.parse("q") == .quit)
    }

    @Test func errorsSayWhatIsExpected() {
        #expect(throws: CommandError.unknownCommand("jump")) { try Command.parse("jump 3") }
        #expect(throws: CommandError.self) { try Command.parse("move sideways") }
        #expect(throws: CommandError.self) { try Command.parse("move down 0") }
        #expect(throws: CommandError.self) { try Command.parse("quit now") }
        #expect(throws: CommandError.empty) { try Command.parse("   ") }
        do { _ = try Command.parse("sort colour") } catch {
            #expect(error.description.contains("title") && error.description.contains("added"))
        }
        do { _ = try Command.parse("\u{1B}]0;x\u{07}") } catch { #expect(!error.description.contains("\u{1B}")) }
    }

    @Test func defaultKeymapCoversTheDocumentedKeys() throws {
        let map = Keymap()
        let expectations: [(String, Command)] = [
            ("j", .cursor(.down, count: 1)), ("k", .cursor(.up, count: 1)), ("g", .cursor(.top, count: 1)), ("G", .cursor(.bottom, count: 1)),
            ("C-f", .cursor(.pagedown, count: 1)), ("C-b", .cursor(.pageup, count: 1)), ("Tab", .focus(.next)), ("h", .focus(.playlists)),
            ("l", .focus(.tracks)), ("Enter", .open), ("/", .filter(nil)), ("n", .nextMatch), ("N", .previousMatch),
            ("Esc", .clear), ("s", .order(.nextField)), ("F", .search(nil)), ("U", .sync), ("?", .help), ("C-l", .redraw), ("q", .quit),
        ]
        for (key, command) in expectations { #expect(map.command(for: try #require(Key(key))) == command, "\(key)") }
    }

    @Test func configTableRebindsUnbindsAndReportsMistakes() throws {
        var map = Keymap()
        let problems = map.apply(["x": "quit", "q": "none", "C-k": "move up 5", "bogus-key": "quit", "z": "teleport"])
        #expect(map.command(for: try #require(Key("x"))) == .quit)
        #expect(map.command(for: try #require(Key("q"))) == nil)
        #expect(map.command(for: try #require(Key("C-k"))) == .cursor(.up, count: 5))
        #expect(problems.count == 2)
        #expect(map.helpLines.contains { $0.command == "quit" && $0.keys == "x" })
    }
}

@Suite struct TextWidthTests {
    @Test func widths() {
        #expect(TextWidth.width(of: "abc") == 3)
        #expect(TextWidth.width(of: "日本語") == 6)
        #expect(TextWidth.width(of: "한국어") == 6)
        #expect(TextWidth.width(of: "🎵") == 2)
        #expect(TextWidth.width(of: "👩‍👩‍👧") == 2)
        #expect(TextWidth.width(of: "e\u{301}") == 1)
        #expect(TextWidth.width(of: "مرحبا") == 5)
    }

    @Test func fitNeverExceedsTheColumnsAndMarksTheCut() {
        #expect(TextWidth.fit("hello", columns: 10) == "hello")
        #expect(TextWidth.fit("hello world", columns: 6) == "hello…")
        #expect(TextWidth.fit("日本語テキスト", columns: 6) == "日本…")
        #expect(TextWidth.width(of: TextWidth.fit("日本語テキスト", columns: 5)) <= 5)
        #expect(TextWidth.width(of: TextWidth.pad("日本", columns: 7)) == 7)
        #expect(TextWidth.fit(String(repeating: "x", count: 10_000), columns: 20).count == 20)
    }

    @Test func controlSequencesNeverSurvive() {
        let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[31mred\u{9B}2J"
        let fitted = TextWidth.fit(hostile, columns: 80)
        #expect(!fitted.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func foldingIgnoresCaseAndDiacritics() {
        #expect(SearchText.fold("Beyoncé").contains(SearchText.fold("BEYONCE")))
        #expect(SearchText.fold("Ångström") == SearchText.fold("angstrom"))
    }
}

@Suite struct CLINamesInTheInterfaceTests {
    @Test func theCLIsNamesAndFlagsParseAsTheInterfacesVerbs() throws {
        #expect(try Command.parse("create Road Trip") == .new("Road Trip"))
        #expect(try Command.parse("edit --name Old Name") == .rename("Old Name"))
        #expect(try Command.parse("edit --name=Old Name") == .rename("Old Name"))
        #expect(try Command.parse("dedupe --fuzzy") == .dedupe(fuzzy: true))
        // The interface's own spellings stay.
        #expect(try Command.parse("new Road Trip") == .new("Road Trip"))
        #expect(try Command.parse("rename Old Name") == .rename("Old Name"))
        #expect(try Command.parse("dedupe fuzzy") == .dedupe(fuzzy: true))
    }

    @Test func editWithoutANameSaysWhatItNeeds() {
        #expect(throws: CommandError.missingArgument(command: "edit", expected: ["--name NAME"])) { try Command.parse("edit Old Name") }
        #expect(throws: CommandError.missingArgument(command: "edit", expected: ["NAME"])) { try Command.parse("edit --name") }
        #expect(throws: CommandError.badArgument(command: "dedupe", argument: "--loose", expected: ["--fuzzy"])) { try Command.parse("dedupe --loose") }
    }

    /// The interface's `:` verbs build the same `LibraryChange` as the CLI; Liked Songs, which is
    /// no playlist to Spotify, is refused before any effect.
    @Test func theInterfacesVerbsBuildTheLibrarysChange() throws {
        let text = "37i9dQZF1DXcBWIGoYBM5M"
        let id = try #require(SpotifyID(text))
        var state = TUIState()
        state.setPlaylists([
            PlaylistRow(id: "liked", name: "Liked Songs", trackCount: 0, owner: "me", unavailable: false),
            PlaylistRow(id: text, name: "Mine", trackCount: 0, owner: "me", unavailable: false),
        ])
        state.playlistCursor = 1
        #expect(state.apply(.rename("N")) == [.edit(.change(.details(id, PlaylistDetails(name: "N"))))])
        #expect(state.apply(.shuffle) == [.edit(.change(.entries(id, .shuffle)))])
        #expect(state.apply(.new("N")) == [.edit(.change(.create(PlaylistDetails(name: "N", isPublic: false))))], "private by default")
        #expect(state.apply(.export("f.csv")) == [.edit(.transfer(.export(.playlist(id), path: "f.csv")))])
        state.playlistCursor = 0
        #expect(state.apply(.export("f.csv")) == [.edit(.transfer(.export(.liked, path: "f.csv")))])
        #expect(state.apply(.rename("N")).isEmpty, "Liked Songs has no name to change")
    }

}
