import Foundation
import Testing
import TimbreTestSupport

/// `:sort` orders the view only (#33): no write reaches the sandbox, and the order is remembered
/// per playlist across restarts; `:save-order` is what saves it.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIViewOrderTmuxTests {

    @Test func sortIsTheViewOnlyAndIsRememberedAcrossRestarts() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let first = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await s.wait("synced")
            let coffee = try await s.id(of: "Morning Coffee")
            let before = try await sandbox.entries(of: coffee)
            let beforeDated = try await sandbox.datedEntries(of: coffee)
            try await sandbox.clearRequests()
            try await s.open("Morning Coffee")
            try await s.command("sort title reverse")
            _ = try await s.wait("sorted the view by title ↓")
            _ = try await s.wait("sort title ↓")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await sandbox.writeRequests().isEmpty, ":sort sent a write")
            #expect(try await sandbox.entries(of: coffee) == before)
            // Another playlist opens in its own order.
            try await s.open("Empty Playlist")
            _ = try await s.wait("sort position ↑")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(first) == "0")
            await tmux.kill()

            // A new run: Morning Coffee opens in the order it was left.
            let again = Tmux()
            try await withCleanup({ await again.kill() }) {
                try FileManager.default.removeItem(atPath: first)
                let second = try await again.startTimbre(cli, columns: 130, rows: 36)
                let t = InterfaceSession(sandbox: sandbox, cli: cli, tmux: again)
                _ = try await t.wait("synced")
                try await t.open("Morning Coffee")
                _ = try await t.wait("Morning Coffee · \(before.count) · sort title ↓")
                // :save-order saves the view's order on Spotify (asks first when it is long).
                try await t.command("save-order")
                // Long: it asks first (y moves, r rewrites, n sends nothing).
                _ = try await t.wait("dates kept — or r to rewrite")
                try await again.keys("y")
                _ = try await t.wait("added dates kept")
                let after = try await sandbox.datedEntries(of: coffee)
                #expect(after.sorted() == beforeDated.sorted() && after != beforeDated, "a new order, every (entry, date added) kept")
                #expect(try await sandbox.writeRequests().allSatisfy { $0.method == "PUT" }, "moves only: dates kept")
                try await again.keys("q")
                #expect(try await Tmux.exitStatus(second) == "0")
            }
        }
    }
}
