import Foundation
import SandboxCore
import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

/// Order changes keep "date added" (issue #33 item 4) and positions count from 1 (issue #34 item
/// 3), against the sandbox: what the SERVER holds afterwards — each entry's `added_at` included —,
/// not only the cache.
extension SyncCLITests {
    /// Each entry as (URI, added_at), in the sandbox's order.
    func datedEntries(_ s: Setup, _ id: String) async throws -> [String] {
        try await s.sandbox.datedEntries(of: id)
    }

    /// The user's own playlist with the most entries that holds no local file (a rewrite can
    /// reorder it), grown (with copies of its tracks, dated now) to at least `minimum`, so that an
    /// order change is long enough to be asked about.
    func longOwnPlaylist(_ s: Setup, minimum: Int) async throws -> (id: String, entries: [String]) {
        let model = try await s.sandbox.library()
        var best: (String, [String])?
        for playlist in (model["playlists"] as? [[String: Any]] ?? []) where (playlist["owner_id"] as? String) == s.sandbox.info.userID {
            guard let id = playlist["id"] as? String else { continue }
            let entries = try await s.sandbox.entries(of: id)
            if entries.allSatisfy({ $0.hasPrefix("spotify:track:") || $0.hasPrefix("spotify:episode:") }), entries.count > (best?.1.count ?? 1) {
                best = (id, entries)
            }
        }
        let (id, entries) = try #require(best, "the small library has an own playlist without local files")
        let tracks = entries.filter { $0.hasPrefix("spotify:track:") }
        guard entries.count < minimum, !tracks.isEmpty else { return (id, entries) }
        let more = (0..<(minimum - entries.count)).map { tracks[$0 % tracks.count] }
        let added = await s.cli.invoke(["playlist", "add", id, "-"], stdin: more.joined(separator: "\n"))
        #expect(added.status == 0, "\(added.stderr)")
        return (id, try await s.sandbox.entries(of: id))
    }

    @Test func sortAndShuffleKeepEveryDateAddedAndUndoRestoresTheOrder() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await longOwnPlaylist(s, minimum: 40)
            let before = try await datedEntries(s, id)
            let dated = before.filter { !$0.hasSuffix("@ null") }
            #expect(Set(dated).count > 1, "the library's entries have dates of their own")

            // The dry run prices both ways and writes nothing.
            try await s.sandbox.clearRequests()
            let priced = await s.cli.invoke(["playlist", "sort", id, "--by", "title", "--dry-run", "--json"])
            #expect(priced.status == 0, "\(priced.stderr)")
            let cost = parse(priced.stdout) as? [String: Any] ?? [:]
            let moves = try #require(cost["moves"] as? Int)
            #expect(cost["rewrite_writes"] as? Int == (original.count + 99) / 100)
            #expect(moves > 0 && moves < original.count)
            #expect(try await s.sandbox.writeRequests().isEmpty, "a dry run sends no write")
            let text = await s.cli.invoke(["playlist", "sort", id, "--by", "title", "--dry-run"])
            #expect(text.stdout.contains("added dates kept") && text.stdout.contains("range move"), "\(text.stdout)")

            // Sorted by moves (no terminal: no question): every entry keeps its date on the server.
            let sorted = await s.cli.invoke(["playlist", "sort", id, "--by", "title"])
            #expect(sorted.status == 0, "\(sorted.stderr)")
            #expect(!sorted.stderr.contains("changed on Spotify"), "the planner's simulation is what the server holds: \(sorted.stderr)")
            let writes = try await s.sandbox.writeRequests()
            #expect(writes.count == moves, "as many moves as the dry run priced")
            #expect(writes.allSatisfy { $0.method == "PUT" }, "only reorders: nothing removed, replaced or re-added")
            let afterSort = try await datedEntries(s, id)
            #expect(afterSort.sorted() == before.sorted(), "every (entry, added_at) pair is still there")
            #expect(afterSort != before)
            let names = try await s.sandbox.playlistInfo(id).items.map { SearchText.fold($0.name ?? "") }
            #expect(names == names.sorted(), "in title order")
            // The cache holds what the server holds, dates included.
            let cached = (parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? [])
                .map { "\($0["uri"] as? String ?? "") @ \($0["added_at"] as? String ?? "null")" }
            #expect(cached == afterSort)

            // Undo: the old order exactly, by moves, dates kept.
            try await s.sandbox.clearRequests()
            let undone = await s.cli.invoke(["undo"])
            #expect(undone.status == 0, "\(undone.stderr)")
            #expect(try await datedEntries(s, id) == before)
            #expect(try await s.sandbox.writeRequests().allSatisfy { $0.method == "PUT" })

