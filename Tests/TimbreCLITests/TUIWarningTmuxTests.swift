import Foundation
import Testing
import TimbreTestSupport

/// Nothing writes under the interface: a warning raised by the background sync (Spotify rotating
/// the refresh token given in TIMBRE_REFRESH_TOKEN) reaches the status line and `:messages`, and
/// the screen's first rows stay where they are.
extension TUITmuxTests {
    @Test func aWarningDuringTheBackgroundSyncLeavesTheScreenIntact() async throws {
        // `rotate`: the first refresh hands out a new refresh token, which timbre cannot store
        // for a token that came from the environment, so it warns.
        try await SandboxProcess.with(library: .medium, extraArguments: ["--refresh-rotation", "rotate"]) { sandbox in
            let token = try await sandbox.mintRefreshToken()
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": token])
            try cli.configure(for: sandbox)
            let tmux = Tmux()
            try await withCleanup({
                await tmux.kill()
                cli.remove()
            }) {
                let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
                var env = ["LANG=C.UTF-8", "TERM=tmux-256color"]
                for key in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TIMBRE_REFRESH_TOKEN", "HOME", "PATH"] {
                    if let value = cli.environment[key] { env.append("\(key)=\(value)") }
                }
                let command = "env " + env.map { "'\($0)'" }.joined(separator: " ") + " '\(bin)'; sleep 30"
                _ = try await tmux.run(["new-session", "-d", "-x", "120", "-y", "32", command])

                // The cache starts empty: the background sync fills it, warning on the way.
                var screen = try await tmux.waitFor("synced", timeout: .seconds(30))
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
            }
        }
    }
}
