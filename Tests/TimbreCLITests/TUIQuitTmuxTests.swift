import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Quitting never drops an edit without a word (#33): `q` or Ctrl-C with edits still to send says
/// how many; waiting lets them finish and then quits, a second `q` drops the ones not started. The
/// sandbox's list after the interface has gone is the proof.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIQuitTmuxTests {
    typealias Session = TUIEditTmuxTests.Session

    /// Starts the interface on a synced small library, opens "Morning Coffee" and slows every move
    /// of it, so the edits asked for are still queued when the test quits.
    func withSlowMoves(_ body: (Session, _ coffee: String, _ marker: String) async throws -> Void) async throws {
        try await TUITmuxTests.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let marker = try tmux.startTimbre(cli, columns: 130, rows: 36)
            let session = Session(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await session.wait("synced")
            let coffee = try await session.id(of: "Morning Coffee")
            try await session.open("Morning Coffee")
            var slow = Fault(kind: .latency, pathContains: "/v1/playlists/\(coffee)/items", count: 1_000, ms: 700)
            slow.method = "PUT"
            try await sandbox.addFaults([slow])
            try await body(session, coffee, marker)
        }
    }

    /// The exit status the interface wrote when it ended (nil while it runs).
    func exitStatus(_ marker: String, within seconds: Int = 30) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: marker, encoding: .utf8) { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// `J J J q`: the interface says the edits are still to send, stays, sends all three, then quits.
    @Test func qWithEditsQueuedWaitsForThemAndThenQuits() async throws {
        try await withSlowMoves { s, coffee, marker in
            let before = try await s.sandbox.entries(of: coffee)
            try s.tmux.keys("g", "J", "J", "J")
            _ = try await s.wait("waiting)")
            try s.tmux.keys("q")
            let screen = try await s.wait("still to send — q again to drop")
            #expect(!FileManager.default.fileExists(atPath: marker), "quit with edits queued:\n\(screen)")
            #expect(try await exitStatus(marker) == "0")
            var expected = before
            expected.insert(expected.removeFirst(), at: 3)
            #expect(try await s.sandbox.entries(of: coffee) == expected, "all three moves were sent before quitting")
        }
    }

    /// Ctrl-C asks like `q`; `q` then quits at once: the move under way is finished, the queued
    /// ones are dropped — and nothing else.
    @Test func ctrlCAsksAndASecondQDropsTheQueuedOnes() async throws {
        try await withSlowMoves { s, coffee, marker in
            let before = try await s.sandbox.entries(of: coffee)
            try s.tmux.keys("g", "J", "J", "J")
            _ = try await s.wait("waiting)")
            try s.tmux.keys("C-c")
            _ = try await s.wait("still to send — q again to drop")
            try s.tmux.keys("q")
            #expect(try await exitStatus(marker) == "0")
            let after = try await s.sandbox.entries(of: coffee)
            var one = before
            one.insert(one.removeFirst(), at: 1)
            #expect(after == one, "exactly the move under way was sent")
        }
    }
}
