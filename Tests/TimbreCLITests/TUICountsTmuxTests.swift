import Foundation
import Testing
import TimbreTestSupport

/// Counts at 160×45 (#34's done-when): `10J` moves the entry ten places in ONE write, and the
/// row numbers the interface shows are the CLI's positions (`tracks` counts from 1 too).
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUICountsTmuxTests {

    @Test func tenJIsOneWriteOfTenPlacesAndTheNumbersAreTheCLIs() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let marker = try await tmux.startTimbre(cli, columns: 160, rows: 45)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await s.wait("synced")
            let coffee = try await s.id(of: "Morning Coffee")
            let before = try await sandbox.entries(of: coffee)
            try await s.open("Morning Coffee")
            try await sandbox.clearRequests()
            try await tmux.keys("g", "1", "0", "J")
            _ = try await s.wait("Moved")
            let writes = try await sandbox.writeRequests()
            #expect(writes.count == 1 && writes.first?.method == "PUT", "\(writes.map(\.path))")
            var expected = before
            expected.insert(expected.removeFirst(), at: 10)
            #expect(try await sandbox.entries(of: coffee) == expected)
            // Row 11 on screen is what `timbre tracks` calls position 11: the moved entry.
            let screen = try await s.wait("   11 ")
            let tracks = try await cli.run(["tracks", coffee, "--json"])
            let rows = (try? JSONSerialization.jsonObject(with: Data(tracks.stdout.utf8))) as? [[String: Any]] ?? []
            let eleventh = try #require(rows.first { $0["position"] as? Int == 11 })
            let title = try #require(eleventh["name"] as? String ?? eleventh["title"] as? String)
            let line = screen.split(separator: "\n").first { $0.contains("   11 ") } ?? ""
            #expect(line.contains(String(title.prefix(12))), "row 11: \(line) — CLI position 11: \(title)")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }
}
