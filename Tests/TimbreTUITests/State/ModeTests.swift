import Testing
import TimbreLibrary

@testable import TimbreTUI

/// Each mode carries the data only it uses: leaving it drops that data, so nothing of a closed
/// question, result list or typed line is left behind to be read in another mode.
@Suite struct ModeTests {
    func hits(_ count: Int) -> [CatalogHit] {
        (0..<count).map {
            CatalogHit(
                uri: "spotify:track:\(String(repeating: "c", count: 21))\($0)", title: "Song \($0)", artist: "Artist", album: "Album",
                durationMS: 200_000)
        }
    }

    func opened() -> TUIState {
        var state = TUIState()
        state.setPlaylists([PlaylistRow(id: "mine000000000000000000", name: "Mine", trackCount: 1, owner: "me", unavailable: false)])
        #expect(state.apply(.open) == [.loadTracks("mine000000000000000000")])
        state.setTracks(
            [EntryRow(position: 0, title: "Song", artist: "Artist", album: "Album", durationMS: 1000, addedAt: nil, uri: "spotify:track:x")],
            of: "mine000000000000000000")
        return state
    }

    @Test func escOverCatalogResultsDropsTheResultsAndTheirMarks() {
        var state = opened()
        state.showCatalogResults(hits(3), query: "song")
        state.apply(.mark)
        #expect(state.mode == .catalogResults(TUIState.CatalogResults(hits: hits(3), cursor: 1, marks: [0])))
        state.apply(.clear)
        #expect(state.mode == .normal)
        #expect(state.catalogResults.isEmpty && state.catalogMarks.isEmpty && state.catalogCursor == 0)
        // Shown again, nothing is marked.
        state.showCatalogResults(hits(2), query: "song")
        #expect(state.catalogMarks.isEmpty && state.catalogCursor == 0)
    }

    @Test func theQuestionLivesOnlyWhileItIsAsked() {
        var state = opened()
        state.apply(.focus(.tracks))
        #expect(state.apply(.remove) == [])
        guard case .confirm(let question) = state.mode else {
            Issue.record("d asks first, got \(state.mode)")
            return
        }
        #expect(question.text.hasPrefix("Remove 1 entry from “Mine”?"))
        #expect(state.handle(.character("n")) == [])
        #expect(state.mode == .normal && state.question == nil)
    }

    @Test func theTypedLineBelongsToItsPrompt() {
        var state = opened()
        state.apply(.prompt)
        for character in "qu" { state.type(.character(character)) }
        #expect(state.mode == .typing(.command, PromptLine("qu")) && state.input == "qu")
        state.type(.escape)
        #expect(state.mode == .normal && state.input == "")
        // `/` starts a new pattern; Enter keeps the filter and leaves the prompt.
        state.apply(.filter(nil))
        state.type(.character("s"))
        #expect(state.mode == .typing(.filter, PromptLine("s")))
        state.type(.enter)
        #expect(state.mode == .normal && state.trackFilter == "s")
    }
}
