import Testing
import TimbreCore
import TimbreLibrary

@testable import TimbreTUI

/// Keys and commands become a state change plus effects in `TUIState`; the app only runs effects.
@Suite struct DispatchTests {
    /// What the app can see of the state, to show a command changed none of it.
    struct Rows: Equatable {
        var playlists: [String], visiblePlaylists: [Int], playlistCursor: Int, openedPlaylistID: String?
        var tracks: [EntryRow], visibleTracks: [Int], trackCursor: Int, focus: TUIState.Pane, mode: TUIState.Mode

        init(_ state: TUIState) {
            playlists = state.playlists.map(\.id)
            visiblePlaylists = state.visiblePlaylists
            playlistCursor = state.playlistCursor
            openedPlaylistID = state.openedPlaylistID
            tracks = state.tracks
            visibleTracks = state.visibleTracks
            trackCursor = state.trackCursor
            focus = state.focus
            mode = state.mode
        }
    }

    func openedState() -> TUIState {
        var state = sampleState()
        state.apply(.cursor(.down, count: 1))
        state.apply(.open)
        state.setTracks(sampleTracks, of: "p1")
        state.apply(.cursor(.down, count: 1))
        return state
    }

    func typing(_ text: String, into state: inout TUIState) {
        for character in text { #expect(state.type(.character(character)) == []) }
    }

    @Test func syncAsksTheAppToStartItAndChangesNoRows() {
        var state = openedState()
        let before = Rows(state)
        #expect(state.apply(.sync) == [.startSync])
        #expect(Rows(state) == before)
        #expect(state.apply(.sync) == [.startSync], "again: the app, not the state, knows a sync is running")
    }

    @Test func openOnAPlaylistLoadsItsTracks() {
        var state = sampleState()
        state.apply(.cursor(.down, count: 1))
        #expect(state.apply(.open) == [.loadTracks("p1")])
        #expect(state.focus == .tracks)
        #expect(state.apply(.open) == [], "on the tracks pane Enter opens nothing")
    }

    @Test func openWithNoPlaylistsDoesNothing() {
        var state = TUIState()
        #expect(state.apply(.open) == [])
        #expect(state.focus == .playlists)
    }

    @Test func searchTypedAtThePromptOrAfterFRunsTheSearch() {
        var state = sampleState()
        state.apply(.prompt)
        typing("search hey jude", into: &state)
        #expect(state.type(.enter) == [.search("hey jude")])
        #expect(state.mode.kind == .normal && state.input == "")

        #expect(state.apply(.search(nil)) == [])
        #expect(state.mode.kind == .searchInput)
        typing("  mango ", into: &state)
        #expect(state.type(.enter) == [.search("mango")])
        #expect(state.apply(.search(nil)) == [])
        typing("   ", into: &state)
        #expect(state.type(.enter) == [], "blank: nothing to search")
        #expect(state.mode.kind == .normal)
    }

    @Test func quitAndRedrawAreEffects() {
        var state = openedState()
        state.setMessage("sorted by title ↑")
        let before = Rows(state)
        #expect(state.apply(.redraw) == [.redraw])
        #expect(state.message == "sorted by title ↑", "a redraw leaves the message line alone")
        #expect(state.apply(.quit) == [.quit])
        #expect(Rows(state) == before)
    }

    @Test func commandsTypedAtThePromptReturnTheirEffects() {
        var state = sampleState()
        for (text, effects) in [
            ("quit", [TUIState.Effect.quit]), ("q", [.quit]), ("sync", [.startSync]), ("redraw", [.redraw]),
            ("open", [.loadTracks("liked")]), ("move down", []),
        ] {
            state.apply(.prompt)
            typing(text, into: &state)
            #expect(state.type(.enter) == effects, "\(text)")
        }
        #expect(state.selectedPlaylist?.id == "liked", "move down ran on the tracks pane, which is empty")
    }

    @Test func onlyTheCommandsThatNeedTheAppHaveEffects() {
        let expected: [(Command, [TUIState.Effect])] = [
            (.cursor(.down, count: 1), []), (.focus(.next), []), (.filter(nil), []), (.filter("a"), []), (.nextMatch, []),
            (.previousMatch, []), (.clear, []), (.order(.nextField), []), (.search(nil), []), (.help, []), (.messages, []),
            (.prompt, []), (.open, [.loadTracks("liked")]), (.search("x"), [.search("x")]), (.sync, [.startSync]),
            (.redraw, [.redraw]), (.quit, [.quit]),
            // Managing, on the playlists pane with Liked Songs selected and nothing open: the
            // entry edits need an open playlist; Liked Songs has no order and no name to change.
            (.mark, []), (.markRange, []), (.remove, []), (.yank, []), (.paste(.after), []), (.shift(.down), []),
            (.undo, [.edit(.undo)]), (.redo, [.edit(.redo)]), (.add(nil), []), (.add("x"), [.catalogSearch("x")]),
            (.info, [.loadInfo("liked")]), (.toggle, []), (.new("N"), [.edit(.change(.create(PlaylistDetails(name: "N", isPublic: false))))]),
            (.rename("N"), []),
            (.delete, []), (.dedupe(fuzzy: false), []), (.shuffle, []), (.sort(.title, reverse: false, save: true), []),
            (.sort(.title, reverse: false, save: false), []), (.saveOrder, []), (.versions, []),
            (.export("f.csv"), [.edit(.transfer(.export(.liked, path: "f.csv")))]), (.importFile("f.csv"), []),
            (.folder(.create("F")), [.edit(.folder(.create("F")))]),
            (.addTo(nil), []), (.copyLink, [.copyToClipboard("https://open.spotify.com/collection/tracks")]),
            // Playback, with no player (signed out): said, nothing sent (PlaybackTests has the rest).
            (.play, []), (.playPause, []), (.nextTrack, []), (.previousTrack, []), (.seek(10), []), (.volume(5), []),
            (.devices, []), (.queue, []), (.showPlaying, []),
        ]
        for (command, effects) in expected {
            var state = sampleState()
            #expect(state.apply(command) == effects, "\(command)")
        }
        let covered = Set(expected.map { $0.0.name })
        #expect(covered == Set(Command.Name.allCases), "every command is in this table")
    }

    @Test func aSearchHitLoadsItsPlaylistAndAsksForItsRow() {
        var state = sampleState()
        state.showSearchResults([.init(playlistID: "p1", playlistName: "Morning Coffee", track: sampleTracks[2])], query: "mango")
        #expect(state.apply(.open) == [.loadTracks("p1", focusing: 3)])
        #expect(state.mode.kind == .normal && state.focus == .tracks && state.selectedPlaylist?.id == "p1")
        state.showSearchResults([], query: "nothing")
        #expect(state.apply(.open) == [], "no hit, no jump")
    }

    @Test func focusTrackShowsEveryRowAndSelectsThePosition() {
        var state = openedState()
        state.apply(.filter("zebra"))
        #expect(state.visibleTracks.count == 1)
        state.focusTrack(at: 3)
        #expect(state.trackFilter == "" && state.visibleTracks.count == 3)
        #expect(state.selectedTrack?.title == "Mango 日本")
    }

    // MARK: Terminal events

    func key(_ name: String) throws -> Terminal.InputEvent { .key(try #require(Key(name))) }

    @Test func keysGoThroughTheKeymap() throws {
        var state = sampleState()
        #expect(state.handle(.character("U")) == [.startSync])
        #expect(state.handle(try key("C-l")) == [.redraw])
        #expect(state.handle(.character("j")) == [])
        #expect(state.selectedPlaylist?.id == "p1")
        #expect(state.handle(try key("Enter")) == [.loadTracks("p1")])
        #expect(state.handle(.resize) == [])
        #expect(state.handle(.character("€")) == [], "an unbound key does nothing")
        #expect(state.handle(.character("q")) == [.quit])
        _ = state.keymap.apply(["x": "sync", "q": "none"])
        #expect(state.handle(.character("x")) == [.startSync])
        #expect(state.handle(.character("q")) == [])
    }

    @Test func escOrQClosesAnOverlayAndOtherKeysDoNothing() throws {
        var state = sampleState()
        #expect(state.handle(.character("?")) == [])
        #expect(state.mode.kind == .help)
        #expect(state.handle(.character("q")) == [], "q closes help, it does not quit")
        #expect(state.mode.kind == .normal)
        #expect(state.handle(.character("M")) == [])
        #expect(state.mode.kind == .messages)
        #expect(state.handle(.character("U")) == [], "no sync from under the messages")
        #expect(state.mode.kind == .messages)
        #expect(state.handle(try key("Esc")) == [])
        #expect(state.mode.kind == .normal)
    }

    @Test func inInputModesKeysType() throws {
        var state = sampleState()
        #expect(state.handle(.character(":")) == [])
        #expect(state.mode.kind == .promptInput)
        for character in "quiz" { #expect(state.handle(.character(character)) == []) }
        #expect(state.handle(try key("Backspace")) == [])
        #expect(state.handle(try key("Left")) == [])
        #expect(state.handle(try key("Delete")) == [], "Delete takes the character under the cursor")
        #expect(state.input == "qu")
        #expect(state.handle(try key("Tab")) == [], "Tab completes the verbs starting with “qu”: queue, then quit")
        #expect(state.input == "queue")
        _ = state.handle(try key("Tab"))
        #expect(state.input == "quit")
        for _ in 0..<2 { _ = state.handle(try key("Backspace")) }
        #expect(state.handle(.character("i")) == [])
        #expect(state.handle(.character("t")) == [])
        #expect(state.handle(try key("Enter")) == [.quit])
        #expect(state.handle(.character("F")) == [])
        #expect(state.mode.kind == .searchInput)
        for character in "U q" { _ = state.handle(.character(character)) }
        #expect(state.handle(try key("Esc")) == [])
        #expect(state.mode.kind == .normal && state.input == "")
    }
}
