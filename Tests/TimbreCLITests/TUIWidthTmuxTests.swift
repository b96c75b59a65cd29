import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Names with grapheme clusters terminals draw otherwise than ncurses counts them — a ZWJ family,
/// a flag, a VS16 emoji, a combining mark — leave every column after them where tmux draws it.
extension TUITmuxTests {
    @Test func emojiClustersKeepTheColumnsAfterThemInPlace() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { _, cli, tmux in
            let name = "Fam👨‍👩‍👧‍👦 🇸🇪 🎙️ Cafe\u{301} end"
            let created = try await cli.run(["playlist", "create", name])
            #expect(created.status == 0, "\(created.stderr)")
            _ = try await tmux.startTimbre(cli, columns: 120, rows: 32)
            let screen = try await tmux.waitFor("Morning Coffee")
            let rows = screen.split(separator: "\n").map(String.init)
            let reference = try #require(rows.first { $0.contains("Morning Coffee") })
            let emoji = try #require(rows.first { $0.contains("Fam") && $0.contains("end") }, "\(screen)")
            // tmux draws the family and the flag two cells wide and captures each as one
            // Character; the VS16 emoji one cell wide, which timbre pads to two with a space.
            let border = try #require(reference.firstIndex(of: "│"))
            let emojiBorder = try #require(emoji.firstIndex(of: "│"), "the pane border is on the row:\n\(screen)")
            let referenceCells = reference.distance(from: reference.startIndex, to: border)
            let emojiCells = emoji.distance(from: emoji.startIndex, to: emojiBorder) + 2
            #expect(emojiCells == referenceCells, "the border after the name is where it is on every row:\n\(reference)\n\(emoji)")
            #expect(emoji.contains("Cafe\u{301} end"), "the combining mark stays on its letter")
            try await tmux.keys("q")
        }
    }
}
