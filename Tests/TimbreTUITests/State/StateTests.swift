import Testing
import TimbreCore

@testable import TimbreTUI

func sampleState() -> TUIState {
    var state = TUIState()
    state.setPlaylists([
        PlaylistRow(id: "liked", name: "Liked Songs", trackCount: 3, owner: "me", unavailable: false),
        PlaylistRow(id: "p1", name: "Morning Coffee", trackCount: 4, owner: "me", unavailable: false),
        PlaylistRow(id: "p2", name: "\u{1B}]0;pwned\u{07}Évening", trackCount: 0, owner: "x", unavailable: true),
    ])
    return state
}

let sampleTracks = [
    EntryRow(position: 0, title: "Zebra", artist: "Beyoncé", album: "B", durationMS: 200_000, addedAt: "2024-03-01T00:00:00Z"),
    EntryRow(position: 1, title: "apple", artist: "Adele", album: "C", durationMS: 100_000, addedAt: "2024-01-01T00:00:00Z"),
    EntryRow(position: 3, title: "Mango 日本", artist: "Zed", album: "A", durationMS: 300_000, addedAt: nil),
]

@Suite struct TUIStateTests {
    @Test func navigationOpenAndFocus() {
        var state = sampleState()
        #expect(state.selectedPlaylist?.id == "liked")
        state.apply(.cursor(.down, count: 1))
        #expect(state.selectedPlaylist?.id == "p1")
        state.apply(.cursor(.bottom, count: 1))
        #expect(state.selectedPlaylist?.id == "p2")
        state.apply(.cursor(.down, count: 5))
        #expect(state.selectedPlaylist?.id == "p2", "clamped at the end")
        state.apply(.cursor(.top, count: 1))
        #expect(state.apply(.open) == [.loadTracks("liked")])
        #expect(state.focus == .tracks)
        state.setTracks(sampleTracks, of: "liked")
        state.apply(.cursor(.down, count: 1))
        #expect(state.selectedTrack?.title == "apple")
        state.apply(.focus(.next))
        #expect(state.focus == .playlists)
    }

    @Test func incrementalFilterIsCaseAndDiacriticInsensitiveWithNextMatch() {
        var state = sampleState()
        state.apply(.open)
        state.setTracks(sampleTracks, of: "liked")
        state.apply(.filter(nil))
        #expect(state.mode.kind == .filterInput)
        for c in "BEYONCE" { _ = state.type(.character(c)) }
        #expect(state.visibleTracks.count == 1)
        #expect(state.selectedTrack?.title == "Zebra")
        _ = state.type(.enter)
        #expect(state.mode.kind == .normal && state.trackFilter == "BEYONCE")
        state.apply(.clear)
        #expect(state.visibleTracks.count == 3)
        state.apply(.filter("a"))
        let first = state.selectedTrack
        state.apply(.nextMatch)
        #expect(state.selectedTrack != first)
        state.apply(.previousMatch)
        #expect(state.selectedTrack == first)
    }

    @Test func sortingByEveryFieldBothWays() {
        var state = sampleState()
        state.apply(.open)
        state.setTracks(sampleTracks, of: "liked")
        func titles() -> [String] { state.visibleTracks.map { state.tracks[$0].title } }
        state.apply(.order(.set(.title, .asc)))
        #expect(titles() == ["apple", "Mango 日本", "Zebra"])
        state.apply(.order(.reverse))
        #expect(titles() == ["Zebra", "Mango 日本", "apple"])
        state.apply(.order(.set(.duration, .asc)))
        #expect(titles() == ["apple", "Zebra", "Mango 日本"])
        state.apply(.order(.set(.added, .desc)))
        #expect(titles().first == "Zebra")
        state.apply(.order(.set(.artist, nil)))
        #expect(titles() == ["apple", "Zebra", "Mango 日本"])
        state.apply(.order(.nextField))
        #expect(state.sortField == .album)
    }

    @Test func promptRunsCommandsAndReportsErrors() {
        var state = sampleState()
        state.apply(.prompt)
        for c in "move down" { _ = state.type(.character(c)) }
        #expect(state.type(.enter) == [], "a move needs nothing from the app")
        #expect(state.mode.kind == .normal && state.selectedPlaylist?.id == "p1")
        state.apply(.prompt)
        for c in "fly" { _ = state.type(.character(c)) }
        #expect(state.type(.enter) == [])
        #expect(state.message?.contains("unknown command") == true)
    }

    @Test func searchResultsJumpToPlaylistAndRow() {
        var state = sampleState()
        state.apply(.search(nil))
        for c in "mango" { _ = state.type(.character(c)) }
        #expect(state.type(.enter) == [.search("mango")])
        state.showSearchResults([.init(playlistID: "p1", playlistName: "Morning Coffee", track: sampleTracks[2])], query: "mango")
        #expect(state.apply(.open) == [.loadTracks("p1", focusing: 3)])
        state.setTracks(sampleTracks, of: "p1")
        state.focusTrack(at: 3)
        #expect(state.selectedPlaylist?.id == "p1")
        #expect(state.selectedTrack?.title == "Mango 日本")
        #expect(state.focus == .tracks)
    }

