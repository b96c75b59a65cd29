import Foundation
import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

@testable import TimbreTUI

/// `A`'s picker, the duplicate question, `x`'s link and `d`'s register: each key becomes exactly
/// the edit (or the bytes) it should, and nothing else.
@Suite struct PickerTests {
    static let rows = ManagingTests.rows

    /// "mine000000000000000000" open with six entries; the pane also has Liked Songs, "Other", "Théâtre Nights",
    /// "Road Trip" and someone else's "Theirs".
    func state() -> TUIState {
        var state = TUIState()
        state.setPlaylists([
            PlaylistRow(id: "liked", name: "Liked Songs", trackCount: 2, owner: "me", unavailable: false),
            PlaylistRow(id: "mine000000000000000000", name: "Mine", trackCount: 6, owner: "me", unavailable: false),
            PlaylistRow(id: "other00000000000000000", name: "Other", trackCount: 1, owner: "me", unavailable: false),
            PlaylistRow(id: "theatre000000000000000", name: "Théâtre Nights", trackCount: 0, owner: "me", unavailable: false),
            PlaylistRow(id: "road", name: "Road Trip", trackCount: 0, owner: "me", unavailable: false),
            PlaylistRow(id: "theirs0000000000000000", name: "Theirs", trackCount: 6, owner: "someone", unavailable: false, editable: false),
        ])
        state.apply(.cursor(.down, count: 1))
        _ = state.apply(.open)
        state.setTracks(Self.rows, of: "mine000000000000000000")
        return state
    }

    /// A named key (an unknown name is a resize, which no test expects to do anything).
    func key(_ name: String) -> Terminal.InputEvent { Key(name).map { .key($0) } ?? .resize }

