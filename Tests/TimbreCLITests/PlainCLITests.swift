import Foundation
import Testing
import TimbreTestSupport

/// What the command line says is what happened (issue 44, "the CLI's small lies"), through the real
/// binary against the sandbox: a playlist that is not the user's is refused before anything is
/// sent; an unreadable playlist's `tracks` says why; an order change's estimate follows the pace
/// measured in the run; `--jq` filters `--json` in process, as gh's does.
extension SyncCLITests {
    @Test func aPlaylistOwnedBySpotifyIsRefusedBeforeSendingByEveryWrite() async throws {
        let s = try await setUp("small", ["--spotify-owned", "2"])
        try await withCleanup({ await s.cleanUp() }) {
            let synced = await s.cli.invoke(["sync", "--quiet"])
            #expect([0, 3].contains(synced.status), "\(synced.stderr)")
            let (_, entries) = try await ownPlaylist(s)
            let track = try #require(entries.first { $0.hasPrefix("spotify:track:") })
            try await s.sandbox.clearRequests()
            let writes: [[String]] = [
                ["playlist", "add", "Discover Weekly", track],
                ["playlist", "remove", "Discover Weekly", "--position", "1"],
                ["playlist", "move", "Release Radar", "--position", "1", "--to", "3"],
                ["playlist", "sort", "Discover Weekly", "--by", "title"],
                ["playlist", "shuffle", "Release Radar", "--yes"],
                ["playlist", "dedupe", "Discover Weekly"],
                ["playlist", "edit", "Discover Weekly", "--name", "Mine now"],
                ["playlist", "add", "Today's Top Hits", track],
            ]
            for arguments in writes {
                let refused = await s.cli.invoke(arguments)
                #expect(refused.status == 7, "\(arguments): \(refused.status) \(refused.stderr)")
                #expect(refused.stderr.contains("belongs to Spotify"), "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains("nothing was sent"), "\(arguments): \(refused.stderr)")
            }
            let sent = try await apiRequests(s)
            #expect(sent.isEmpty, "refused before sending: \(sent)")
        }
    }

    @Test func tracksOfAnUnreadablePlaylistSaysWhyAndExits7() async throws {
        let s = try await setUp("small", ["--spotify-owned", "1"])
        try await withCleanup({ await s.cleanUp() }) {
            let synced = await s.cli.invoke(["sync", "--quiet"])
            #expect([0, 3].contains(synced.status), "\(synced.stderr)")
            for name in ["Discover Weekly", "Today's Top Hits"] {
                for format in [[], ["--json"], ["--csv"]] {
                    let tracks = await s.cli.invoke(["tracks", name] + format)
                    #expect(tracks.status == 7, "\(name) \(format): \(tracks.status) \(tracks.stdout) \(tracks.stderr)")
                    #expect(tracks.stdout.isEmpty, "\(tracks.stdout)")
                    #expect(tracks.stderr.contains("not permitted"), "\(tracks.stderr)")
                    #expect(tracks.stderr.contains("Spotify does not let apps read its own playlists"), "\(tracks.stderr)")
                }
            }
            // An empty playlist of the user's own is still an empty list, exit 0.
            let model = try await s.sandbox.library(includeItems: false)
            let own = (model["playlists"] as? [[String: Any]] ?? []).filter { $0["owner_id"] as? String == s.sandbox.info.userID }
            for playlist in own {
                guard let id = playlist["id"] as? String, try await s.sandbox.entries(of: id).isEmpty else { continue }
                let empty = await s.cli.invoke(["tracks", id])
                #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stderr)")
            }
        }
    }

