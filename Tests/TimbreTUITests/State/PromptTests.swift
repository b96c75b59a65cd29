import Testing

@testable import TimbreTUI

/// The `:` and `/` prompts edit as readline does, remember what was typed, and complete with Tab.
@Suite struct PromptTests {
    func key(_ name: String) throws -> Terminal.InputEvent { .key(try #require(Key(name))) }

    func typing(_ text: String, into state: inout TUIState) {
        for character in text { _ = state.handle(.character(character)) }
    }

    func line(_ state: TUIState) -> (text: String, cursor: Int) {
        guard case .typing(_, let line) = state.mode else { return ("", -1) }
        return (line.text, line.cursor)
    }

    @Test func cursorKeysEditInTheMiddle() throws {
        var state = sampleState()
        _ = state.handle(.character(":"))
        typing("order title", into: &state)
        for _ in 0..<5 { _ = state.handle(try key("Left")) }
        #expect(line(state) == ("order title", 6))
        typing("x", into: &state)
        #expect(line(state) == ("order xtitle", 7))
        _ = state.handle(try key("Backspace"))
        _ = state.handle(try key("Delete"))
        #expect(line(state) == ("order itle", 6), "Delete removes the character under the cursor")
        _ = state.handle(try key("C-a"))
        #expect(line(state).cursor == 0)
        _ = state.handle(try key("Right"))
        #expect(line(state).cursor == 1)
        _ = state.handle(try key("C-e"))
        #expect(line(state).cursor == 10)
        _ = state.handle(try key("Home"))
        _ = state.handle(try key("End"))
        #expect(line(state).cursor == 10)
        // The screen shows the cursor where it is.
        _ = state.handle(try key("Left"))
        let screen = Screen.render(state, rows: 20, columns: 100).map { $0.map(\.text).joined() }
        #expect(screen.contains { $0.hasPrefix(":order itl▏e") })
    }

    @Test func controlWDeletesAWordAndControlUTheStart() throws {
        var state = sampleState()
        _ = state.handle(.character(":"))
        typing("folder add  Road trips", into: &state)
        _ = state.handle(try key("C-w"))
        #expect(line(state) == ("folder add  Road ", 17))
        _ = state.handle(try key("C-w"))
        #expect(line(state) == ("folder add  ", 12))
        _ = state.handle(try key("C-w"))
        #expect(line(state) == ("folder ", 7), "the spaces before the cursor, then the word")
        typing("create X", into: &state)
        for _ in 0..<2 { _ = state.handle(try key("Left")) }
        _ = state.handle(try key("C-u"))
        #expect(line(state) == (" X", 0), "C-u keeps what is after the cursor")
    }

    @Test func historyIsKeptPerPromptForTheSession() throws {
        var state = sampleState()
        for text in ["order title", "order artist desc"] {
            _ = state.handle(.character(":"))
            typing(text, into: &state)
            _ = state.handle(try key("Enter"))
        }
        _ = state.handle(.character("F"))
        typing("mango", into: &state)
        #expect(state.handle(try key("Enter")) == [.search("mango")])

        _ = state.handle(.character(":"))
        typing("qu", into: &state)
        _ = state.handle(try key("Up"))
        #expect(line(state) == ("order artist desc", 17))
        _ = state.handle(try key("Up"))
        #expect(line(state).text == "order title")
        _ = state.handle(try key("Up"))
        #expect(line(state).text == "order title", "the oldest stays")
        _ = state.handle(try key("Down"))
        _ = state.handle(try key("Down"))
        #expect(line(state).text == "qu", "past the newest: the line as it was")
        _ = state.handle(try key("Esc"))

        _ = state.handle(.character("F"))
        _ = state.handle(try key("Up"))
        #expect(line(state).text == "mango", "the search prompt has its own history")
    }

    @Test func tabCompletesVerbsAndCyclesThroughThem() throws {
        var state = sampleState()
        _ = state.handle(.character(":"))
        typing("s", into: &state)
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "save-order")
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "search")
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "seek")
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "shift")
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "show-playing")
        _ = state.handle(try key("Tab"))
        _ = state.handle(try key("Tab"))
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "sort!", "the verbs the key table knows, :sort! among them")
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "sync")
        // After the verbs that start with it, the ones that hold it (fuzzy, as the list shows).
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "messages", "the first fuzzy match after the prefix ones")
        _ = state.handle(try key("BackTab"))
        #expect(line(state).text == "sync")
    }

    @Test func tabCompletesViewOrderKeysFoldersAndPlaylistNames() throws {
        var state = sampleState()
        state.setPlaylists(
            state.playlists, folders: [FolderRow(name: "Road trips", expanded: true, playlists: []), FolderRow(name: "Rainy", expanded: true, playlists: [])])
        func completed(_ text: String, tabs: Int = 1) throws -> String {
            _ = state.handle(.character(":"))
            typing(text, into: &state)
            for _ in 0..<tabs { _ = state.handle(try key("Tab")) }
            defer { _ = state.type(.escape) }
            return line(state).text
        }
        #expect(try completed("sort ar") == "sort artist")
        #expect(try completed("order d") == "order duration")
        #expect(try completed("order title d") == "order title desc")
        #expect(try completed("folder ad") == "folder add")
        #expect(try completed("folder add Ro") == "folder add Road trips")
        #expect(try completed("folder add R", tabs: 2) == "folder add Rainy")
        #expect(try completed("rename Morn") == "rename Morning Coffee")
        #expect(try completed("edit --name songs") == "edit --name Liked Songs", "a name that contains the text, when none starts with it")
        #expect(try completed("zzz") == "zzz", "nothing to complete: the line stays")

        // `/` on the playlists pane completes playlist names.
        _ = state.handle(.character("/"))
        typing("mo", into: &state)
        _ = state.handle(try key("Tab"))
        #expect(line(state).text == "Morning Coffee")
        #expect(state.visiblePlaylists.map { state.playlists[$0].id } == ["p1"], "the filter follows the completed text")
    }

    @Test func slashWithAFilterSetStartsANewPatternAndKeepsTheOldOneInHistory() throws {
        var state = sampleState()
        state.apply(.cursor(.down, count: 1))
        state.apply(.open)
        state.setTracks(sampleTracks, of: "p1")
        _ = state.handle(.character("/"))
        typing("zed", into: &state)
        _ = state.handle(try key("Enter"))
        #expect(state.trackFilter == "zed")
        _ = state.handle(.character("/"))
        #expect(line(state).text == "", "a new pattern")
        typing("ap", into: &state)
        #expect(state.trackFilter == "ap")
        _ = state.handle(try key("Up"))
        #expect(line(state).text == "zed" && state.trackFilter == "zed", "the old one is one Up away")
        _ = state.handle(try key("Down"))
        #expect(state.trackFilter == "ap")
        _ = state.handle(try key("Esc"))
        #expect(state.mode.kind == .normal && state.trackFilter == "zed", "Esc cancels the new pattern: the one before it is back")
        _ = state.handle(try key("Esc"))
        #expect(state.trackFilter == "" && state.visibleTracks.count == sampleTracks.count, "Esc again clears it")
        _ = state.handle(.character("/"))
        typing("mango", into: &state)
        _ = state.handle(try key("Esc"))
        #expect(state.trackFilter == "", "with none before, Esc leaves none")
    }
}
