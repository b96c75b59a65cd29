import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Spotify as it really answers (issue: "no refusal jams the journal, no 404 empties the cache"):
/// a write Spotify refuses for good ends its edit as `failed` and is never resent; what Spotify
/// would refuse is refused before sending; an interrupted edit is finished by the next sync, or
/// abandoned; a 404 on one playlist's entries marks that playlist alone and never moves the sync
/// onto `/tracks`. Every test checks the sandbox's state and the requests it received.
extension SyncCLITests {
    /// The user's playlists, as the sandbox's model lists them.
    func sandboxPlaylists(_ s: Setup) async throws -> [[String: Any]] {
        (try await s.sandbox.library(includeItems: false))["playlists"] as? [[String: Any]] ?? []
    }

    /// The journal, newest first.
    func history(_ s: Setup) async -> [[String: Any]] {
        parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
    }

    /// A fault answering `status` to the next `method` request whose path holds `path`.
    func refuse(_ s: Setup, _ method: String, _ path: String, status: Int, count: Int = 1) async throws {
        var fault = Fault(kind: .status, pathContains: path, count: count, status: status)
        fault.method = method
        try await s.sandbox.addFaults([fault])
    }

    /// An add left `interrupted`: the process is killed (SIGKILL) while its POST waits for an
    /// answer — a 503, applying nothing, answered 10 s late. (A write that fails in front of a live
    /// process is settled there and then; only a process that died leaves an edit interrupted.)
    /// Requests time out after 2 s, so the next command waits at most that for it.
    func interruptedAdd(_ s: Setup, playlist id: String, track: String) async throws -> Int {
        try s.cli.configure(for: s.sandbox, extra: "request_timeout = 2")
        var refused = Fault(kind: .status, pathContains: "/v1/playlists/\(id)/items", count: 1, status: 503)
        refused.method = "POST"
        var late = Fault(kind: .latency, pathContains: "/v1/playlists/\(id)/items", count: 1, ms: 10_000)
        late.method = "POST"
        try await s.sandbox.addFaults([refused, late])
        try await runTimbreKilled(afterWrites: 1, on: s.sandbox, environment: s.cli.environment, ["playlist", "add", id, track])
        try await s.sandbox.clearFaults()
        let newest = try #require(await history(s).first)
        #expect(newest["state"] as? String == "interrupted")
        return try #require(newest["id"] as? Int)
    }

    @Test func aRefusedAddEndsAsFailedIsNeverResentAndTheNextEditWorks() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            try await refuse(s, "POST", "/v1/playlists/\(id)/items", status: 400)
            try await s.sandbox.clearRequests()
            let refused = await s.cli.invoke(["playlist", "add", id, original[0]])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("Spotify refused it (400"), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing of it was applied"), "\(refused.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original)
            let failed = try #require(await history(s).first)
            #expect(failed["state"] as? String == "failed")
            #expect((failed["reason"] as? String)?.contains("400") == true, "\(failed)")
            let text = await s.cli.invoke(["history"])
            #expect(text.stdout.contains("failed") && text.stdout.contains("Spotify refused it (400"), "\(text.stdout)")

