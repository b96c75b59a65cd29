import Foundation
import Testing
import TimbreTestSupport

/// `A`'s picker, the duplicate question and `x`'s OSC 52 link, end to end: the real binary in tmux
/// over the sandbox, each step checked against what the SANDBOX holds (and the requests it got).
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIPickerTmuxTests {
    /// Waits until the sandbox holds `expected` in the playlist (an edit runs in the background).
    func entries(_ s: InterfaceSession, of id: String, become expected: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var last: [String] = []
        while ContinuousClock.now < deadline {
            last = try await s.sandbox.entries(of: id)
            if last == expected { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the sandbox never held \(expected) in \(id): \(last)")
    }

    @Test func thePickerAddsTheCurrentEntryAndTheDuplicateQuestionSendsNothingOrOnlyTheNewOnes() async throws {
        try await InterfaceSession.withInterface { s in
            let coffee = try await s.id(of: "Morning Coffee")
            let empty = try await s.id(of: "Empty Playlist")
            let original = try await s.sandbox.entries(of: coffee)
            try #require(original.count >= 2 && original[0] != original[1])
            try await s.open("Morning Coffee")

            // A, narrow by a fuzzy query (a subsequence, any case), Enter: the entry at the end of the target.
            try await s.tmux.keys("A")
            _ = try await s.wait("Add “")
            try await s.tmux.type("EMPTYpl")
            var screen = try await s.wait("Add to: EMPTYpl")
            #expect(screen.contains("(1 of "), "only Empty Playlist matches:\n\(screen)")
            try await s.tmux.keys("Enter")
            _ = try await s.wait("Added 1 entry")
            try await entries(s, of: empty, become: [original[0]])

            // The first two: one is there already. n sends nothing at all.
            try await s.sandbox.clearRequests()
            try await s.tmux.keys("g", "Space", "Space", "A")
            _ = try await s.wait("Add 2 entries to")
            try await s.tmux.type("empty")
            try await s.tmux.keys("Enter")
            _ = try await s.wait("1 already in “Empty Playlist” — add anyway? (y/n/s=skip them)")
            try await s.tmux.keys("n")
            _ = try await s.wait("cancelled; nothing was sent")
            #expect(try await s.sandbox.writeRequests().isEmpty, "n wrote")
            #expect(try await s.sandbox.entries(of: empty) == [original[0]])

            // s adds only the new one; the marks are still there after n.
            try await s.tmux.keys("A")
            _ = try await s.wait("Add 2 entries to")
            try await s.tmux.type("empty")
            _ = try await s.wait("Add to: empty")
            try await s.tmux.keys("Enter")
            _ = try await s.wait("(y/n/s=skip them)")
            try await s.tmux.keys("s")
            try await entries(s, of: empty, become: [original[0], original[1]])
            screen = try await s.wait("Added 1 entry")
            #expect(try await s.sandbox.writeRequests().filter { $0.method == "POST" }.count == 1, "one add")
        }
    }

    /// `d` fills the register: d, y, then p in another playlist moves the entry (two edits; u
    /// undoes the paste only).
    @Test func dThenPMovesAnEntryToAnotherPlaylist() async throws {
        try await InterfaceSession.withInterface { s in
            let coffee = try await s.id(of: "Morning Coffee")
            let empty = try await s.id(of: "Empty Playlist")
            let original = try await s.sandbox.entries(of: coffee)
            try #require(!original.isEmpty && original.dropFirst().allSatisfy { $0 != original[0] })
            try await s.open("Morning Coffee")
            try await s.tmux.keys("g", "d")
            _ = try await s.wait("(y/n)")
            try await s.tmux.keys("y")
            _ = try await s.wait("Removed 1 entry")
            try await entries(s, of: coffee, become: Array(original.dropFirst()))
            try await s.open("Empty Playlist")
            try await s.tmux.keys("p")
            _ = try await s.wait("Added 1 entry")
            try await entries(s, of: empty, become: [original[0]])
            try await s.tmux.keys("u")
            _ = try await s.wait("Undid edit")
            try await entries(s, of: empty, become: [])
            #expect(try await s.sandbox.entries(of: coffee) == Array(original.dropFirst()), "u undid the paste only")
        }
    }

    /// `x` writes OSC 52; tmux with `set-clipboard on` takes it into its paste buffer, which
    /// `show-buffer` reads back: the link of the entry under the cursor, exactly.
    @Test func xCopiesTheEntrysLinkThroughOSC52() async throws {
        try await InterfaceSession.withInterface { s in
            _ = try await s.tmux.run(["set-option", "-g", "set-clipboard", "on"])
            let coffee = try await s.id(of: "Morning Coffee")
            let first = try #require(try await s.sandbox.entries(of: coffee).first)
            try #require(first.hasPrefix("spotify:track:"))
            try await s.open("Morning Coffee")
            try await s.tmux.keys("g", "x")
            _ = try await s.wait("copied the link of “")
            let link = "https://open.spotify.com/track/" + first.dropFirst("spotify:track:".count)
            let deadline = ContinuousClock.now + .seconds(60)
            var buffer = ""
            while ContinuousClock.now < deadline {
                buffer = (try? await s.tmux.run(["show-buffer"])) ?? ""
                if buffer == link { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(buffer == link)
            // The playlists pane: the playlist's link.
            try await s.tmux.keys("h", "x")
            _ = try await s.wait("copied the link of “Morning Coffee”")
        }
    }
}
