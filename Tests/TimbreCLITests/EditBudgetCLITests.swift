import Foundation
import Testing
import TimbreTestSupport

/// What an edit sends when the cache is current (issue #33 item 1): one read of the playlist's
/// snapshot, then the writes, then nothing — the cache after the edit is derived from the plan.
/// Each test asserts the sandbox's request log (method and path, in order), the sandbox's state,
/// and the cache against the sandbox.
extension SyncCLITests {
    /// The `/v1` requests the sandbox logged since it was last cleared, as "METHOD /path".
    func apiRequests(_ s: Setup) async throws -> [String] {
        try await s.sandbox.requests().filter { $0.path.hasPrefix("/v1/") }.map { "\($0.method) \($0.path)" }
    }

    /// The cache's entries of a playlist, as `timbre tracks --json` lists them.
    func cachedEntries(_ s: Setup, _ id: String) async -> [[String: Any]] {
        parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
    }

    /// The cache's snapshot of a playlist, as `timbre playlists --json` lists it.
    func cachedSnapshot(_ s: Setup, _ id: String) async -> String? {
        let playlists = parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []
        return playlists.first { $0["id"] as? String == id }?["snapshot_id"] as? String
    }

    /// The cache holds what the sandbox holds for `id`: its entries in order and its snapshot — so
    /// a sync that follows fetches nothing for it.
    func expectCacheMatchesSandbox(_ s: Setup, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let server = try await s.sandbox.entries(of: id)
        let cached = await cachedEntries(s, id).map { $0["uri"] as? String ?? "" }
        #expect(cached == server, "the cache's entries are the sandbox's", sourceLocation: sourceLocation)
        let snapshot = try await s.sandbox.playlistInfo(id).snapshotID
        #expect(await cachedSnapshot(s, id) == snapshot, "the cache is stamped with the sandbox's snapshot", sourceLocation: sourceLocation)
    }

    @Test func anEditOnACurrentCacheReadsTheSnapshotWritesAndReadsNothingMore() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let probe = "GET /v1/playlists/\(id)", items = "/v1/playlists/\(id)/items"

            // `J`: entry 1 moves down one place. The snapshot, the move: two requests.
            try await s.sandbox.clearRequests()
            let moved = await s.cli.invoke(["playlist", "move", id, "--position", "1", "--to", "2"])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(try await apiRequests(s) == [probe, "PUT \(items)"])
            #expect(try await s.sandbox.requests().first { $0.path.hasPrefix("/v1/") }?.query.contains("fields=snapshot_id") == true)
            var expected = original
            expected.swapAt(0, 1)
            #expect(try await s.sandbox.entries(of: id) == expected)
            try await expectCacheMatchesSandbox(s, id)

            // An add of a track the cache knows: the snapshot, the add. Its entry is named in the
            // cache at once, added now.
            let track = original[2]
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["playlist", "add", id, track]).status == 0)
            #expect(try await apiRequests(s) == [probe, "POST \(items)"])
            expected.append(track)
            #expect(try await s.sandbox.entries(of: id) == expected)
            try await expectCacheMatchesSandbox(s, id)
            let last = await cachedEntries(s, id).last
            #expect(last?["name"] as? String == (await cachedEntries(s, id))[2]["name"] as? String)
            #expect((last?["added_at"] as? String)?.isEmpty == false)

            // One copy of a duplicated track: the snapshot, the removal of every copy, the re-add of
            // the kept one.
            try await s.sandbox.clearRequests()
            let removed = await s.cli.invoke(["playlist", "remove", id, "--position", "\(expected.count)"])
            #expect(removed.status == 0, "\(removed.stderr)")
            expected.removeLast()
            // One add per run of the copies kept (one run when the track had no other copy).
            let kept = expected.indices.filter { expected[$0] == track }
            let runs = kept.indices.filter { $0 == 0 || kept[$0] != kept[$0 - 1] + 1 }.count
            #expect(try await apiRequests(s) == [probe, "DELETE \(items)"] + Array(repeating: "POST \(items)", count: runs))
            #expect(try await s.sandbox.entries(of: id) == expected)
            try await expectCacheMatchesSandbox(s, id)

            // The snapshots agree, so a sync reads none of the playlist's entries.
            try await s.sandbox.clearRequests()
            let sync = await s.cli.invoke(["sync", "--json"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(((parse(sync.stdout) as? [String: Any])?["playlists"] as? [String: Any])?["updated"] as? Int == 0, "\(sync.stdout)")
            #expect(try await apiRequests(s).filter { $0.hasSuffix(items) }.isEmpty)
        }
    }

    @Test func aTrackTheCacheHasNeverSeenIsNamedFromTheCatalogNotFromTheWholeList() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // A catalogue track in none of the library's lists (so in no cached one), nor in Liked Songs.
            let model = try await s.sandbox.library()
            let listed = (model["playlists"] as? [[String: Any]] ?? []).flatMap { ($0["items"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String } }
            let cachedURIs = Set(listed + (try await s.sandbox.likedURIs()))
            let hits = parse(await s.cli.invoke(["search", "a", "--limit", "50", "--json"]).stdout) as? [[String: Any]] ?? []
            let fresh = try #require(hits.first { !cachedURIs.contains($0["uri"] as? String ?? "") && !original.contains($0["uri"] as? String ?? "") })
            let uri = try #require(fresh["uri"] as? String)
            try await s.sandbox.clearRequests()
            let added = await s.cli.invoke(["playlist", "add", id, uri, "--position", "2"])
            #expect(added.status == 0, "\(added.stderr)")
            let trackID = String(uri.dropFirst("spotify:track:".count))
            #expect(try await apiRequests(s) == ["GET /v1/playlists/\(id)", "POST /v1/playlists/\(id)/items", "GET /v1/tracks/\(trackID)"])
            var expected = original
            expected.insert(uri, at: 1)
            #expect(try await s.sandbox.entries(of: id) == expected)
            try await expectCacheMatchesSandbox(s, id)
            let entry = await cachedEntries(s, id)[1]
            #expect(entry["name"] as? String == fresh["name"] as? String, "named as the catalogue names it")
        }
    }

    @Test func anEditAfterAChangeElsewhereReadsTheLiveListAndLandsOnTheEntryMeant() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // Someone removes the first entry on Spotify after the sync: every position moves up.
            _ = try await s.sandbox.mutate(playlist: id, action: "remove_first")
            let changed = try await s.sandbox.entries(of: id)
            #expect(changed == Array(original.dropFirst()))
            try await s.sandbox.clearRequests()
            // The user saw entry 3 (index 2); it is now at index 1.
            let forced = await s.cli.invoke(["playlist", "remove", id, "--position", "3", "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            let logged = try await apiRequests(s)
            let meant = original[2]
            let writes = logged.filter { !$0.hasPrefix("GET") }
            #expect(
                logged.prefix(2) == ["GET /v1/playlists/\(id)", "GET /v1/playlists/\(id)/items"],
                "the snapshot differs from the cache's: the live list is read, \(logged)")
            #expect(logged.filter { $0 == "GET /v1/playlists/\(id)" }.count == 2, "the snapshot, and the details after the entries")
            #expect(writes.first == "DELETE /v1/playlists/\(id)/items")
            var expected = changed
            let index = try #require(
                expected.indices.first {
                    expected[$0] == meant && original.prefix(2).filter { $0 == meant }.count == expected.prefix($0).filter { $0 == meant }.count
                })
            expected.remove(at: index)
            #expect(try await s.sandbox.entries(of: id) == expected)
            try await expectCacheMatchesSandbox(s, id)
        }
    }
}