    /// `F`'s results say which field matched and show the album of an album match; a full page
    /// is "the first 1,000".
    @Test func searchResultsShowTheFieldMatchedAndTheCap() {
        var state = sampleState()
        let row = EntryRow(position: 0, title: "Intro", artist: "Band", album: "Mango Season", durationMS: 1000, addedAt: nil)
        #expect(CacheLibrarySource.field(row, SearchText.foldedBytes("mango")) == .album)
        #expect(CacheLibrarySource.field(row, SearchText.foldedBytes("BAND")) == .artist)
        #expect(CacheLibrarySource.field(row, SearchText.foldedBytes("intro")) == .title)
        state.showSearchResults([.init(playlistID: "p1", playlistName: "Morning Coffee", track: row, field: .album)], query: "mango", limit: 1000)
        #expect(state.message == "1 matches for “mango”")
        let screen = Screen.render(state, rows: 20, columns: 160).map { $0.map(\.text).joined() }.joined(separator: "\n")
        #expect(screen.contains("1. Intro — Band · Mango Season"), "\(screen)")
        #expect(screen.contains(" album "))
        let many = Array(repeating: TUIState.SearchHit(playlistID: "p1", playlistName: "Morning Coffee", track: row, field: .title), count: 1000)
        state.showSearchResults(many, query: "in", limit: 1000)
        #expect(state.message == "the first 1,000 matches for “in” — type more of it to narrow them")
        state.showSearchResults(Array(many.prefix(999)), query: "in", limit: 1000)
        #expect(state.message == "999 matches for “in”")
        #expect(TUIState.grouped(1_234_567) == "1,234,567" && TUIState.grouped(12) == "12")
    }
}

@Suite struct ScreenTests {
    /// The pane without focus shows its cursor (`›`); `v` says `-- VISUAL --` for as long as it lasts.
    @Test func theUnfocusedCursorIsMarkedAndVisualModeIsNamed() {
        var state = sampleState()
        state.apply(.open)
        state.setTracks(sampleTracks, of: "liked")
        #expect(state.focus == .tracks)
        let lines = Screen.render(state, rows: 20, columns: 120).map { $0.map(\.text).joined() }
        #expect(lines.contains { $0.hasPrefix("›") && $0.contains("Liked Songs") }, "\(lines)")
        #expect(!lines.contains { $0.contains("›   1 ") }, "the focused pane's cursor needs no marker")
        let current = Screen.render(state, rows: 20, columns: 120).flatMap { $0 }.filter { $0.style == .current }
        #expect(current.count == 1 && current.first?.text.contains("Liked Songs") == true)
        state.apply(.markRange)
        #expect(Screen.statusText(state).contains("-- VISUAL --"))
        state.apply(.cursor(.down, count: 1))
        state.apply(.cursor(.down, count: 1))
        #expect(Screen.statusText(state).contains("-- VISUAL --"), "still there after motions")
        state.apply(.markRange)
        #expect(!Screen.statusText(state).contains("VISUAL"))
        _ = state.clearMarks()
        state.apply(.focus(.playlists))
        let after = Screen.render(state, rows: 20, columns: 120).map { $0.map(\.text).joined() }
        #expect(after.contains { $0.contains("›   4 ") }, "the tracks pane's cursor, unfocused now: \(after)")
    }

    @Test func everyLineIsExactlyTheTerminalWidthAndHostileTextIsInert() {
        var state = sampleState()
        state.apply(.open)
        state.setTracks(
            sampleTracks + [EntryRow(position: 9, title: String(repeating: "長", count: 5000), artist: "\u{9B}2J", album: "\n", durationMS: 1, addedAt: nil)],
            of: "liked")
        for (rows, columns) in [(24, 80), (40, 120), (10, 60), (50, 200)] {
            let lines = Screen.render(state, rows: rows, columns: columns)
            #expect(lines.count == rows)
            for line in lines {
                let text = line.map(\.text).joined()
                #expect(TextWidth.width(of: text) == columns, "\(rows)x\(columns): \(text)")
                #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            }
        }
    }

    @Test func tooSmallTerminalGetsAMessage() {
        let lines = Screen.render(sampleState(), rows: 8, columns: 40)
        #expect(lines.map { $0.map(\.text).joined() }.contains { $0.contains("too small") })
    }

    @Test func helpListsTheLiveKeymap() {
        var state = sampleState()
        _ = state.keymap.apply(["Q": "quit"])
        state.apply(.help)
        state.pageSize = 36
        _ = state.handle(.character("G"))
        let text = Screen.render(state, rows: 40, columns: 120).map { $0.map(\.text).joined() }
        let quit = text.first { $0.hasPrefix("  q Q ") }
        #expect(quit?.trimmingCharacters(in: .whitespaces).hasSuffix(" quit") == true, "the bottom of the help, with Q bound to quit: \(text)")
    }
}
