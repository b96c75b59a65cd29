import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

@testable import TimbreTUI

/// What a vim user's fingers do: counts, half pages, a cursor that stays on its entry.
@Suite struct VimTests {
    func key(_ name: String) throws -> Terminal.InputEvent { .key(try #require(Key(name))) }

    func rows(_ count: Int) -> [EntryRow] {
        (0..<count).map {
            EntryRow(
                position: $0, title: $0 % 10 == 3 ? "River \($0)" : "Song \(String(format: "%03d", 999 - $0))", artist: "Artist \($0 % 7)",
                album: "Album", durationMS: 1000 * $0, addedAt: nil, uri: "spotify:track:\(String(repeating: "a", count: 20))\($0 % 10)")
        }
    }

    func opened(_ count: Int = 100) -> TUIState {
        var state = TUIState()
        state.setPlaylists([PlaylistRow(id: "mine000000000000000000", name: "Mine", trackCount: count, owner: "me", unavailable: false)])
        state.apply(.open)
        state.setTracks(rows(count), of: "mine000000000000000000")
        return state
    }

    @Test func aCountMovesThatManyRowsAndShowsWhilePending() throws {
        var state = opened()
        #expect(state.handle(.character("5")) == [])
        #expect(state.pendingCount == 5)
        #expect(Screen.statusText(state).contains("count 5"))
        _ = state.handle(.character("j"))
        #expect(state.trackCursor == 5 && state.pendingCount == nil)
        _ = state.handle(.character("1"))
        _ = state.handle(.character("2"))
        _ = state.handle(try key("Down"))
        #expect(state.trackCursor == 17, "12 Down")
        _ = state.handle(.character("3"))
        _ = state.handle(.character("k"))
        #expect(state.trackCursor == 14)
        _ = state.handle(.character("0"))
        #expect(state.pendingCount == nil, "0 alone is no count")
        _ = state.handle(.character("9"))
        _ = state.handle(try key("Esc"))
        _ = state.handle(.character("j"))
        #expect(state.trackCursor == 15, "Esc drops a pending count")
        _ = state.handle(.character("9"))
        _ = state.handle(.character("9"))
        _ = state.handle(.character("9"))
        _ = state.handle(.character("j"))
        #expect(state.trackCursor == 99, "clamped at the end")
    }

    @Test func aCountBeforeGGoesToThatRow() {
        var state = opened()
        for key in "42G" { _ = state.handle(.character(key)) }
        #expect(state.trackCursor == 41 && state.selectedTrack?.number == 42, "rows count from 1")
        for key in "7g" { _ = state.handle(.character(key)) }
        #expect(state.trackCursor == 6)
        _ = state.handle(.character("G"))
        #expect(state.trackCursor == 99)
    }

    @Test func aDigitBoundInKeysKeepsItsBinding() {
        var state = opened()
        _ = state.keymap.apply(["5": "move bottom"])
        _ = state.handle(.character("5"))
        #expect(state.trackCursor == 99 && state.pendingCount == nil)
    }

    @Test func aCountBeforeJMovesTheEntryThatManyPlaces() throws {
        var state = opened()
        state.apply(.cursor(.down, count: 2))
        _ = state.handle(.character("1"))
        _ = state.handle(.character("0"))
        #expect(state.handle(.character("J")) == [.edit(.entries(.test("mine000000000000000000"), .move(start: 2, length: 1, to: 12)))])
        #expect(state.trackCursor == 12, "the cursor follows the entry")
        _ = state.handle(.character("5"))
        _ = state.handle(.character("0"))
        #expect(
            state.handle(.character("K")) == [.edit(.entries(.test("mine000000000000000000"), .move(start: 12, length: 1, to: 0)))], "as far as the list goes")
        #expect(state.trackCursor == 0)
        _ = state.handle(.character("3"))
        #expect(state.handle(.character("K")) == [], "already at the top")
    }

    @Test func controlDAndControlUMoveHalfAPage() throws {
        var state = opened()
        state.pageSize = 20
        _ = state.handle(try key("C-d"))
        #expect(state.trackCursor == 10)
        _ = state.handle(try key("C-d"))
        _ = state.handle(try key("C-u"))
        #expect(state.trackCursor == 10)
        _ = state.handle(.character("3"))
        _ = state.handle(try key("C-d"))
        #expect(state.trackCursor == 40)
    }

    @Test func clearingTheFilterKeepsTheCursorOnTheSameEntry() throws {
        var state = opened()
        // `/river Enter n n Esc`
        _ = state.handle(.character("/"))
        for character in "river" { _ = state.handle(.character(character)) }
        _ = state.handle(try key("Enter"))
        _ = state.handle(.character("n"))
        _ = state.handle(.character("n"))
        #expect(state.selectedTrack?.title == "River 23")
        _ = state.handle(try key("Esc"))
        #expect(state.trackFilter == "" && state.visibleTracks.count == 100)
        #expect(state.selectedTrack?.title == "River 23", "the place is kept")
        #expect(state.trackCursor == 23)
    }

    @Test func clearingThePlaylistFilterKeepsTheSelectedPlaylist() throws {
        var state = sampleState()
        _ = state.handle(.character("/"))
        for character in "morn" { _ = state.handle(.character(character)) }
        _ = state.handle(try key("Enter"))
        _ = state.handle(try key("Esc"))
        #expect(state.selectedPlaylist?.id == "p1")
    }

    @Test func orderingTheViewKeepsTheCursorOnItsTrack() throws {
        var state = opened()
        state.apply(.cursor(.down, count: 42))
        let before = try #require(state.selectedTrack)
        for key in ["s", "s", "S"] {
            _ = state.handle(.character(Character(key)))
            #expect(state.selectedTrack == before, "after \(key): sort \(state.sortField) \(state.sortOrder)")
        }
        #expect(state.trackCursor != 42, "the entry moved in the view, the cursor with it")
    }
}

extension VimTests {
    @Test func aCountBeforeDOrYTakesThatManyEntriesFromTheCursor() throws {
        var state = opened(10)
        state.apply(.cursor(.down, count: 7))
        _ = state.handle(.character("5"))
        #expect(state.handle(.character("d")) == [])
        let question = try #require(state.question)
        #expect(question.text.hasPrefix("Remove 3 entries"), "as many as there are: \(question.text)")
        #expect(question.effects == [.edit(.entries(.test("mine000000000000000000"), .removePositions([7, 8, 9])))])
        _ = state.handle(.character("n"))
        state.apply(.clear)
        state.apply(.cursor(.top, count: 1))
        _ = state.handle(.character("2"))
        _ = state.handle(.character("y"))
        #expect(state.register == state.tracks.prefix(2).map(\.uri))
        #expect(state.marks.isEmpty)
    }
}