    /// At 200 ms a request, a sort's estimate is at least 200 ms a move: the pace of the read just
    /// made, not a constant ten writes a second (which said ≈ 12 s for what took 20.5 s).
    @Test func anOrderChangesEstimateFollowsThePaceMeasuredInTheRun() async throws {
        let s = try await setUp("small", ["--latency-ms", "200"])
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, _) = try await longOwnPlaylist(s, minimum: 40)
            let priced = await s.cli.invoke(["playlist", "sort", id, "--by", "title", "--dry-run"])
            #expect(priced.status == 0, "\(priced.stderr)")
            let text = priced.stdout
            let moves = try #require(Self.number(in: text, before: " range move"), "\(text)")
            #expect(moves > 10, "enough moves that ten a second would be under the latency: \(text)")
            let estimate = try #require(Self.estimateSeconds(text), "\(text)")
            #expect(Double(estimate) >= Double(moves) * 0.2, "\(moves) moves at ≥ 200 ms each: \(text)")
        }
    }

    /// The number just before `marker` ("by 117 range moves" → 117).
    static func number(in text: String, before marker: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[..<range.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }.reversed().filter(\.isNumber)
        return Int(String(digits))
    }

    /// "(≈ 24 s" → 24, "(≈ 2 min" → 150 (the most a rounded minute can stand for).
    static func estimateSeconds(_ text: String) -> Int? {
        guard let start = text.range(of: "(≈ ") else { return nil }
        let rest = text[start.upperBound...]
        let value = Int(String(rest.prefix { $0.isNumber })) ?? 0
        let unit = rest.drop { $0.isNumber }.dropFirst().prefix(3)
        return unit.hasPrefix("min") ? value * 60 + 30 : value
    }

    @Test func jqFiltersTheJSONOfCommandsInProcess() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let playlists = await s.cli.invoke(["playlists", "--json"])
            let all = try #require(parse(playlists.stdout) as? [[String: Any]])
            let names = all.compactMap { $0["name"] as? String }

            // Strings raw, one a line.
            let filtered = await s.cli.invoke(["playlists", "--json", "--jq", ".[].name"])
            #expect(filtered.status == 0, "\(filtered.stderr)")
            #expect(filtered.stdout == names.map { $0 + "\n" }.joined(), "\(filtered.stdout)")
            // Other values as compact JSON; `--jq=EXPR` and the option before `--json` too.
            let counts = await s.cli.invoke(["playlists", "--jq=[.[] | .track_count] | add", "--json"])
            #expect(counts.stdout == "\(all.compactMap { $0["track_count"] as? Int }.reduce(0, +))\n", "\(counts.stdout) \(counts.stderr)")
            let objects = await s.cli.invoke(["playlists", "--json", "--jq", ".[0] | {id, name}"])
            #expect(objects.stdout.hasPrefix("{\"id\":") && !objects.stdout.contains("\n{") && objects.stdout.hasSuffix("}\n"), "\(objects.stdout)")

            // The journal: an edit, then its history filtered.
            let (id, entries) = try await ownPlaylist(s)
            #expect(await s.cli.invoke(["playlist", "add", id, entries[0]]).status == 0)
            let history = await s.cli.invoke(["history", "--json", "--jq", ".[0].op"])
            #expect(history.status == 0 && history.stdout == "add\n", "\(history.stdout) \(history.stderr)")
            // An edit's own --json, filtered.
            let removed = await s.cli.invoke(["playlist", "remove", id, "--position", "1", "--json", "--jq", ".removed"])
            #expect(removed.status == 0 && removed.stdout == "1\n", "\(removed.stdout) \(removed.stderr)")

            // A bad expression: exit 2 with jq's words, before the command runs (nothing sent).
            try await s.sandbox.clearRequests()
            let bad = await s.cli.invoke(["playlist", "remove", id, "--position", "1", "--json", "--jq", ".[] | select("])
            #expect(bad.status == 2 && bad.stderr.contains("--jq") && bad.stderr.contains("syntax error"), "\(bad.stderr)")
            #expect(bad.stdout.isEmpty)
            #expect(try await apiRequests(s).isEmpty)
            // gh's rule: --jq needs --json.
            let alone = await s.cli.invoke(["playlists", "--jq", ".[].name"])
            #expect(alone.status == 2 && alone.stderr.contains("add '--json'"), "\(alone.stderr)")
            // An expression that fails on the output: jq's message, exit 2.
            let failing = await s.cli.invoke(["playlists", "--json", "--jq", ".name"])
            #expect(failing.status == 2 && failing.stderr.contains("Cannot index array"), "\(failing.stderr)")
            // `api`, whose answer is JSON already, takes it without --json (`gh api --jq`).
            let me = await s.cli.invoke(["api", "me", "--jq", ".id"])
            #expect(me.status == 0 && me.stdout == s.sandbox.info.userID + "\n", "\(me.stdout) \(me.stderr)")
            // The help of a command with --json lists it.
            #expect(await s.cli.invoke(["playlists", "--help"]).stdout.contains("--jq <expression>"))
        }
    }
}
