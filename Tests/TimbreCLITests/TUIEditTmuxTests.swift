import Foundation
import Testing
import TimbreTestSupport

/// Managing playlists in the interface, end to end: the real binary in tmux over the sandbox; every
/// step asserts what the SANDBOX holds afterwards, not only what the screen says.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIEditTmuxTests {

    @Test func markRemoveUndoYankPasteAcrossPlaylists() async throws {
        try await InterfaceSession.withInterface { s in
            let coffee = try await s.id(of: "Morning Coffee")
            let empty = try await s.id(of: "Empty Playlist")
            let original = try await s.sandbox.entries(of: coffee)
            try await s.open("Morning Coffee")

            // Mark the first two entries, d, the question names how many; n sends nothing.
            try await s.tmux.keys("Space", "Space")
            _ = try await s.wait("2 marked")
            try await s.tmux.keys("d")
            // The entries it names come before the keys, which end the question.
            let asked = try await s.wait("Remove 2 entries from “Morning Coffee”?")
            #expect(asked.contains("(y/n)"), "\(asked)")
            try await s.tmux.keys("n")
            _ = try await s.wait("cancelled; nothing was sent")
            #expect(try await s.sandbox.writeRequests().isEmpty)
            try await s.tmux.keys("d")
            _ = try await s.wait("(y/n)")
            try await s.tmux.keys("y")
            _ = try await s.wait("Removed 2 entries")
            #expect(try await s.sandbox.entries(of: coffee) == Array(original.dropFirst(2)), "exactly the marked entries are gone")

            // u puts them back where they were.
            try await s.tmux.keys("u")
            _ = try await s.wait("Undid edit")
            #expect(try await s.sandbox.entries(of: coffee) == original)

            // v j j y yanks three; paste them into another playlist, then before its first entry.
            try await s.tmux.keys("g", "v", "j", "j", "y")
            _ = try await s.wait("yanked 3 entries")
            try await s.open("Empty Playlist")
            try await s.tmux.keys("p")
            _ = try await s.wait("Added 3 entries")
            #expect(try await s.sandbox.entries(of: empty) == Array(original.prefix(3)))
            // They are there already: the duplicate question first, y adds them all the same.
            try await s.tmux.keys("g", "P")
            _ = try await s.wait("3 already in “Empty Playlist” — add anyway? (y/n/s=skip them)")
            try await s.tmux.keys("y")
            _ = try await s.wait("edit 3,")
            #expect(try await s.sandbox.entries(of: empty) == Array(original.prefix(3)) + Array(original.prefix(3)))
            // C-r after u: the paste comes back.
            try await s.tmux.keys("u")
            _ = try await s.wait("Undid edit 3")
            #expect(try await s.sandbox.entries(of: empty) == Array(original.prefix(3)))
            try await s.tmux.keys("C-r")
            _ = try await s.wait("Redid edit 3")
            #expect(try await s.sandbox.entries(of: empty).count == 6)
            // The CLI sees the interface's edits in the same journal.
            let history = try await s.cli.run(["history", "--json"])
            #expect(history.status == 0)
            let entries = (try? JSONSerialization.jsonObject(with: Data(history.stdout.utf8))) as? [[String: Any]] ?? []
            #expect(entries.map { $0["op"] as? String } == ["add", "add", "remove"], "\(history.stdout)")
        }
    }

    /// `:sort` of more than 20 moves asks first (what it costs, dates kept, or r to rewrite);
    /// n sends nothing, y saves by moves and every entry keeps its date added on the server.
    @Test func aLongSortAsksFirstAndKeepsEveryDateAdded() async throws {
        try await InterfaceSession.withInterface { s in
            let coffee = try await s.id(of: "Morning Coffee")
            let current = try await s.sandbox.entries(of: coffee)
            let tracks = current.filter { $0.hasPrefix("spotify:track:") }
            if current.count < 40, !tracks.isEmpty {
                let more = (0..<(40 - current.count)).map { tracks[$0 % tracks.count] }
                let added = try await s.cli.run(["playlist", "add", coffee, "-"], stdin: more.joined(separator: "\n"))
                #expect(added.status == 0, "\(added.stderr)")
            }
            let before = try await s.sandbox.datedEntries(of: coffee)
            try await s.open("Morning Coffee")
            try await s.sandbox.clearRequests()
            try await s.command("sort! duration reverse")
            _ = try await s.wait("dates kept")
            try await s.tmux.keys("n")
            _ = try await s.wait("ancelled; nothing was sent")
            #expect(try await s.sandbox.writeRequests().isEmpty)
            try await s.command("sort! duration reverse")
            _ = try await s.wait("dates kept")
            try await s.tmux.keys("y")
            _ = try await s.wait("added dates kept (")
            let writes = try await s.sandbox.writeRequests()
            #expect(writes.count > 20 && writes.allSatisfy { $0.method == "PUT" }, "moves only")
            let after = try await s.sandbox.datedEntries(of: coffee)
            #expect(after.sorted() == before.sorted() && after != before, "a new order, every (entry, date added) kept")
        }
    }

    @Test func lockedPlaylistsSendNothingAndAConflictShowsItsMessage() async throws {
        try await InterfaceSession.withInterface { s in
            let coffee = try await s.id(of: "Morning Coffee")
            try await s.open("Morning Coffee")
            try await s.tmux.keys("y")
            _ = try await s.wait("yanked 1 entry")

            // Someone else's playlist: locked; paste, shuffle and dedupe are refused, nothing is sent.
            try await s.open("Today's Top Hits")
            var screen = try await s.wait("🔒 read-only")
            try await s.tmux.keys("p")
            screen = try await s.wait("nothing was sent")
            #expect(screen.contains("🔒"))
            try await s.command("shuffle")
            try await s.command("dedupe")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await s.sandbox.writeRequests().isEmpty, "a locked playlist got a write")

            // The playlist changed on Spotify since the sync: d is a conflict, nothing is written,
            // and the list is re-read to what Spotify holds.
            _ = try await s.sandbox.mutate(playlist: coffee, action: "remove_first")
            let changed = try await s.sandbox.entries(of: coffee)
            try await s.sandbox.clearRequests()
            try await s.open("Morning Coffee")
            try await s.tmux.keys("j", "d")
            _ = try await s.wait("(y/n)")
            try await s.tmux.keys("y")
            screen = try await s.wait("nothing was written")
            // Wrapped whole onto the lines under the list.
            #expect(screen.contains("changed on Spotify since it was last synced") && screen.contains("then try again"), "\(screen)")
            #expect(try await s.sandbox.writeRequests().isEmpty, "a conflicting edit wrote")
            #expect(try await s.sandbox.entries(of: coffee) == changed)
            _ = try await s.wait("Morning Coffee · \(changed.count) ")
            try await s.tmux.keys(":")
            try await s.tmux.type("messages")
            try await s.tmux.keys("Enter")
            screen = try await s.wait("Messages (")
            #expect(screen.contains("the list now shows what Spotify") && screen.contains("look, then try again"), "the whole sentence under M:\n\(screen)")
            try await s.tmux.keys("Escape")
        }
    }

    @Test func filtersFoldersStatisticsAndHelpRender() async throws {
        try await InterfaceSession.withInterface { s in
            try await s.open("Morning Coffee")
            try await s.command("filter year:1900-1989 duration:<4:00")
            var screen = try await s.wait("filter year:1900-1989 duration:<4:00")
            // Track rows: "│", a position, …, a duration at the end.
            let rows = screen.split(separator: "\n").filter { $0.range(of: #"│[ •]*\d+ .*\d+:\d\d\s*$"#, options: .regularExpression) != nil }
            #expect(!rows.isEmpty)
            for row in rows {
                let clock = (row.split(separator: " ").last ?? "").split(separator: ":").compactMap { Int($0) }
                #expect(clock.count == 2 && clock[0] * 60 + clock[1] < 240, "\(row)\n\(screen)")
            }
            try await s.tmux.keys("Escape")

            // A folder from the interface: the selected playlist goes into it, the pane shows a tree.
            try await s.tmux.keys("h")
            try await s.command("folder add Road Trips")
            _ = try await s.wait("No folder “Road Trips” — create it? (y/n)")
            try await s.tmux.keys("y")
            screen = try await s.wait("into the folder “Road Trips”")
            try await s.tmux.keys("Escape")
            _ = try await s.wait("▾ Road Trips")
            screen = try await s.wait("    Morning Coffee")
            #expect(screen.contains("▾ Road Trips"), "the playlist is indented under its folder")
            // :export to a file that exists asks first; n leaves it, y replaces it.
            let file = s.cli.home.appendingPathComponent("coffee.csv")
            try Data("mine\n".utf8).write(to: file)
            try await s.command("export \(file.path)")
            _ = try await s.wait("“\(file.path)” exists — overwrite? (y/n)")
            try await s.tmux.keys("n")
            _ = try await s.wait("cancelled; nothing was sent")
            #expect(try String(contentsOf: file, encoding: .utf8) == "mine\n")
            try await s.command("export \(file.path)")
            _ = try await s.wait("overwrite? (y/n)")
            try await s.tmux.keys("y")
            _ = try await s.wait("entries to \(file.path)")
            #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix("Track URI,"))
            let folders = try await s.cli.run(["folder", "list", "--json"])
            let coffee = try await s.id(of: "Morning Coffee")
            #expect(folders.stdout.contains("Road Trips") && folders.stdout.contains(coffee))
            // Enter on the folder closes it; the state is kept in the user data.
            try await s.tmux.keys("g", "j", "Enter")
            _ = try await s.wait("▸ Road Trips")
            try await Task.sleep(for: .milliseconds(300))
            let closed = try await s.cli.run(["folder", "list", "--json"])
            #expect(closed.stdout.contains("\"expanded\":false"), "\(closed.stdout)")

            // i: the statistics overlay.
            try await s.tmux.keys("g", "Enter")
            try await s.tmux.keys("i")
            // The overlay is drawn top to bottom: wait for its last line, then read the rest.
            screen = try await s.wait("decades:")
            #expect(screen.contains("Statistics of “Liked Songs”") && screen.contains("entries:") && screen.contains("top artists:"))
            try await s.tmux.keys("Escape")

            // ? lists every new binding.
            try await s.tmux.keys("?")
            _ = try await s.wait("Keys, as bound now")
            screen = try await s.wait("down one row")
            // Every page of the help, half a page (C-d) at a time, to its last line.
            let range = try NSRegularExpression(pattern: "lines (\\d+)–(\\d+) of (\\d+)")
            func shown(_ text: String) -> (last: Int, total: Int)? {
                guard let match = range.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), match.numberOfRanges == 4,
                    let last = Range(match.range(at: 2), in: text).flatMap({ Int(text[$0]) }),
                    let total = Range(match.range(at: 3), in: text).flatMap({ Int(text[$0]) })
                else { return nil }
                return (last, total)
            }
            var page = screen
            for _ in 0..<20 {
                guard let now = shown(page), now.last < now.total else { break }
                try await s.tmux.keys("C-d")
                page = try await s.tmux.waitUntil("the help past line \(now.last)") { (shown($0)?.last ?? 0) > now.last }
                screen += page
            }
            #expect(screen.contains(":search TEXT"), "the help's last page was reached")
            for text in [
                "mark a range", "paste the yanked entries after", "move the marked run", "remove the marked", "copy the marked", "undo the journal",
                "redo the edit", "statistics of the playlist", "open or close the folder", ":folder add",
            ] {
                #expect(screen.contains(text), "help lacks \(text)")
            }
            try await s.tmux.keys("Escape")
        }
    }
}
