import Foundation
import Testing
import TimbreTestSupport

/// Nothing writes under the interface: a warning raised by the background sync (Spotify rotating
/// the refresh token given in TIMBRE_REFRESH_TOKEN) reaches the status line and `:messages`, and
/// the screen's first rows stay where they are.
extension TUITmuxTests {
    @Test func aWarningDuringTheBackgroundSyncLeavesTheScreenIntact() async throws {
        try await InterfaceSession.withSyncedSandbox(.medium, refreshRotation: "rotate", sync: false) { _, cli, tmux in
            let marker = try await tmux.startTimbre(cli, columns: 120, rows: 32)
            // The cache starts empty: the background sync fills it, warning on the way.
            var screen = try await tmux.waitFor("synced")
            screen = try await tmux.waitFor("Liked Songs")
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(rows.first?.contains("Playlists (61)") == true, "header row in place:\n\(screen)")
            #expect(rows.count > 1 && rows[1].contains("Liked Songs"), "first playlist row in place:\n\(screen)")
            #expect(!screen.contains("timbre: warning"), "nothing printed under the interface:\n\(screen)")
            let status = rows.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            #expect(status.contains("⚠"), "the latest warning is in the status line: \(status)")

            try await tmux.keys("M")
            screen = try await tmux.waitFor("Messages (")
            #expect(screen.contains("new refresh token"), "\(screen)")
            try await tmux.keys("Escape")
            screen = try await tmux.waitFor("Tracks")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }
}
