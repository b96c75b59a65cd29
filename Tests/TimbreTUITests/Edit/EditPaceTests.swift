import Testing
import TimbreCore

@testable import TimbreTUI

/// The time left of an edit's writes, from the pace of those confirmed so far, and how the status
/// line shows it with the key that stops it.
@Suite struct EditPaceTests {
    @Test func theTimeLeftFollowsThePaceOfTheWritesSoFar() {
        var pace = EditPace()
        let start = ContinuousClock.now
        // Before a pace is known: Spotify's pace (10 writes a second).
        #expect(pace.left(done: 1, total: 141, now: start) == "≈ 14 s left")
        // 10 writes in 5 s: half a second each, 130 to go.
        #expect(pace.left(done: 11, total: 141, now: start + .seconds(5)) == "≈ 65 s left")
        #expect(pace.left(done: 21, total: 141, now: start + .seconds(40)) == "≈ 4 min left")
        #expect(pace.left(done: 141, total: 141, now: start + .seconds(70)) == nil)
        pace.reset()
        #expect(pace.left(done: 1, total: 3, now: start + .seconds(80)) == "≈ 1 s left")
        #expect(EditPace.words(seconds: 0.2) == "≈ 1 s")
        #expect(EditPace.words(seconds: 600) == "≈ 10 min")
    }

    @Test func theStatusLineNamesTheKeyThatStopsTheEdit() {
        var state = TUIState()
        state.status.editProgress = "sorting by title: 12/140 writes, ≈ 18 s left"
        #expect(Screen.statusText(state).contains("sorting by title: 12/140 writes, ≈ 18 s left…"))
        state.status.editStopKey = "Esc"
        #expect(Screen.statusText(state).contains("sorting by title: 12/140 writes, ≈ 18 s left — Esc stops"))
    }
}
