import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// The interface end to end: the real binary in tmux over a cache synced from the sandbox,
/// driven with send-keys and read with capture-pane.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUITmuxTests {
    @Test func browseFilterSortSearchResizeQuit() async throws {
        try await InterfaceSession.withSyncedSandbox(.medium) { sandbox, cli, tmux in
            _ = sandbox
            let marker = try await tmux.startTimbre(cli, columns: 120, rows: 32)
            let titleBefore = try await tmux.title()

            // First frame: Liked Songs first, then the sandbox's playlists, status line with the user.
            var screen = try await tmux.waitFor("Liked Songs")
            #expect(screen.contains("Morning Coffee"))
            screen = try await tmux.waitFor("synced")
            // Hostile names are shown inert and did not retitle the pane.
            #expect(screen.contains("^[]0;pwned^G"))
            #expect(try await tmux.title() == titleBefore)

            // Navigate and open a playlist.
            try await tmux.keys("j", "Enter")
            screen = try await tmux.waitFor("Morning Coffee · 150")

            // Incremental filter on the tracks pane, then clear.
            try await tmux.keys("/")
            try await tmux.type("signal")
            screen = try await tmux.waitFor("/signal")
            let filtered = screen.split(separator: "\n").filter { $0.contains("│") && $0.lowercased().contains("signal") }
            #expect(!filtered.isEmpty)
            try await tmux.keys("Enter", "Escape")
            screen = try await tmux.waitFor("Morning Coffee · 150 ·")

            // Sort by title, then reverse.
            try await tmux.keys("s")
            screen = try await tmux.waitFor("sort title ↑")
            try await tmux.keys("S")
            screen = try await tmux.waitFor("sort title ↓")

            // Search across every playlist, jump to a hit.
            try await tmux.keys("F")
            try await tmux.type("beyonce")
            try await tmux.keys("Enter")
            screen = try await tmux.waitFor("matches for “beyonce”")
            #expect(screen.contains("Beyoncé"))
            try await tmux.keys("Enter")
            screen = try await tmux.waitFor("sort ")

            // Help lists the live keymap.
            try await tmux.keys("?")
            screen = try await tmux.waitFor("Keys, as bound now")
            #expect(screen.contains("down one row"))
            try await tmux.keys("Escape")

            // Resize: too small gets a message, back to normal re-lays out.
            _ = try await tmux.run(["resize-window", "-x", "50", "-y", "8"])
            screen = try await tmux.waitFor("too small")
            _ = try await tmux.run(["resize-window", "-x", "100", "-y", "30"])
            screen = try await tmux.waitFor("Liked Songs")

            // The `:` prompt runs commands and reports mistakes.
            try await tmux.keys(":")
            try await tmux.type("fly away")
            try await tmux.keys("Enter")
            screen = try await tmux.waitFor("unknown command")

            #expect(try await tmux.title() == titleBefore, "a hostile name changed the terminal title")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }

    @Test func withoutATerminalItExitsTwoWithHelp() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let result = try await cli.run([])
        #expect(result.status == 2)
        #expect(result.stderr.contains("USAGE"))
        #expect(result.stdout.isEmpty)
    }

    @Test func dumbTerminalGetsAClearMessage() async throws {
        let cli = try TimbreCLI()
        let tmux = Tmux()
        try await withCleanup({
            await tmux.kill()
            cli.remove()
        }) {
            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let env =
                ["LANG=C.UTF-8", "TERM=dumb"]
                + ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME", "PATH"]
                .compactMap { key in cli.environment[key].map { "\(key)=\($0)" } }
            let command = "env " + env.map { "'\($0)'" }.joined(separator: " ") + " '\(bin)'; echo \"DUMB-EXIT=$?\"; sleep 30"
            _ = try await tmux.run(["new-session", "-d", "-x", "100", "-y", "30", command])
            let screen = try await tmux.waitFor("DUMB-EXIT=")
            #expect(screen.contains("DUMB-EXIT=2"))
            #expect(screen.contains("TERM is dumb"))
        }
    }

    @Test func noColorMeansNoColourCodes() async throws {
        let cli = try TimbreCLI()
        let tmux = Tmux()
        try await withCleanup({
            await tmux.kill()
            cli.remove()
        }) {
            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            func start(_ extra: [String]) async throws -> String {
                let env =
                    ["LANG=C.UTF-8", "TERM=tmux-256color"] + extra
                    + ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME", "PATH"]
                    .compactMap { key in cli.environment[key].map { "\(key)=\($0)" } }
                await tmux.kill()
                // `env -u`: the tmux server inherits this process's environment, and `swift test` may
                // itself run with NO_COLOR set.
                _ = try await tmux.run([
                    "new-session", "-d", "-x", "100", "-y", "30", "env -u NO_COLOR " + env.map { "'\($0)'" }.joined(separator: " ") + " '\(bin)'; sleep 30",
                ])
                _ = try await tmux.waitFor("not signed in")
                return try await tmux.run(["capture-pane", "-p", "-e"])
            }
            // Any SGR sequence that sets a foreground or background colour (30–37, 40–47, 38;5, 48;5).
            let colour = try NSRegularExpression(pattern: "\u{1B}\\[(?:[0-9]*;)*(?:3[0-8]|4[0-8])(?:;[0-9]*)*m")
            func hasColour(_ text: String) -> Bool {
                colour.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
            var coloured = try await start([])
            for _ in 0..<20 where !hasColour(coloured) {
                try await Task.sleep(for: .milliseconds(100))
                coloured = try await tmux.run(["capture-pane", "-p", "-e"])
            }
            #expect(hasColour(coloured), "colours are used by default: \(coloured.suffix(300).debugDescription)")
            let plain = try await start(["NO_COLOR=1"])
            #expect(!hasColour(plain), "NO_COLOR still produced colour codes")
        }
    }

    @Test func sigtermRestoresTheTerminal() async throws {
        let cli = try TimbreCLI()
        let tmux = Tmux()
        try await withCleanup({
            await tmux.kill()
            cli.remove()
        }) {
            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let env =
                ["LANG=C.UTF-8", "TERM=tmux-256color"]
                + ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME", "PATH"]
                .compactMap { key in cli.environment[key].map { "\(key)=\($0)" } }
            let command =
                "env " + env.map { "'\($0)'" }.joined(separator: " ")
                + " '\(bin)'; echo \"TERM-EXIT=$?\"; stty -a | tr ' ' '\\n' | grep -x echo | sed 's/^/ /'; sleep 30"
            _ = try await tmux.run(["new-session", "-d", "-x", "100", "-y", "30", command])
            _ = try await tmux.waitFor("Playlists (")
            let shell = try await tmux.run(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let pgrep = Process()
            pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
            pgrep.arguments = ["-TERM", "-P", shell, "timbre"]
            try pgrep.run()
            while !pgrep.hasEnded { try await Task.sleep(for: .milliseconds(20)) }
            _ = try await tmux.waitFor("TERM-EXIT=0")
            // `stty -a` lists "echo" (not "-echo") only if the terminal was restored.
            let screen = try await tmux.waitFor(" echo", timeout: .seconds(5))
            #expect(screen.contains("TERM-EXIT=0"))
        }
    }
}