            // Shuffle: another order, the same dated entries.
            let shuffled = await s.cli.invoke(["playlist", "shuffle", id])
            #expect(shuffled.status == 0, "\(shuffled.stderr)")
            let afterShuffle = try await datedEntries(s, id)
            #expect(afterShuffle.sorted() == before.sorted() && afterShuffle != before)
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await datedEntries(s, id) == before)

            // --rewrite: ⌈n/100⌉ writes, and every date becomes the rewrite's.
            let newest = dated.map { String($0.split(separator: "@").last ?? "") }.max() ?? ""
            try await s.sandbox.clearRequests()
            let rewritten = await s.cli.invoke(["playlist", "sort", id, "--by", "artist", "--rewrite", "--json"])
            #expect(rewritten.status == 0, "\(rewritten.stderr)")
            #expect(try await s.sandbox.writeRequests().count == (original.count + 99) / 100)
            let afterRewrite = try await s.sandbox.playlistInfo(id).items
            #expect(afterRewrite.map { $0.uri ?? "" }.sorted() == original.sorted())
            #expect(afterRewrite.allSatisfy { ($0.addedAt ?? "") >= newest }, "every date reset to the rewrite's")
            #expect(Set(afterRewrite.map { $0.addedAt ?? "" }).count < Set(dated.map { String($0.split(separator: "@").last ?? "") }).count)
            // Its undo says plainly that the dates cannot come back.
            let undoRewrite = await s.cli.invoke(["undo"])
            #expect(undoRewrite.status == 0, "\(undoRewrite.stderr)")
            #expect(undoRewrite.stdout.contains("cannot come back"), "\(undoRewrite.stdout)")
            #expect(try await s.sandbox.entries(of: id) == original)
        }
    }

    /// On a terminal, a long order change asks first: n sends nothing (exit 1), r rewrites, y moves;
    /// --yes asks nothing.
    @Test func aLongOrderChangeAsksYesRewriteOrNoOnATerminal() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await longOwnPlaylist(s, minimum: 60)
            try await s.sandbox.clearRequests()
            let no = await s.cli.invoke(["playlist", "sort", id, "--by", "duration", "--reverse"], stdin: "n\n", tty: true)
            #expect(no.status == 1, "\(no.stderr)")
            #expect(no.stderr.contains("moves, ≈") && no.stderr.contains("dates kept") && no.stderr.contains("(y/r/n)"), "\(no.stderr)")
            #expect(no.stderr.contains("rewrite in \((original.count + 99) / 100) write"), "\(no.stderr)")
            #expect(try await s.sandbox.writeRequests().isEmpty, "n sends nothing")
            #expect(try await s.sandbox.entries(of: id) == original)

            let yes = await s.cli.invoke(["playlist", "sort", id, "--by", "duration", "--reverse"], stdin: "y\n", tty: true)
            #expect(yes.status == 0, "\(yes.stderr)")
            #expect(try await s.sandbox.writeRequests().allSatisfy { $0.method == "PUT" }, "y: moves")
            #expect(await s.cli.invoke(["undo"]).status == 0)

            try await s.sandbox.clearRequests()
            let rewrite = await s.cli.invoke(["playlist", "shuffle", id], stdin: "r\n", tty: true)
            #expect(rewrite.status == 0, "\(rewrite.stderr)")
            #expect(try await s.sandbox.writeRequests().count == (original.count + 99) / 100, "r: the rewrite")
            #expect(rewrite.stdout.contains("today's added date"), "\(rewrite.stdout)")

            try await s.sandbox.clearRequests()
            let skipped = await s.cli.invoke(["playlist", "shuffle", id, "--yes"], stdin: "", tty: true)
            #expect(skipped.status == 0, "\(skipped.stderr)")
            #expect(!skipped.stderr.contains("(y/r/n)"))
            #expect(try await s.sandbox.writeRequests().allSatisfy { $0.method == "PUT" })
        }
    }

    /// The planner's moves, sent one by one through `timbre api`, give on the server exactly the
    /// list the planner simulated — for a known permutation, in n − LIS moves.
    @Test func thePlannersSimulationIsWhatTheServerHolds() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, list) = try await ownPlaylist(s)
            var generator = SeededGenerator(state: 34)
            for round in 0..<3 {
                let current = try await s.sandbox.entries(of: id)
                var order = Array(current.indices)
                switch round {
                case 0: order.reverse()  // LIS 1: n − 1 moves
                case 1: order = Array(order.dropFirst(3)) + order.prefix(3)  // a run: one move
                default: order.shuffle(using: &generator)
                }
                let plan = try EntryEdit.reorder(order: order).plan(on: current)
                if round == 0 { #expect(plan.writes.count == current.count - 1) }
                if round == 1 { #expect(plan.writes.count == 1) }
                for write in plan.writes {
                    guard case .reorder(let start, let insertBefore, let length) = write else {
                        Issue.record("not a move: \(write)")
                        continue
                    }
                    let body = #"{"range_start": \#(start), "insert_before": \#(insertBefore), "range_length": \#(length)}"#
                    let sent = await s.cli.invoke(["api", "-X", "PUT", "playlists/\(id)/items", "--input", "-"], stdin: body)
                    #expect(sent.status == 0, "\(sent.stderr)")
                }
                #expect(try await s.sandbox.entries(of: id) == plan.result, "round \(round)")
                #expect(plan.result.sorted() == list.sorted())
            }
        }
    }

    /// A shuffle by moves killed at any point leaves every entry, with its date, and the next
    /// command finishes it.
    @Test func aShuffleByMovesKilledAtAnyPointKeepsEveryEntryAndDate() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, _) = try await longOwnPlaylist(s, minimum: 80)
            var slow = Fault(kind: .latency, pathContains: "/v1/playlists/\(id)/items", count: 1_000_000, ms: 15)
            slow.method = "PUT"
            try await s.sandbox.addFaults([slow])
            var generator = SystemRandomNumberGenerator()
            var interrupted = 0
            for round in 0..<4 {
                let before = try await datedEntries(s, id)
                if try await runKilledAfter(s, writes: Int.random(in: 1...50, using: &generator), ["playlist", "shuffle", id]) { interrupted += 1 }
                // Any prefix of the moves is a permutation of the list: nothing lost, no date changed.
                #expect(try await datedEntries(s, id).sorted() == before.sorted(), "round \(round): mid-edit")
                let finished = await s.cli.invoke(["playlist", "dedupe", id, "--dry-run"])
                #expect(finished.status == 0, "round \(round): \(finished.stderr)")
                let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
                #expect(history.first?["state"] as? String == "done", "round \(round): finished by the next command: \(history.first ?? [:])")
                #expect(try await datedEntries(s, id).sorted() == before.sorted(), "round \(round): finished")
            }
            #expect(interrupted >= 2, "\(interrupted) of 4 kills interrupted a shuffle")
        }
    }

    /// Positions count from 1 everywhere they are read or typed; 0 and below are usage errors.
    @Test func positionsCountFromOneInEveryOutputAndArgument() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let items = try await s.sandbox.playlistInfo(id).items
            try await s.sandbox.clearRequests()
            for arguments in [
                ["playlist", "remove", id, "--position", "0"], ["playlist", "remove", id, "--position", "-1"],
                ["playlist", "remove", id, "--position", "0-2"], ["playlist", "move", id, "--position", "2", "--to", "0"],
                ["playlist", "move", id, "--position", "0", "--to", "2"], ["playlist", "add", id, original[0], "--position", "0"],
            ] {
                let refused = await s.cli.invoke(arguments)
                #expect(refused.status == 2, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains("positions count from 1"), "\(arguments): \(refused.stderr)")
            }
            #expect(try await s.sandbox.requests().filter { $0.path.hasPrefix("/v1/") }.isEmpty, "refused before any request")

            let json = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(json.map { $0["position"] as? Int ?? 0 } == Array(1...original.count))
            let csv = await s.cli.invoke(["tracks", id, "--csv"]).stdout.components(separatedBy: "\r\n")
            #expect(csv.count > 2 && csv[1].hasPrefix("1,") && csv[2].hasPrefix("2,"))
            let text = await s.cli.invoke(["tracks", id]).stdout.split(separator: "\n")
            #expect(text.first?.hasPrefix("    1  ") == true, "\(text.first ?? "")")
            #expect(text.last?.hasPrefix(String(original.count).leftPadded(to: 5) + "  ") == true)

            // A dry run names each entry by its number and name; what a script reads it passes back.
            let second = try #require(items.dropFirst().first)
            let dry = await s.cli.invoke(["playlist", "remove", id, "--position", "2", "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("#2 \(second.name ?? "")"), "\(dry.stdout)")
            let last = await s.cli.invoke(["playlist", "remove", id, "--position", "\(original.count)"])
            #expect(last.status == 0, "\(last.stderr)")
            #expect(try await s.sandbox.entries(of: id) == Array(original.dropLast()))
            let beyond = await s.cli.invoke(["playlist", "remove", id, "--position", "\(original.count)"])
            #expect(beyond.status == 2 && beyond.stderr.contains("outside the playlist (1–\(original.count - 1))"), "\(beyond.stderr)")
            // Insert as entry 1, then move entry 1 to be entry 3.
            #expect(await s.cli.invoke(["playlist", "add", id, original.last ?? "", "--position", "1"]).status == 0)
            #expect(try await s.sandbox.entries(of: id).first == original.last)
            #expect(await s.cli.invoke(["playlist", "move", id, "--position", "1", "--to", "3"]).status == 0)
            #expect(try await s.sandbox.entries(of: id)[2] == original.last)
        }
    }
}
