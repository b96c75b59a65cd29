import Foundation
import Testing
import TimbreTestSupport

/// What a vim or ncspot user tries first, at 80×24 in the real binary: the help scrolls, searches
/// and closes only with Esc or q; an error cut in the message line is read in full under `M` (and
/// is in the log); `5j` moves five rows; the `:` prompt edits with C-w, completes with Tab and
/// remembers with Up.
extension TUITmuxTests {
    @Test func helpMessagesCountsAndThePromptAt80x24() async throws {
        try await InterfaceSession.withSyncedSandbox(.medium) { _, cli, tmux in
            _ = try await tmux.startTimbre(cli, columns: 80, rows: 24)
            _ = try await tmux.waitFor("Liked Songs")
            _ = try await tmux.waitFor("synced")

            // Help: grouped, scrolls to the end, searched with /, stays open on other keys.
            try await tmux.keys("?")
            var screen = try await tmux.waitFor("Keys, as bound now")
            #expect(screen.contains("Move") && screen.contains("down one row"), "\(screen)")
            #expect(!screen.contains("  quit"), "the end is below the first page:\n\(screen)")
            try await tmux.keys("G")
            screen = try await tmux.waitFor("redraw the screen")
            #expect(!screen.contains("down one row"), "scrolled:\n\(screen)")
            try await tmux.keys("g", "x", "U")
            screen = try await tmux.waitFor("down one row")
            #expect(screen.contains("Keys, as bound now"), "x and U leave the help open:\n\(screen)")
            try await tmux.keys("/")
            try await tmux.type("statistics")
            try await tmux.keys("Enter")
            screen = try await tmux.waitFor("statistics of the playlist")
            try await tmux.keys("q")
            screen = try await tmux.waitFor("Playlists (61)")
            #expect(!screen.contains("Keys, as bound now"), "q closed the help:\n\(screen)")

            // A long error: its first line in the message line, the whole of it under M.
            try await tmux.keys(":")
            try await tmux.type("fly away")
            try await tmux.keys("Enter")
            screen = try await tmux.waitFor("(M for more)")
            #expect(screen.contains("unknown command 'fly'"), "\(screen)")
            try await tmux.keys("M")
            screen = try await tmux.waitFor("Messages (")
            #expect(screen.contains("unknown command 'fly'") && screen.contains("show-playing)"), "the whole list of commands, wrapped:\n\(screen)")
            let time = try #require(screen.split(separator: "\n").first { $0.contains("unknown command") })
            #expect(time.range(of: #"^  \d\d:\d\d:\d\d  "#, options: .regularExpression) != nil, "with its time: \(time)")
            try await tmux.keys("Escape")
            let log = cli.environment["XDG_STATE_HOME"].map { $0 + "/timbre/timbre.log" } ?? ""
            #expect((try? String(contentsOfFile: log, encoding: .utf8))?.contains("timbre.tui: unknown command 'fly'") == true, "in the log")

            // 5j: the count shows while pending, then the cursor is five rows down.
            try await tmux.keys("j", "Enter")
            _ = try await tmux.waitFor("Morning Coffee · 150")
            try await tmux.keys("5")
            screen = try await tmux.waitFor("count 5")
            try await tmux.keys("j", "d")
            screen = try await tmux.waitFor("#6 ")
            try await tmux.keys("n")

            // The prompt: C-w deletes a word, Tab completes a sort field, Up brings it back.
            try await tmux.keys(":")
            try await tmux.type("order titel")
            try await tmux.keys("C-w")
            try await tmux.type("ar")
            try await tmux.keys("Tab")
            screen = try await tmux.waitFor(":order artist▏")
            try await tmux.keys("Enter")
            screen = try await tmux.waitFor("sort artist ↑")
            try await tmux.keys(":", "Up")
            screen = try await tmux.waitFor(":order artist▏")
            try await tmux.keys("Escape", "q")
        }
    }

    /// Every mistake in `[keys]` is a message at start (and in the log); a rebinding shows in `?`
    /// as bound and works.
    @Test func everyBadKeyIsAMessageAndARebindingShowsInHelp() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { _, cli, tmux in
            let config = try String(contentsOf: cli.configFile, encoding: .utf8)
            try cli.writeConfig(config + "\n[keys]\n\"C-ä\" = \"quit\"\n\"x\" = \"fly away\"\n\"Z\" = \"quit\"\n")
            let marker = try await tmux.startTimbre(cli, columns: 80, rows: 24)
            var screen = try await tmux.waitFor("2 mistakes in [keys] of config.toml — M lists them")
            try await tmux.keys("M")
            screen = try await tmux.waitFor("Messages (")
            #expect(screen.contains("[keys] 'C-ä' is not a key") && screen.contains("[keys] x: unknown command 'fly'"), "both, in full:\n\(screen)")
            let log = cli.environment["XDG_STATE_HOME"].map { $0 + "/timbre/timbre.log" } ?? ""
            let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(logged.contains("timbre.tui: [keys] 'C-ä' is not a key") && logged.contains("timbre.tui: [keys] x: unknown command"), "\(logged)")
            try await tmux.keys("Escape", "?", "G")
            screen = try await tmux.waitFor("  q Z ")
            try await tmux.keys("Escape", "Z")
            #expect(try await Tmux.exitStatus(marker) == "0", "Z quits")
        }
    }
}
