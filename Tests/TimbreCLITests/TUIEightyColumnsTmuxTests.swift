import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// The real binary at 80×24 (#44): every question shows its keys, only its answers answer it, the
/// `:` prompt lists its candidates, and no sentence on any screen is cut ("…" at a line's end,
/// other than a name in a list row). Each screen is printed as captured.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIEightyColumnsTmuxTests {

    /// Lines that end in "…" where the text is a sentence: lines without the pane separator (the
    /// lines under the body, notices, overlays), the right pane's header, and with `paneRows` the
    /// right pane's rows (statistics). List rows (names) may be cut; `exempt` are list lines too.
    static func cutSentences(_ screen: String, paneRows: Bool = false, exempt: (String) -> Bool = { _ in false }) -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return lines.enumerated().compactMap { index, line in
            let cells = line.split(separator: "│", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let checked: [String] = cells.count < 2 ? cells : (index == 0 || paneRows ? [cells[1]] : [])
            return checked.contains { $0.hasSuffix("…") } && !exempt(line) ? line : nil
        }
    }

    static func show(_ title: String, _ screen: String) {
        print("── 80×24: \(title) ──\n\(screen)")
    }

    /// The last line of the hint, question or message above the status line (and above the
    /// now-playing line, which a signed-in interface shows just over the status line).
    static func lineAboveTheStatus(_ screen: String) -> String {
        var lines = screen.split(separator: "\n").dropLast().map(String.init)
        let playing = [" ▶", " ⏸", " nothing playing", " player not read yet"]
        if let last = lines.last, playing.contains(where: { last.hasPrefix($0) }) { lines.removeLast() }
        return lines.last ?? ""
    }

    @Test func everyScreenAndQuestionFitsAt80x24() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let marker = try await tmux.startTimbre(cli, columns: 80, rows: 24)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            var screen = try await s.wait("synced")
            Self.show("first screen", screen)
            let hint = Self.lineAboveTheStatus(screen)
            #expect(hint.contains("? help") && hint.trimmingCharacters(in: .whitespaces).hasSuffix("q quit"), "the hint line keeps q quit: \(hint)")
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")

            // The `:` prompt lists its candidates under it, fuzzy.
            try await tmux.keys(":")
            try await tmux.type("srt")
            screen = try await s.wait("sort! FIELD [reverse]")
            Self.show(": srt", screen)
            let lines = screen.split(separator: "\n").map(String.init)
            let prompt = try #require(lines.firstIndex { $0.hasPrefix(":srt") }, "\(screen)")
            #expect(lines[(prompt + 1)...].contains { $0.contains("sort! FIELD [reverse]") }, "under the prompt:\n\(screen)")
            try await tmux.keys("C-u")
            screen = try await s.wait("add-to")
            Self.show(": (every verb)", screen)
            try await tmux.keys("Escape")
            _ = try await s.wait("q quit")

            // `:sort! artist` asks y/r/n: wrapped whole, its keys at the end; M reads the messages
            // over it and comes back; n answers.
            try await s.open("Morning Coffee")
            try await s.command("sort! artist")
            screen = try await s.wait("(y/r/n)")
            Self.show(":sort! artist", screen)
            #expect(screen.contains("Sort “Morning Coffee” by artist"), "\(screen)")
            let keysLine = Self.lineAboveTheStatus(screen).trimmingCharacters(in: .whitespaces)
            #expect(keysLine.hasSuffix("(y/r/n)"), "the keys end the question: \(keysLine)")
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            try await tmux.keys("M")
            _ = try await s.wait("Messages (")
            try await tmux.keys("M")
            screen = try await s.wait("(y/r/n)")
            #expect(!screen.contains("cancelled"), "M did not answer the question:\n\(screen)")
            try await tmux.keys("n")
            _ = try await s.wait("nothing was sent")

            // `d` names the entry before its keys.
            try await tmux.keys("g", "d")
            screen = try await s.wait("(y/n)")
            Self.show("d", screen)
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            try await tmux.keys("n")
            _ = try await s.wait("cancelled")

            // `i`: the statistics wrap in the pane.
            try await tmux.keys("i")
            screen = try await s.wait("Statistics of")
            Self.show("i", screen)
            #expect(Self.cutSentences(screen, paneRows: true).isEmpty, "\(Self.cutSentences(screen, paneRows: true))")
            try await tmux.keys("Escape")
            _ = try await s.wait("q quit")

            // Too small: the notice fits the space it has.
            _ = try await tmux.run(["resize-window", "-x", "40", "-y", "10"])
            screen = try await s.wait("60×10")
            Self.show("40×10", screen)
            let notice = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
            #expect(notice == "Terminal too small (40×10); timbre needs 60×10.", "\(screen)")
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            _ = try await tmux.run(["resize-window", "-x", "80", "-y", "24"])
            _ = try await s.wait("q quit")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }

    /// `H` after a playlist changed outside: `r` asks y/n with the counts, whole at 80 columns.
    @Test func theRestoreQuestionOfHFitsAt80x24() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let probe = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            let coffee = try await probe.id(of: "Morning Coffee")
            _ = try await sandbox.mutate(playlist: coffee, action: "reorder")
            _ = try await sandbox.mutate(playlist: coffee, action: "remove_first")
            #expect(try await cli.run(["sync", "--quiet"]).status == 0)
            let marker = try await tmux.startTimbre(cli, columns: 80, rows: 24)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await s.wait("synced")
            try await s.open("Morning Coffee")
            try await tmux.keys("H")
            var screen = try await s.wait("Versions of “Morning Coffee” (2)")
            Self.show("H", screen)
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            try await tmux.keys("j", "Enter")
            screen = try await s.wait("restoring it puts")
            Self.show("H Enter", screen)
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            let pane = screen.split(separator: "\n").compactMap { $0.split(separator: "│", maxSplits: 1).dropFirst().first }
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(pane.contains("— r restores, Esc back"), "the line saying what a restore does, wrapped whole:\n\(screen)")
            try await tmux.keys("r")
            screen = try await s.wait("(y/n)")
            Self.show("H r", screen)
            let keysLine = Self.lineAboveTheStatus(screen).trimmingCharacters(in: .whitespaces)
            #expect(keysLine.hasSuffix("(y/n)") && screen.contains("the other"), "whole, keys last:\n\(screen)")
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            // ? reads the help over it; Esc comes back to it; Esc then says no.
            try await tmux.keys("?")
            _ = try await s.wait("Keys, as bound now")
            try await tmux.keys("Escape")
            _ = try await s.wait("(y/n)")
            try await tmux.keys("Escape")
            _ = try await s.wait("cancelled")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }

    /// `timbre demo` at 80×24: its greeting is a message (wrapped whole), not a ⚠ warning.
    @Test func theDemoGreetingIsAMessageAt80x24() async throws {
        let cli = try TimbreCLI()
        let tmux = Tmux()
        try await withCleanup({
            await tmux.kill()
            cli.remove()
        }) {
            let marker = try await tmux.startTimbre(cli, columns: 80, rows: 24, arguments: ["demo", "--library", "small"])
            let screen = try await tmux.waitFor("this sandbox too", timeout: .seconds(90))
            Self.show("demo", screen)
            let text = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(text.contains("try `timbre --profile demo playlists` in another terminal: the CLI works on this sandbox too"), "\(screen)")
            #expect(!screen.contains("⚠"), "a greeting, not a warning:\n\(screen)")
            #expect(Self.cutSentences(screen).isEmpty, "\(Self.cutSentences(screen))")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }
}
