import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Quitting never drops an edit without a word (#33): `q` or Ctrl-C with edits still to send says
/// how many; waiting lets them finish and then quits, a second `q` drops the ones not started. The
/// sandbox's list after the interface has gone is the proof.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIQuitTmuxTests {

    /// Starts the interface on a synced small library, opens "Morning Coffee" and slows every move
    /// of it, so the edits asked for are still queued when the test quits.
    func withSlowMoves(_ body: (InterfaceSession, _ coffee: String, _ marker: String) async throws -> Void) async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            let session = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await session.wait("synced")
            let coffee = try await session.id(of: "Morning Coffee")
            try await session.open("Morning Coffee")
            // Writes (moves and removals) of it answer slowly; reads do not.
            var moves = Fault(kind: .latency, pathContains: "/v1/playlists/\(coffee)/items", count: 1_000, ms: 2_000)
            moves.method = "PUT"
            var removals = moves
            removals.method = "DELETE"
            try await sandbox.addFaults([moves, removals])
            try await body(session, coffee, marker)
        }
    }

    /// `J J J q`: the interface says the edit is still to send, stays, sends it, then quits.
    /// The sandbox is stopped (SIGSTOP) while the test looks: the move cannot be answered, so the
    /// interface waits for as long as the test needs to read it — a loaded machine that starves
    /// the test for seconds can no longer let the edit finish, and the interface quit, before the
    /// screen was read (the race that had this test disabled).
    @Test func qWithEditsQueuedWaitsForThemAndThenQuits() async throws {
        try await withSlowMoves { s, coffee, marker in
            let before = try await s.sandbox.entries(of: coffee)
            let pid = s.sandbox.info.pid
            kill(pid, SIGSTOP)
            try await withCleanup({ kill(pid, SIGCONT) }) {
                try await s.tmux.keys("g", "J", "J", "J", "q")
                let screen = try await s.wait("still to send — q again to drop")
                #expect(!FileManager.default.fileExists(atPath: marker), "quit with edits queued:\n\(screen)")
            }
            #expect(try await Tmux.exitStatus(marker) == "0")
            var expected = before
            expected.insert(expected.removeFirst(), at: 3)
            #expect(try await s.sandbox.entries(of: coffee) == expected, "the moves were sent before quitting")
        }
    }

    /// Ctrl-C asks like `q`; `q` then quits at once: the edit under way (a removal) is finished,
    /// the move queued behind it is dropped — and nothing else changes.
    @Test func ctrlCAsksAndASecondQDropsTheQueuedOnes() async throws {
        try await withSlowMoves { s, coffee, marker in
            let before = try await s.sandbox.entries(of: coffee)
            try await s.tmux.keys("g", "d")
            _ = try await s.wait("(y/n)")
            // The sandbox stopped (SIGSTOP) from the answer on: the removal cannot be answered and
            // the moves stay queued behind it for as long as the test takes to look — on a loaded
            // machine the 2 s answers alone let all three finish before Ctrl-C arrived, and the
            // interface then rightly quit at once.
            let pid = s.sandbox.info.pid
            kill(pid, SIGSTOP)
            try await withCleanup({ kill(pid, SIGCONT) }) {
                try await s.tmux.keys("y", "J", "J")
                _ = try await s.wait("waiting)")
                try await s.tmux.keys("C-c")
                _ = try await s.wait("2 edits still to send — q again to drop them")
                try await s.tmux.keys("q")
            }
            #expect(try await Tmux.exitStatus(marker) == "0")
            #expect(try await s.sandbox.entries(of: coffee) == Array(before.dropFirst()), "exactly the removal under way was sent")
        }
    }

    /// The view is ahead of the server and `J J J J J` is one move by five: one write, one undo
    /// step; the sandbox holds the moved list, and `u` puts all five places back at once.
    @Test func consecutiveMovesAreOneMoveAndOneUndoStep() async throws {
        try await withSlowMoves { s, coffee, _ in
            let before = try await s.sandbox.entries(of: coffee)
            try await s.sandbox.clearRequests()
            // The move's answer takes seconds more: a window wide enough to see the view ahead
            // even on a loaded machine.
            var slower = Fault(kind: .latency, pathContains: "/v1/playlists/\(coffee)/items", count: 1, ms: 5_000)
            slower.method = "PUT"
            try await s.sandbox.addFaults([slower])
            try await s.tmux.keys("g", "J", "J", "J", "J", "J")
            // At once, before Spotify answers: the row is already sixth, marked pending (…).
            let ahead = try await s.wait("…   6 ")
            #expect(ahead.contains("…   6 "), "\(ahead)")
            _ = try await s.wait("Moved")
            var expected = before
            expected.insert(expected.removeFirst(), at: 5)
            #expect(try await s.sandbox.entries(of: coffee) == expected)
            let writes = try await s.sandbox.writeRequests()
            #expect(writes.count == 1, "one move by five: \(writes.map(\.path))")
            try await s.tmux.keys("u")
            _ = try await s.wait("Undid edit")
            #expect(try await s.sandbox.entries(of: coffee) == before, "one undo step puts all five places back")
            try await s.tmux.keys("q")
        }
    }
}
