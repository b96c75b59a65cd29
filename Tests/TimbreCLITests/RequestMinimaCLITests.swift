import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Commands at the API's minimum (issue #42 item 7): each test counts the requests in the
/// sandbox's log and checks what the sandbox and the cache hold afterwards.
extension SyncCLITests {
    /// Liked Songs as the sandbox holds them and as the cache lists them: `position uri @ added_at`
    /// (entries the cache cannot keep — `item: null`, malformed ids — left out of both).
    func likedPair(_ s: Setup) async throws -> (server: [String], cached: [String]) {
        let server = try await s.sandbox.likedEntries().filter { !["null", "malformed"].contains($0.kind) }.map {
            "\($0.position) \($0.uri ?? "") @ \($0.addedAt ?? "null")"
        }
        let cached = (parse(await s.cli.invoke(["tracks", "liked", "--json"]).stdout) as? [[String: Any]] ?? []).map {
            // `tracks --json` numbers entries from 1.
            "\(($0["position"] as? Int ?? 0) - 1) \($0["uri"] as? String ?? "") @ \($0["added_at"] as? String ?? "null")"
        }
        return (server, cached)
    }

    func expectLikedMatchesSandbox(_ s: Setup, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (server, cached) = try await likedPair(s)
        #expect(!server.isEmpty, sourceLocation: sourceLocation)
        let first = zip(cached, server).first { $0 != $1 }.map { "cached \($0.0), sandbox \($0.1)" } ?? "counts \(cached.count), \(server.count)"
        #expect(
            cached == server, "the cached Liked Songs are the sandbox's (items, order, added_at): first difference \(first)", sourceLocation: sourceLocation)
    }

    /// Tracks of the user's playlists that are not liked, `count` of them.
    func unlikedTracks(_ s: Setup, _ count: Int) async throws -> [String] {
        let liked = Set(try await s.sandbox.likedURIs())
        let (_, entries) = try await ownPlaylist(s)
        var seen = Set<String>()
        let fresh = entries.filter { $0.hasPrefix("spotify:track:") && !liked.contains($0) && seen.insert($0).inserted }
        try #require(fresh.count >= count)
        return Array(fresh.prefix(count))
    }

    @Test func likeUnlikeUndoAndRedoCostAtMostTwoRequestsAndKeepLikedSongsAsSpotifyHasThem() async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            try await expectLikedMatchesSandbox(s)
            let tracks = try await unlikedTracks(s, 2)
            let contains = "GET /v1/me/library/contains", put = "PUT /v1/me/library", delete = "DELETE /v1/me/library"
            // After a like, the top of Liked Songs as Spotify holds it: the entries just liked,
            // with the `added_at` Spotify gave them.
            let top = "GET /v1/me/tracks"

            // One like of a track the cached Liked Songs lacks: the like, then its entry read back
            // (was: `contains`, the like, every page of Liked Songs and `GET /me` — 19 requests).
            try await s.sandbox.clearRequests()
            let liked = await s.cli.invoke(["like", tracks[0]])
            #expect(liked.status == 0, "\(liked.stderr)")
            #expect(try await apiRequests(s) == [put, top])
            #expect(try await s.sandbox.likedURIs().first == tracks[0])
            try await expectLikedMatchesSandbox(s)

            // The cache's Liked Songs carry the fingerprint Spotify's first page now has: a sync
            // after the like reads that one page and nothing more of the list.
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            #expect(try await apiRequests(s).filter { $0 == "GET /v1/me/tracks" }.count == 1)

            // A second like: the same two requests.
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["like", tracks[1]]).status == 0)
            #expect(try await apiRequests(s) == [put, top])
            try await expectLikedMatchesSandbox(s)

            // Its undo: one request; its redo: the like and its entry read back.
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await apiRequests(s) == [delete])
            #expect(try await !s.sandbox.likedURIs().contains(tracks[1]))
            try await expectLikedMatchesSandbox(s)
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["redo"]).status == 0)
            #expect(try await apiRequests(s) == [put, top])
            #expect(try await s.sandbox.likedURIs().first == tracks[1])
            try await expectLikedMatchesSandbox(s)

            // An unlike of a song deep in the list, and its undo (it comes back on top, added now).
            let deep = try await s.sandbox.likedURIs().filter { $0.hasPrefix("spotify:track:") }[300]
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["unlike", deep]).status == 0)
            #expect(try await apiRequests(s) == [contains, delete])
            #expect(try await !s.sandbox.likedURIs().contains(deep))
            try await expectLikedMatchesSandbox(s)
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await apiRequests(s) == [put, top])
            #expect(try await s.sandbox.likedURIs().first == deep)
            try await expectLikedMatchesSandbox(s)

            // A sync after all that finds Liked Songs unchanged.
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            #expect(try await apiRequests(s).filter { $0 == "GET /v1/me/tracks" }.count == 1)
            try await expectLikedMatchesSandbox(s)
        }
    }

    @Test func finishingAnInterruptedLikeSendsOnlyTheChunksNotConfirmed() async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            // 41 likes: two chunks (40 + 1). The second one's answer comes 3 s after it was
            // applied; the process is killed while it waits, the first chunk confirmed.
            let tracks = try await unlikedTracks(s, 41)
            var slow = Fault(kind: .latency, pathContains: "/v1/me/library", count: 1, ms: 3000)
            slow.method = "PUT"
            slow.every = 2
            try await s.sandbox.addFaults([slow])
            #expect(try await runKilledAfter(s, writes: 2, ["like"] + tracks))
            try await s.sandbox.clearFaults()

            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let puts = try await apiRequests(s).filter { $0 == "PUT /v1/me/library" }
            #expect(puts.count == 1, "only the chunk whose answer never came is sent again")
            let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(history.first?["state"] as? String == "done")
            #expect(Set(try await s.sandbox.likedURIs().prefix(41)) == Set(tracks))
            try await expectLikedMatchesSandbox(s)
        }
    }

    /// `timbre backup -o FILE` of a synced library, the sandbox's request log cleared just before:
    /// the file, and what the command said.
    func backUp(_ s: Setup) async throws -> (file: String, result: CLIResult) {
        #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
        let file = s.cli.home.appendingPathComponent("backup.json").path
        try await s.sandbox.clearRequests()
        let backup = await s.cli.invoke(["backup", "-o", file])
        #expect(backup.status == 0, "\(backup.stderr)")
        return (file, backup)
    }

    @Test func aBackupTakesTheDescriptionsFromTheListingNotOneRequestPerPlaylist() async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            let (file, _) = try await backUp(s)
            let requests = try await apiRequests(s)
            // The no-change sync (the listing's two pages, Liked Songs' first page), `GET /me`,
            // and the listing's two pages again for the descriptions: was 66 (62 of them
            // `GET /playlists/{id}?fields=description`).
            #expect(!requests.contains { $0.hasPrefix("GET /v1/playlists/") }, "\(requests)")
            #expect(requests.count <= 6, "\(requests)")
            let data = try #require(FileManager.default.contents(atPath: file))
            let playlists = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["playlists"] as? [[String: Any]] ?? []
            #expect(playlists.count > 10)
            var described = 0
            for playlist in playlists {
                let id = try #require(playlist["id"] as? String)
                // Spotify answers descriptions HTML-escaped; the backup keeps the text as typed.
                let server = (try await s.sandbox.playlistInfo(id).description ?? "").replacingOccurrences(of: "&amp;", with: "&")
                let saved = playlist["description"] as? String ?? ""
                if !server.isEmpty { described += 1 }
                #expect(saved == server, "the description of \(id) is the sandbox's")
            }
            #expect(described > 0, "the library has descriptions to back up")
        }
    }

    @Test func aSyncAsksForTheUserOnceAndAForcedOneLeavesOutPlaylistsKnownUnreadable() async throws {
        let s = try await setUp("medium", ["--spotify-owned", "3"])
        try await withCleanup({ await s.cleanUp() }) {
            let model = try await s.sandbox.library(includeItems: false)
            let unreadable = (model["playlists"] as? [[String: Any]] ?? []).filter {
                ($0["spotify_owned"] as? Bool) == true
                    || (($0["owner_id"] as? String) != s.sandbox.info.userID && ($0["collaborative"] as? Bool) != true)
            }.compactMap { $0["id"] as? String }
            try #require(unreadable.count >= 3)
            func asked(_ requests: [String]) -> [String] {
                requests.filter { request in unreadable.contains { request.contains("/v1/playlists/\($0)") } }
            }

            let first = await s.cli.invoke(["sync", "--quiet"])
            #expect(first.status == 0, "\(first.stderr)")
            let firstRequests = try await apiRequests(s)
            #expect(firstRequests.filter { $0 == "GET /v1/me" }.count == 1, "one `GET /me` a sync")
            #expect(!asked(firstRequests).isEmpty, "a first sync finds out which playlists it cannot read")

            try await s.sandbox.clearRequests()
            let forced = await s.cli.invoke(["sync", "--force", "--quiet"])
            #expect(forced.status == 0, "\(forced.stderr)")
            let forcedRequests = try await apiRequests(s)
            #expect(asked(forcedRequests).isEmpty, "\(asked(forcedRequests))")
            #expect(forcedRequests.filter { $0 == "GET /v1/me" }.count <= 1)
            #expect(forcedRequests.contains { $0.hasSuffix("/items") }, "the readable playlists are read again")
        }
    }
}