            // Unrelated edits go on, and the refused write is not sent again by any of them.
            #expect(await s.cli.invoke(["playlist", "add", id, original[1]]).status == 0)
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let posts = try await s.sandbox.writeRequests().filter { $0.method == "POST" }
            #expect(posts.count == 2, "one refused add, one add: \(posts.map(\.path))")
            #expect(try await s.sandbox.entries(of: id) == original + [original[1]])
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == original)
        }
    }

    @Test func aRefusedLikeAndARefusedDetailsChangeDoNotJamTheJournal() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let liked = try await s.sandbox.likedURIs()
            let track = try #require(original.first { !liked.contains($0) && $0.hasPrefix("spotify:track:") })

            try await refuse(s, "PUT", "/v1/me/library", status: 400)
            let like = await s.cli.invoke(["like", track])
            #expect(like.status == 1, "\(like.stderr)")
            #expect(try await s.sandbox.likedURIs() == liked)

            try await refuse(s, "PUT", "/v1/playlists/\(id)", status: 403)
            let rename = await s.cli.invoke(["playlist", "edit", id, "--name", "Never"])
            #expect(rename.status == 7, "\(rename.stderr)")
            #expect(try await s.sandbox.playlistInfo(id).name != "Never")
            #expect(await history(s).prefix(2).allSatisfy { $0["state"] as? String == "failed" })

            // Both stay failed; the same commands without the fault succeed.
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["like", track]).status == 0)
            #expect(await s.cli.invoke(["playlist", "edit", id, "--name", "Renamed"]).status == 0)
            #expect(try await s.sandbox.likedURIs().contains(track))
            #expect(try await s.sandbox.playlistInfo(id).name == "Renamed")
            #expect(try await s.sandbox.writeRequests().count == 2)
        }
    }

    @Test func whatSpotifyWouldRefuseIsRefusedBeforeSending() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let playlists = try await sandboxPlaylists(s)
            let me = s.sandbox.info.userID
            let publicOwn = try #require(
                playlists.first {
                    $0["owner_id"] as? String == me && $0["public"] as? Bool == true && $0["collaborative"] as? Bool == false
                }?["id"] as? String)
            try await s.sandbox.clearRequests()

            // Collaborative only when private: refused whole, nothing sent, nothing journalled.
            let collaborative = await s.cli.invoke(["playlist", "edit", publicOwn, "--collaborative"])
            #expect(collaborative.status == 2, "\(collaborative.stderr)")
            #expect(collaborative.stderr.contains("collaborative playlists only when they are private"), "\(collaborative.stderr)")
            #expect(collaborative.stderr.contains("--private"))
            #expect(try await s.sandbox.writeRequests().isEmpty)
            #expect(await history(s).allSatisfy { $0["state"] as? String != "interrupted" })
            let both = await s.cli.invoke(["playlist", "edit", publicOwn, "--collaborative", "--private"])
            #expect(both.status == 0, "\(both.stderr)")
            let info = try await s.sandbox.playlistInfo(publicOwn)
            #expect(info.collaborative && !info.isPublic)

            // Someone else's collaborative playlist: its entries may change, its details not.
            if let shared = playlists.first(where: { $0["owner_id"] as? String != me && $0["collaborative"] as? Bool == true })?["id"] as? String {
                try await s.sandbox.clearRequests()
                let rename = await s.cli.invoke(["playlist", "edit", shared, "--name", "Mine now"])
                #expect(rename.status == 7, "\(rename.stderr)")
                #expect(rename.stderr.contains("only its owner change its name"), "\(rename.stderr)")
                #expect(try await s.sandbox.writeRequests().isEmpty)
                let before = try await s.sandbox.entries(of: shared)
                let track = try #require(try await s.sandbox.entries(of: try await ownPlaylist(s).id).first)
                #expect(await s.cli.invoke(["playlist", "add", shared, track]).status == 0)
                #expect(try await s.sandbox.entries(of: shared) == before + [track])
            } else {
                Issue.record("the small library has no collaborative playlist of another user")
            }
        }
    }

    @Test func aWrite404SaysThePlaylistIsGoneAndNeverTriesTracks() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            try await refuse(s, "POST", "/v1/playlists/\(id)/items", status: 404)
            try await s.sandbox.clearRequests()
            let add = await s.cli.invoke(["playlist", "add", id, original[0]])
            #expect(add.status == 1, "\(add.stderr)")
            #expect(add.stderr.contains("no longer exists on Spotify"), "\(add.stderr)")
            #expect(try await s.sandbox.requests().allSatisfy { !($0.path.hasPrefix("/v1/playlists/") && $0.path.hasSuffix("/tracks")) })
            #expect(try await s.sandbox.writeRequests().count == 1)
            #expect(await history(s).first?["state"] as? String == "failed")
            #expect(await s.cli.invoke(["playlist", "add", id, original[0]]).status == 0)
        }
    }

    @Test func anInterruptedEditRefusedOnResumptionFailsAndTheNewCommandGoesOn() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let stuck = try await interruptedAdd(s, playlist: id, track: original[0])
            #expect(try await s.sandbox.entries(of: id) == original)

            // Resuming it is refused for good: it fails, and the new add is made.
            try await refuse(s, "POST", "/v1/playlists/\(id)/items", status: 400)
            let next = await s.cli.invoke(["playlist", "add", id, original[1]])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.stderr.contains("edit \(stuck)") && next.stderr.contains("marked failed"), "\(next.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original + [original[1]])
            let entries = await history(s)
            #expect(entries.first { $0["id"] as? Int == stuck }?["state"] as? String == "failed")
            #expect(entries.first?["state"] as? String == "done")
        }
    }

    @Test func theNextSyncFinishesAnInterruptedEditBeforeReadingAnything() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let stuck = try await interruptedAdd(s, playlist: id, track: original[0])
            let listed = await s.cli.invoke(["history"])
            #expect(listed.stdout.contains("finished by the next sync or edit"), "\(listed.stdout)")

            let sync = await s.cli.invoke(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stderr.contains("finished edit \(stuck)"), "\(sync.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original + [original[0]])
            #expect(await history(s).first { $0["id"] as? Int == stuck }?["state"] as? String == "done")
            let cached = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(cached.compactMap { $0["uri"] as? String }.last == original[0])
        }
    }

    @Test func abandonEndsAnInterruptedEditAndSaysWhatItLeaves() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let stuck = try await interruptedAdd(s, playlist: id, track: original[0])
            try await s.sandbox.clearRequests()
            let abandon = await s.cli.invoke(["history", "--abandon", "\(stuck)"])
            #expect(abandon.status == 0, "\(abandon.stderr)")
            #expect(abandon.stdout.contains("Abandoned edit \(stuck)") && abandon.stdout.contains("none of its 1 writes was applied"), "\(abandon.stdout)")
            #expect(try await s.sandbox.writeRequests().isEmpty)
            let entry = await history(s).first { $0["id"] as? Int == stuck }
            #expect(entry?["state"] as? String == "failed")
            #expect((entry?["reason"] as? String)?.contains("abandoned") == true)
            // Nothing finishes it later.
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            #expect(try await s.sandbox.writeRequests().isEmpty)
            #expect(try await s.sandbox.entries(of: id) == original)
            // Only an interrupted edit can be abandoned.
            #expect(await s.cli.invoke(["playlist", "add", id, original[1]]).status == 0)
            let done = try #require(await history(s).first?["id"] as? Int)
            #expect(await s.cli.invoke(["history", "--abandon", "\(done)"]).status == 2)
        }
    }

    @Test func aPlaylistAnswering404IsMarkedAloneAndRetriedWithoutTracks() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let (id, original) = try await ownPlaylist(s)
            try await refuse(s, "GET", "/v1/playlists/\(id)/items", status: 404)
            let first = await s.cli.invoke(["sync", "--json"])
            // One of the user's own playlists stored without entries: not `ok`, and named.
            #expect(first.status == 3, "\(first.stderr)")
            let report = parse(first.stdout) as? [String: Any] ?? [:]
            #expect(report["status"] as? String == "partial")
            let name = try await s.sandbox.playlistInfo(id).name
            #expect((report["warnings"] as? [String] ?? []).contains { $0.contains(name) && $0.contains("a playlist of yours") }, "\(report)")
            #expect(try await s.sandbox.requests().allSatisfy { !($0.path.hasPrefix("/v1/playlists/") && $0.path.hasSuffix("/tracks")) })
            // Every other readable playlist is complete.
            for playlist in try await sandboxPlaylists(s) where playlist["readable_in_development_mode"] as? Bool == true {
                guard let other = playlist["id"] as? String, other != id else { continue }
                let cached = parse(await s.cli.invoke(["tracks", other, "--json"]).stdout) as? [[String: Any]] ?? []
                let expected = try await s.sandbox.playlistInfo(other).items.filter { $0.kind != "null" && $0.kind != "malformed" }
                #expect(cached.count == expected.count, "\(other)")
            }
            let listed = await s.cli.invoke(["playlists"])
            #expect(listed.stdout.contains("unavailable"), "\(listed.stdout)")

            // Nothing changed on Spotify, yet a plain sync reads it again and repairs it.
            let second = await s.cli.invoke(["sync", "--json"])
            #expect(second.status == 0, "\(second.stderr)")
            let cached = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(cached.compactMap { $0["uri"] as? String } == original.filter { !$0.isEmpty })
        }
    }

    /// The issue's "done when": a Spotify-owned playlist followed and one of the user's playlists
    /// deleted in the middle of the sync. Every readable playlist is stored complete, the
    /// unreadable ones are named, nothing goes to `/tracks`, nothing is answered 400.
    @Test func spotifyOwnedPlaylistsAndOneDeletedMidSyncLeaveEveryOtherPlaylistComplete() async throws {
        let s = try await setUp("small", ["--spotify-owned", "2"])
        try await withCleanup({ await s.cleanUp() }) {
            let playlists = try await sandboxPlaylists(s)
            let spotifys = playlists.filter { $0["spotify_owned"] as? Bool == true }
            #expect(spotifys.count == 2)
            let (victim, _) = try await ownPlaylist(s)
            // Deleted right before its own entries are asked for.
            try await s.sandbox.addFaults([Fault(kind: .deletePlaylist, pathContains: "/v1/playlists/\(victim)/items", count: 1, playlist: victim)])
            try await s.sandbox.clearRequests()
            let sync = await s.cli.invoke(["sync", "--json"])
            let report = parse(sync.stdout) as? [String: Any] ?? [:]
            let warnings = report["warnings"] as? [String] ?? []
            // The user's own playlist could not be stored: not `ok`, and it is named.
            #expect(sync.status == 3, "\(sync.stderr)")
            #expect(warnings.contains { $0.contains("a playlist of yours") }, "\(warnings)")
            for spotify in spotifys {
                let name = try #require(spotify["name"] as? String)
                #expect(warnings.contains { $0.contains(name) && $0.contains("Spotify does not let apps read its own playlists") }, "\(warnings)")
            }
            let requests = try await s.sandbox.requests()
            #expect(requests.allSatisfy { !($0.path.hasPrefix("/v1/playlists/") && $0.path.hasSuffix("/tracks")) })
            #expect(requests.allSatisfy { $0.status != 400 }, "\(requests.filter { $0.status == 400 }.map { $0.path + "?" + $0.query })")
            // Every readable playlist, complete.
            for playlist in playlists where playlist["readable_in_development_mode"] as? Bool == true {
                guard let id = playlist["id"] as? String, id != victim else { continue }
                let cached = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
                let expected = try await s.sandbox.playlistInfo(id).items.filter { $0.kind != "null" && $0.kind != "malformed" }
                #expect(cached.compactMap { $0["uri"] as? String } == expected.compactMap(\.uri), "\(id)")
            }
            let listed = await s.cli.invoke(["playlists", "--json"])
            let rows = parse(listed.stdout) as? [[String: Any]] ?? []
            for spotify in spotifys {
                let row = rows.first { $0["id"] as? String == spotify["id"] as? String }
                #expect(row?["unavailable"] as? String == "Spotify does not let apps read its own playlists", "\(String(describing: row))")
            }
            // The next sync sees the deletion in the listing: the playlist leaves the cache, all is well.
            let again = await s.cli.invoke(["sync", "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(!(await s.cli.invoke(["playlists"]).stdout.contains(victim)))
        }
    }

    /// Spotify refuses an add whole when it does not know one of the ids ("Payload contains a
    /// non-existing ID"): the unknown id is named, nothing is added, the journal does not jam —
    /// from `playlist add` and from `import` of an Exportify file holding such an id.
    @Test func anAddOfAnIdSpotifyDoesNotHaveIsRefusedWholeAndNamed() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let bogus = "spotify:track:0000000000000000000000"
            let add = await s.cli.invoke(["playlist", "add", id, original[0], bogus])
            #expect(add.status == 2, "\(add.stderr)")
            #expect(add.stderr.contains("Spotify does not know this item: \(bogus)"), "\(add.stderr)")
            #expect(add.stderr.contains("nothing was added"), "\(add.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original)
            #expect(await history(s).first?["state"] as? String == "failed")

            #expect(await s.cli.invoke(["playlist", "add", id, original[0]]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == original + [original[0]])

            let csv = FileManager.default.temporaryDirectory.appendingPathComponent("exportify-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: csv) }
            try Data(
                """
                "Track URI","Track Name","Artist Name(s)","Album Name","Track Duration (ms)"\r
                "\(original[1])","One","Someone","Somewhere","200000"\r
                "\(bogus)","Two","Nobody","Nowhere","180000"\r

                """.utf8
            ).write(to: csv)
            let imported = await s.cli.invoke(["import", csv.path, "--into", id])
            #expect(imported.status == 2, "\(imported.stderr)")
            #expect(imported.stderr.contains(bogus), "\(imported.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original + [original[0]])
            #expect(await s.cli.invoke(["playlist", "add", id, original[1]]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == original + [original[0], original[1]])
        }
    }
}
