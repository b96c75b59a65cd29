import Foundation
import Testing
import TimbreTestSupport

/// A first sync cut short (issue #42, items 3 and 5), with the real binary against the sandbox's
/// request log and daily quota: the pages it read of a playlist whose snapshot has not changed
/// are not read again, so the cut sync and its completion cost at most 5 % more than one
/// uninterrupted first sync; what the user needs first (Liked Songs, their own playlists) is
/// read first; `sync --json`'s `to_read` names exactly the lists not yet complete, and `tracks`
/// never shows one of them as complete.
extension SyncCLITests {
    /// Another profile (its own cache, nothing read yet) signed in to the same sandbox.
    func freshProfile(_ s: Setup) async throws -> Setup {
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await s.sandbox.mintRefreshToken()])
        try cli.configure(for: s.sandbox, extra: TimbreCLI.killedEditsRequestTimeout)
        return Setup(sandbox: s.sandbox, cli: cli)
    }

    /// Web API requests the sandbox logged since its log was last cleared (not token requests).
    func webRequests(_ s: Setup) async throws -> [SandboxRequestRecord] {
        try await s.sandbox.requests().filter { $0.path.hasPrefix("/v1/") }
    }

    /// `timbre sync --json` through the real binary: exit status, the object, stderr.
    func syncJSON(_ s: Setup, _ extra: [String] = []) async throws -> (status: Int32, report: [String: Any], stderr: String) {
        let result = try await s.cli.run(["sync", "--json"] + extra)
        return (result.status, parse(result.stdout) as? [String: Any] ?? [:], result.stderr)
    }

    func toRead(_ report: [String: Any]) -> [String] {
        (report["to_read"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
    }

    /// What `tracks` says of a playlist not read whole yet — entries read so far and its total —;
    /// nil when it lists the entries.
    func readSoFar(_ s: Setup, _ id: String) async -> (read: Int, total: Int)? {
        let tracks = await s.cli.invoke(["tracks", id])
        guard tracks.status == 1, let range = tracks.stderr.range(of: #"\(\d+ of \d+ so far\)"#, options: .regularExpression) else { return nil }
        let numbers = tracks.stderr[range].split { !$0.isNumber }.compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// The sandbox's playlists: id and whether the signed-in user owns it.
    func playlistOwnership(_ s: Setup) async throws -> [(id: String, own: Bool)] {
        let model = try await s.sandbox.library(includeItems: false)
        return (model["playlists"] as? [[String: Any]] ?? []).map {
            ($0["id"] as? String ?? "", $0["owner_id"] as? String == s.sandbox.info.userID)
        }
    }

    /// `to_read` names exactly the lists whose current version the cache does not hold, and
    /// `tracks` shows none of those as a list (exit 1, "not read yet").
    func expectToReadIsExact(_ s: Setup, _ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let missing = toRead(report)
        #expect(Set(missing).count == missing.count, "\(missing)", sourceLocation: sourceLocation)
        let cached = parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []
        let rows = Dictionary(cached.map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(missing.contains("liked") == (rows["liked"] == nil), "Liked Songs: \(missing)", sourceLocation: sourceLocation)
        for (id, _) in try await playlistOwnership(s) {
            // Read whole (synced_at), or known unreadable (unavailable): complete.
            let complete = rows[id]?["synced_at"] is String || rows[id]?["unavailable"] is String
            #expect(missing.contains(id) == !complete, "\(id): complete \(complete), to_read \(missing)", sourceLocation: sourceLocation)
            if !complete {
                let tracks = await s.cli.invoke(["tracks", id, "--json"])
                #expect(tracks.status == 1 && tracks.stdout.isEmpty, "\(id) is not shown as a list: \(tracks.stderr)", sourceLocation: sourceLocation)
                #expect(tracks.stderr.contains("not been read yet"), "\(tracks.stderr)", sourceLocation: sourceLocation)
            }
        }
    }

    /// In one sync's request log: no followed playlist's entries are asked before every request
    /// for Liked Songs and for the user's own playlists has been answered.
    func expectOwnBeforeFollowed(_ s: Setup, _ log: [SandboxRequestRecord], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let playlists = try await playlistOwnership(s)
        let own = Set(playlists.filter(\.own).map { "/v1/playlists/\($0.id)/items" }),
            followed = Set(playlists.filter { !$0.own }.map { "/v1/playlists/\($0.id)/items" })
        try #require(!followed.isEmpty && !own.isEmpty)
        let lastFirst = try #require(log.lastIndex { own.contains($0.path) || $0.path == "/v1/me/tracks" })
        let firstFollowed = log.firstIndex { followed.contains($0.path) }
        #expect(
            firstFollowed.map { $0 > lastFirst } ?? true,
            "a followed playlist was read at \(firstFollowed ?? -1), before the last of Liked Songs and the own playlists at \(lastFirst)",
            sourceLocation: sourceLocation)
    }

    @Test func aFirstSyncCutByMaxRequestsAndCompletedCostsWithinFivePercentOfOne() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            // One uninterrupted first sync: what it costs, and the order it reads in.
            try await s.sandbox.clearRequests()
            let full = try await syncJSON(s)
            #expect(full.status == 0, "\(full.stderr)")
            #expect(full.report["to_read"] as? [Any] != nil && toRead(full.report).isEmpty)
            let log = try await webRequests(s)
            let cost = log.count
            try await expectOwnBeforeFollowed(s, log)

            // Cut early (Liked Songs part-read, no playlist begun), at a third, at two thirds (many
            // playlists part-read), and twice in one first sync; each then completed.
            for cuts in [[10], [cost / 3], [cost * 2 / 3], [cost / 4, cost / 3]] {
                let p = try await freshProfile(s)
                try await withCleanup({ p.cli.remove() }) {
                    try await s.sandbox.clearRequests()
                    var sent = 0
                    for limit in cuts {
                        let cut = try await syncJSON(p, ["--max-requests", "\(limit)"])
                        #expect(cut.status == 3, "\(cut.stderr)")
                        #expect(cut.stderr.contains("stopped at the request limit"), "\(cut.stderr)")
                        #expect(cut.report["status"] as? String == "partial", "\(cut.report)")
                        #expect(!toRead(cut.report).isEmpty)
                        let logged = try await webRequests(s).count
                        #expect(logged - sent <= limit, "cut at \(limit): \(logged - sent) requests")
                        sent = logged
                        try await expectToReadIsExact(p, cut.report)
                    }
                    let done = try await syncJSON(p)
                    #expect(done.status == 0, "\(done.stderr)")
                    #expect(done.report["to_read"] as? [Any] != nil && toRead(done.report).isEmpty, "\(done.report)")
                    let total = try await webRequests(s).count
                    // The figures of docs/PERFORMANCE.md's "Requests per command".
                    print("resume: first sync cut by --max-requests \(cuts) and completed: \(total) requests; uninterrupted: \(cost)")
                    #expect(Double(total) <= Double(cost) * 1.05, "cut at \(cuts) and completed: \(total) requests; one first sync: \(cost)")
                    try await expectCacheEqualsSandbox(p)
                }
            }
        }
    }

    @Test func aFirstSyncCutByTheDailyQuotaKeepsWhatTheUserNeedsFirstAndTheNextDayFinishesIt() async throws {
        let s = try await setUp("medium", ["--daily-quota", "100000", "--quota-reason"])
        try await withCleanup({ await s.cleanUp() }) {
            #expect(try await syncJSON(s).status == 0)
            let firstSync = try #require(try await s.sandbox.quota()["used"] as? Int)
            try await s.sandbox.control("POST", "quota", json: #"{"limit":\#(firstSync / 2),"reset":true}"#)

            let p = try await freshProfile(s)
            try await withCleanup({ p.cli.remove() }) {
                let cut = try await syncJSON(p)
                #expect(cut.status == 3, "\(cut.stderr)")
                #expect(cut.stderr.contains("Spotify asks timbre to wait "), "\(cut.stderr)")
                #expect(cut.report["status"] as? String == "partial", "\(cut.report)")
                let day1 = try await s.sandbox.quota()
                let used1 = try #require(day1["used"] as? Int), refused1 = try #require(day1["refused"] as? Int)
                try await expectToReadIsExact(p, cut.report)

                // What the user needs first is stored: Liked Songs whole, and no followed playlist
                // before every own one; the rest is to read in that order too.
                try await expectLikedMatchesSandbox(p)
                let missing = toRead(cut.report)
                let playlists = try await playlistOwnership(p)
                let own = Set(playlists.filter(\.own).map(\.id))
                let followedRead = playlists.filter { !$0.own && !missing.contains($0.id) }.map(\.id)
                #expect(followedRead.isEmpty || own.isDisjoint(with: missing), "followed read \(followedRead) while own ones are to read: \(missing)")
                let lastOwn = missing.lastIndex { own.contains($0) }, firstFollowed = missing.firstIndex { !own.contains($0) && $0 != "liked" }
                if let lastOwn, let firstFollowed { #expect(lastOwn < firstFollowed, "to_read in reading order: \(missing)") }

                // The next day (the wait forgotten, as after the sandbox's day): the sync finishes,
                // within 5 % of one uninterrupted first sync counted by the quota.
                #expect(try await p.cli.run(["quota", "--reset"]).status == 0)
                let left = try #require(day1["seconds_left"] as? Int)
                try await s.sandbox.advanceClock(milliseconds: (left + 1) * 1000)
                try await s.sandbox.control("POST", "quota", json: #"{"limit":\#(firstSync * 2)}"#)
                let done = try await syncJSON(p)
                #expect(done.status == 0, "\(done.stderr)")
                #expect(done.report["to_read"] as? [Any] != nil && toRead(done.report).isEmpty, "\(done.report)")
                let used2 = try #require(try await s.sandbox.quota()["used"] as? Int)
                print(
                    "resume: first sync cut by the quota at \(firstSync / 2): \(used1) counted + \(refused1) refused, completed with \(used2); uninterrupted: \(firstSync)"
                )
                #expect(
                    Double(used1 + used2) <= Double(firstSync) * 1.05,
                    "cut by the quota (\(used1) counted, \(refused1) refused in flight) and completed (\(used2)); one first sync: \(firstSync)")
                try await expectCacheEqualsSandbox(p)
            }
        }
    }

    @Test func aPlaylistChangedSinceTheCutIsReadAgainWholeAndAnUnchangedOneOnlyForWhatItLacks() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            try await s.sandbox.clearRequests()
            #expect(try await syncJSON(s).status == 0)
            let cost = try await webRequests(s).count
            let p = try await freshProfile(s)
            try await withCleanup({ p.cli.remove() }) {
                // Cut until two playlists of several pages are part-read (a later cut reads on).
                var partial: [(id: String, read: Int, total: Int)] = []
                var limit = cost / 3
                for _ in 0..<6 where partial.count < 2 {
                    let cut = try await syncJSON(p, ["--max-requests", "\(limit)"])
                    #expect(cut.status == 3, "\(cut.stderr)")
                    partial = []
                    for id in toRead(cut.report) where id != "liked" {
                        if let read = await readSoFar(p, id), read.read > 0, read.read < read.total, read.total > 100 {
                            partial.append((id, read.read, read.total))
                        }
                    }
                    limit = 12
                }
                try #require(partial.count >= 2, "no two playlists part-read after the cuts")
                let changed = partial[0], unchanged = partial[1]
                _ = try await s.sandbox.mutate(playlist: changed.id, action: "append")

                try await s.sandbox.clearRequests()
                let done = try await syncJSON(p)
                #expect(done.status == 0, "\(done.stderr)")
                let log = try await webRequests(s)
                func offsets(_ id: String) -> [Int] {
                    log.filter { $0.path == "/v1/playlists/\(id)/items" }.compactMap { record in
                        URLComponents(string: "x:?" + record.query)?.queryItems?.first { $0.name == "offset" }?.value.flatMap { Int($0) }
                    }
                }
                // Its snapshot changed: its kept pages are of another version, and it is read whole.
                let pagesChanged = (changed.total + 1 + 49) / 50
                #expect(Set(offsets(changed.id)) == Set((0..<pagesChanged).map { $0 * 50 }), "\(offsets(changed.id))")
                // Unchanged: only the pages it lacked, never its first one again.
                let pagesUnchanged = (unchanged.total + 49) / 50
                #expect(!offsets(unchanged.id).contains(0), "\(offsets(unchanged.id))")
                #expect(offsets(unchanged.id).count <= pagesUnchanged - unchanged.read / 50, "\(unchanged): \(offsets(unchanged.id))")
                try await expectCacheEqualsSandbox(p)
            }
        }
    }
}