    func type(_ text: String, into state: inout TUIState) {
        for character in text { #expect(state.handle(.character(character)) == []) }
    }

    @Test func fuzzyMatchingIsASubsequenceFoldedAndTightestFirst() {
        func names(_ query: String) -> [String] {
            var s = state()
            _ = s.apply(.addTo(query.isEmpty ? nil : query))
            return s.picker.map { picker in picker.matches.map { picker.candidates[$0].name } } ?? []
        }
        #expect(names("") == ["Mine", "Other", "Théâtre Nights", "Road Trip"], "editable playlists only, no Liked Songs, pane order")
        #expect(names("THEATRE") == ["Théâtre Nights"], "case and accents folded")
        #expect(names("rt") == ["Road Trip", "Théâtre Nights"], "a subsequence; the tightest span first")
        #expect(names("tn") == ["Théâtre Nights"])
        #expect(names("road trip") == ["Road Trip"], "spaces in the query are ignored")
        #expect(names("xyz").isEmpty)
        #expect(TUIState.Picker.fuzzy(Array("ace"), in: Array("abcde"))?.span == 5)
        #expect(TUIState.Picker.fuzzy(Array("ea"), in: Array("abcde")) == nil)
    }

    @Test func typingNarrowsArrowsChooseAndEnterAddsTheMarkedEntriesAsOneEdit() throws {
        var s = state()
        s.apply(.mark)
        s.apply(.cursor(.down, count: 1))
        s.apply(.mark)
        #expect(s.handle(.character("A")) == [] && s.mode.kind == .picker)
        #expect(Screen.rightHeader(s).contains("Add 2 entries to (4 of 4)"))
        type("t", into: &s)
        #expect(
            s.picker.map { p in p.matches.map { p.candidates[$0].id } } == ["theatre000000000000000", "other00000000000000000", "road"], "earliest match first")
        #expect(s.handle(key("C-n")) == [] && s.handle(key("Down")) == [] && s.handle(key("Down")) == [])
        #expect(s.picker?.chosen?.id == "road", "the cursor stops at the last match")
        #expect(s.handle(key("C-p")) == [] && s.handle(key("Up")) == [] && s.picker?.chosen?.id == "theatre000000000000000")
        let screen = Screen.render(s, rows: 20, columns: 120).map { $0.map(\.text).joined() }
        #expect(screen.contains { $0.contains("Add to: t▏") })
        #expect(
            s.handle(key("Enter")) == [
                .checkAdd(
                    .init(playlistID: "theatre000000000000000", playlistName: "Théâtre Nights", uris: [Self.rows[0].uri, Self.rows[2].uri], position: nil))
            ])
        #expect(s.mode.kind == .normal && s.marks == [0, 2], "marked until the add goes out")
        // The target holds none of them: exactly one add at its end (one edit, one undo step).
        #expect(
            s.resolveAdd(
                .init(playlistID: "theatre000000000000000", playlistName: "Théâtre Nights", uris: [Self.rows[0].uri, Self.rows[1].uri], position: nil),
                existing: [])
                == [.edit(.entries(.test("theatre000000000000000"), .add(uris: [Self.rows[0].uri, Self.rows[1].uri], position: nil)))])
        #expect(s.marks.isEmpty)
    }

    @Test func escClosesAndNoMatchAddsNothing() throws {
        var s = state()
        _ = s.apply(.addTo(nil))
        type("zzz", into: &s)
        #expect(s.handle(key("Enter")) == [] && s.mode.kind == .picker && s.message?.contains("no playlist matches") == true)
        #expect(s.handle(key("Backspace")) == [] && s.picker?.line.text == "zz")
        #expect(s.handle(key("Esc")) == [] && s.mode.kind == .normal)
        // From the playlists pane nothing is selected to add.
        s.apply(.focus(.playlists))
        #expect(s.apply(.addTo(nil)) == [] && s.mode.kind == .normal && s.message?.contains("A adds entries") == true)
    }

    @Test func fromSearchResultsAndCatalogResults() throws {
        var s = state()
        s.showSearchResults([TUIState.SearchHit(playlistID: "other00000000000000000", playlistName: "Other", track: Self.rows[4])], query: "song")
        #expect(s.handle(.character("A")) == [] && s.picker?.uris == [Self.rows[4].uri])
        type("mine", into: &s)
        #expect(
            s.handle(key("Enter")) == [.checkAdd(.init(playlistID: "mine000000000000000000", playlistName: "Mine", uris: [Self.rows[4].uri], position: nil))])
        let hits = (0..<2).map {
            CatalogHit(uri: "spotify:track:\(String(repeating: "c", count: 21))\($0)", title: "Hit \($0)", artist: "A", album: "B", durationMS: 1)
        }
        s.showCatalogResults(hits, query: "hit")
        s.apply(.cursor(.down, count: 1))
        #expect(s.handle(.character("A")) == [] && s.picker?.uris == [hits[1].uri] && s.picker?.what == "“Hit 1”")
    }

    @Test func theDuplicateQuestionYAddsAllSOnlyTheNewOnesNNothing() throws {
        let add = TUIState.PendingAdd(playlistID: "other00000000000000000", playlistName: "Other", uris: Self.rows[0...3].map(\.uri), position: nil)
        let existing: Set<String> = [Self.rows[1].uri, Self.rows[2].uri, Self.rows[3].uri]
        var s = state()
        #expect(s.resolveAdd(add, existing: existing) == [])
        #expect(s.question?.text == "3 already in “Other” — add anyway? (y/n/s=skip them)")
        var yes = s
        #expect(yes.handle(.character("y")) == [.edit(.entries(.test("other00000000000000000"), .add(uris: add.uris, position: nil)))])
        var skip = s
        #expect(skip.handle(.character("s")) == [.edit(.entries(.test("other00000000000000000"), .add(uris: [Self.rows[0].uri], position: nil)))])
        #expect(s.handle(.character("n")) == [] && s.message == "cancelled; nothing was sent")
        // Every one of them there already: s sends nothing, and says so.
        var all = state()
        _ = all.resolveAdd(add, existing: Set(add.uris))
        #expect(all.handle(.character("s")) == [] && all.message == "all of them are there already; nothing was sent")
    }

    @Test func pasteAndCatalogAddAskWhenTheOpenPlaylistHoldsTheTracks() {
        var s = state()
        s.apply(.yank)
        #expect(s.apply(.paste(.after)) == [] && s.question?.text == "1 already in “Mine” — add anyway? (y/n/s=skip them)")
        #expect(s.handle(.character("y")) == [.edit(.entries(.test("mine000000000000000000"), .add(uris: [Self.rows[0].uri], position: 1)))])
        s.showCatalogResults([CatalogHit(uri: Self.rows[2].uri, title: "Song 2", artist: "", album: "", durationMS: 1)], query: "x")
        #expect(s.apply(.open) == [] && s.question?.text.hasPrefix("1 already in “Mine”") == true)
        #expect(s.handle(.character("s")) == [] && s.message == "all of them are there already; nothing was sent")
    }

    @Test func dFillsTheRegisterOnYesSoPElsewhereMovesThem() {
        var s = state()
        s.apply(.mark)
        s.apply(.mark)
        _ = s.apply(.remove)
        var no = s
        _ = no.handle(.character("n"))
        #expect(no.register.isEmpty, "n leaves the register alone")
        #expect(s.handle(.character("y")) == [.edit(.entries(.test("mine000000000000000000"), .removePositions([0, 1])))])
        #expect(s.register == [Self.rows[0].uri, Self.rows[1].uri] && s.registerSource == "Mine")
        #expect(s.message?.contains("in the register too") == true)
    }

    @Test func xCopiesTheLinkOfTheEntryOrPlaylistAndRefusesALocalFile() {
        var s = state()
        #expect(s.handle(.character("x")) == [.copyToClipboard("https://open.spotify.com/track/\(String(repeating: "a", count: 21))0")])
        #expect(s.message?.hasPrefix("copied the link of “Song 0”") == true)
        s.apply(.focus(.playlists))
        #expect(s.apply(.copyLink) == [.copyToClipboard("https://open.spotify.com/playlist/mine000000000000000000")])
        var local = state()
        local.setTracks(
            [EntryRow(position: 0, title: "Demo", artist: "", album: "", durationMS: 1, addedAt: nil, uri: "spotify:local:a:b:Demo:1")],
            of: "mine000000000000000000")
        #expect(local.apply(.copyLink) == [] && local.message == "“Demo” is a local file: it has no link on open.spotify.com; nothing was copied")
        #expect(TUIState.link(for: "spotify:episode:abc123") == "https://open.spotify.com/episode/abc123")
        #expect(TUIState.link(for: "spotify:track:a/b") == nil)
    }

    @Test func osc52BytesForALink() {
        let bytes = Terminal.osc52("https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC")
        #expect(bytes == Array("\u{1B}]52;c;aHR0cHM6Ly9vcGVuLnNwb3RpZnkuY29tL3RyYWNrLzR1TFU2aE1Dak1JNzVNMUEydEtVUUM=\u{07}".utf8))
    }
}

