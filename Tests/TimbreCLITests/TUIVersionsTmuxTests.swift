import Foundation
import Testing
import TimbreTestSupport

/// `H` in the interface (#36): a playlist changed from outside shows its versions; Enter compares
/// one with the current list, `r` restores it after a question naming the counts — and the
/// sandbox holds that version again, every entry that stayed with its date added.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIVersionsTmuxTests {

    @Test func versionsCompareAndRestoreFromTheInterface() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let probe = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            let coffee = try await probe.id(of: "Morning Coffee")
            let before = try await sandbox.datedEntries(of: coffee)
            let original = try await sandbox.entries(of: coffee)
            // Changed by another app, seen by a sync: reversed, then the first entry removed.
            _ = try await sandbox.mutate(playlist: coffee, action: "reorder")
            _ = try await sandbox.mutate(playlist: coffee, action: "remove_first")
            #expect(try await cli.run(["sync", "--quiet"]).status == 0)

            let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await s.wait("synced")
            try await s.open("Morning Coffee")
            try await tmux.keys("H")
            _ = try await s.wait("Versions of “Morning Coffee” (2)")
            try await tmux.keys("j", "Enter")
            let compared = try await s.wait("restoring it puts 1 back")
            #expect(compared.contains("~ #"), "\(compared)")
            try await tmux.keys("r")
            _ = try await s.wait("Restore “Morning Coffee” to version 1: 1 entry back (dated today)")
            try await sandbox.clearRequests()
            try await tmux.keys("y")
            _ = try await s.wait("Restored")
            #expect(try await sandbox.entries(of: coffee) == original, "version 1 again, in its order")
            let after = try await sandbox.datedEntries(of: coffee)
            // Every entry that stayed keeps its date added at its own place: only the one put back
            // (the last, which the reversal brought first and the removal took) is new. Copies of
            // one track do not trade places (they are paired by their dates).
            #expect(after.count == before.count && after.last != before.last)
            for index in original.indices.dropLast() {
                #expect(after[index] == before[index], "position \(index + 1): \(before[index]) → \(after[index])")
            }
            #expect(try await sandbox.writeRequests().allSatisfy { $0.method != "PUT" || $0.path.hasSuffix("/items") })
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }
}
