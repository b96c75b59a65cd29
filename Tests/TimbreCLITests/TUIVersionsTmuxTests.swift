import Foundation
import Testing
import TimbreTestSupport

/// `H` in the interface (#36): a playlist changed from outside shows its versions; Enter compares
/// one with the current list, `r` restores it after a question naming the counts — and the
/// sandbox holds that version again, every entry that stayed with its date added.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIVersionsTmuxTests {
    typealias Session = TUIEditTmuxTests.Session

    @Test func versionsCompareAndRestoreFromTheInterface() async throws {
        try await TUITmuxTests.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let probe = Session(sandbox: sandbox, cli: cli, tmux: tmux)
            let coffee = try await probe.id(of: "Morning Coffee")
            let before = try await sandbox.playlistInfo(coffee).items.map { "\($0.uri ?? "") @ \($0.addedAt ?? "null")" }
            let original = try await sandbox.entries(of: coffee)
            // Changed by another app, seen by a sync: reversed, then the first entry removed.
            _ = try await sandbox.mutate(playlist: coffee, action: "reorder")
            _ = try await sandbox.mutate(playlist: coffee, action: "remove_first")
            #expect(try await cli.run(["sync", "--quiet"]).status == 0)

            let marker = try tmux.startTimbre(cli, columns: 130, rows: 36)
            let s = Session(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await s.wait("synced")
            try await s.open("Morning Coffee")
            try tmux.keys("H")
            _ = try await s.wait("Versions of “Morning Coffee” (2)")
            try tmux.keys("j", "Enter")
            let compared = try await s.wait("restoring it puts 1 back")
            #expect(compared.contains("~ #"), "\(compared)")
            try tmux.keys("r")
            _ = try await s.wait("Restore “Morning Coffee” to version 1: 1 entry back (dated today)")
            try await sandbox.clearRequests()
            try tmux.keys("y")
            _ = try await s.wait("Restored")
            #expect(try await sandbox.entries(of: coffee) == original, "version 1 again, in its order")
            let after = try await sandbox.playlistInfo(coffee).items.map { "\($0.uri ?? "") @ \($0.addedAt ?? "null")" }
            // Every entry that stayed keeps its date added: only the one put back (the last, which
            // the reversal brought first and the removal took) is new. Copies of one track hold
            // their own dates, whichever of the two places each ends at.
            #expect(after.count == before.count && after.last != before.last)
            #expect(Array(after.dropLast()).sorted() == Array(before.dropLast()).sorted(), "the same entries, each with its own date")
            let uris = original.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            for index in original.indices.dropLast() where uris[original[index]] == 1 {
                #expect(after[index] == before[index], "a kept entry's date changed at \(index + 1)")
            }
            #expect(try await sandbox.writeRequests().allSatisfy { $0.method != "PUT" || $0.path.hasSuffix("/items") })
            try tmux.keys("q")
            #expect(try await TUIViewOrderTmuxTests.exitStatus(marker) == "0")
        }
    }
}