/// `[keys]` sequences: `"g p" = "add-to"` waits after `g`; a key that continues none lets `g` do
/// what it does alone.
@Suite struct KeySequenceTests {
    @Test func aSequenceRunsItsCommandAndABrokenOneFallsBackToTheSingleKeys() throws {
        var s = PickerTests().state()
        #expect(s.keymap.apply(["g p": "add-to", "g x": "copy-link", "z z z": "quit", "g q": "nonsense", "g  ": "quit"]).count == 2)
        s.apply(.cursor(.down, count: 3))
        #expect(s.handle(.character("g")) == [] && s.trackCursor == 3 && s.pendingKeys == [Key("g")])
        #expect(s.handle(.character("p")) == [] && s.mode.kind == .picker && s.pendingKeys.isEmpty)
        let escape = PickerTests().key("Esc")
        _ = s.handle(escape)
        // g then j: g's own binding (top), then j.
        #expect(s.handle(.character("g")) == [] && s.handle(.character("j")) == [] && s.trackCursor == 1)
        #expect(s.handle(.character("z")) == [] && s.handle(.character("z")) == [] && s.handle(.character("z")) == [.quit])
        // Esc drops the keys waiting.
        _ = s.handle(.character("g"))
        #expect(s.handle(escape) == [] && s.pendingKeys.isEmpty && s.trackCursor == 1)
        #expect(KeyHelp.lines(for: s.keymap).contains { $0.contains("g p") && $0.contains(":add-to") })
    }
}
