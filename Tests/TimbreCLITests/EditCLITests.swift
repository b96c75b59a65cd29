import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Edits through the CLI (in-process) against the sandbox, which has Spotify's write semantics;
/// every test asserts what the SERVER holds afterwards, not only the cache.
extension SyncCLITests {
    /// The signed-in user's own playlist with the most entries (and no null entries), and its entries.
    func ownPlaylist(_ s: Setup) async throws -> (id: String, entries: [String]) {
        let model = try await s.sandbox.library()
        let own = (model["playlists"] as? [[String: Any]] ?? []).filter {
            ($0["owner_id"] as? String) == s.sandbox.info.userID && ($0["collaborative"] as? Bool) == false
        }
        var best: (String, [String])?
        for playlist in own {
            guard let id = playlist["id"] as? String else { continue }
            let entries = try await s.sandbox.entries(of: id)
            if !entries.contains(""), entries.count > (best?.1.count ?? 3) { best = (id, entries) }
        }
        let found = try #require(best, "the sandbox user owns a playlist with entries")
        return (found.0, found.1)
    }

    /// `remove --position N --uri U` together: exactly entry N (counting from 1), and every copy of U.
    @Test func removeTakesPositionsAndURIsTogether() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let track = original[2]
            #expect(await s.cli.invoke(["playlist", "add", id, track]).status == 0)
            let removed = await s.cli.invoke(["playlist", "remove", id, "--position", "1", "--uri", track, "--json"])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect((parse(removed.stdout) as? [String: Any])?["removed"] as? Int == 1 + (original + [track]).filter { $0 == track }.count)
            var expected = original + [track]
            expected.remove(at: 0)
            expected.removeAll { $0 == track }
            #expect(try await s.sandbox.entries(of: id) == expected)
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == original + [track])
        }
    }

    /// A playlist holding entries Spotify cannot name (a null track, malformed ids): a move carries
    /// them along like any entry, and the edit does not cry "changed on Spotify" because of them.
    @Test func aMoveOverUnnamedEntriesKeepsThemAndWarnsOfNothing() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let model = try await s.sandbox.library(includeItems: false)
            let mine = (model["playlists"] as? [[String: Any]] ?? []).filter { ($0["owner_id"] as? String) == s.sandbox.info.userID }
            var found: (String, [String])?
            for playlist in mine {
                guard let id = playlist["id"] as? String else { continue }
                let entries = try await s.sandbox.entries(of: id)
                if entries.count > 3, entries.contains("") { found = (id, entries) }
            }
            let (id, before) = try #require(found, "the small library has a playlist with a null entry")
            let null = try #require(before.firstIndex(of: ""))
            // Move the entry after the null one to the top: the null entry moves down by one.
            // (Positions count from 1: the entry at index null + 1 is entry null + 2.)
            let moved = await s.cli.invoke(["playlist", "move", id, "--position", "\(null + 2)", "--to", "1"])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(!moved.stderr.contains("changed on Spotify"), "\(moved.stderr)")
            var expected = before
            expected.insert(expected.remove(at: null + 1), at: 0)
            #expect(try await s.sandbox.entries(of: id) == expected)
        }
    }

    @Test func editsLeaveExactlyWhatWasAskedOnTheServerAndUndoRestoresIt() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let track = original[0]

            // Two more copies of the first track, as entry 3 (index 2) and at the end: three copies.
            #expect(await s.cli.invoke(["playlist", "add", id, track, "--position", "3"]).status == 0)
            let added = await s.cli.invoke(["playlist", "add", id, track, "--json"])
            #expect(added.status == 0, "\(added.stderr)")
            #expect((parse(added.stdout) as? [String: Any])?["added"] as? Int == 1)
            var expected = original
            expected.insert(track, at: 2)
            expected.append(track)
            #expect(try await s.sandbox.entries(of: id) == expected)

            // Remove the middle copy only: the copies at 0 and at the end stay where they are.
            try await s.sandbox.clearRequests()
            let removed = await s.cli.invoke(["playlist", "remove", id, "--position", "3", "--json"])
            #expect(removed.status == 0, "\(removed.stderr)")
            expected.remove(at: 2)
            #expect(try await s.sandbox.entries(of: id) == expected)
            #expect(try await s.sandbox.writeRequests().count == 3, "remove every copy, put back the runs at 0 and at the end")

            // Move a range forward (entries 2–3 so that the first ends as entry 4), then one backward.
            #expect(await s.cli.invoke(["playlist", "move", id, "--position", "2-3", "--to", "4"]).status == 0)
            let range = Array(expected[1...2])
            expected.removeSubrange(1...2)
            expected.insert(contentsOf: range, at: 3)
            #expect(try await s.sandbox.entries(of: id) == expected)
            #expect(await s.cli.invoke(["playlist", "move", id, "--position", "\(expected.count)", "--to", "1"]).status == 0)
            expected.insert(expected.removeLast(), at: 0)
            #expect(try await s.sandbox.entries(of: id) == expected)

            // The cache holds what Spotify holds, without a sync.
            let cached = (parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
            #expect(cached == expected)

            // Five undos take the playlist back to exactly what it was; redo re-applies the first.
            for _ in 0..<5 {
                let undo = await s.cli.invoke(["undo"])
                #expect(undo.status == 0, "\(undo.stderr)")
            }
            #expect(try await s.sandbox.entries(of: id) == original)
            let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(history.count == 5 && history.allSatisfy { $0["state"] as? String == "undone" }, "\(history)")
            #expect(await s.cli.invoke(["redo"]).status == 0)
            var redone = original
            redone.insert(track, at: 2)
            #expect(try await s.sandbox.entries(of: id) == redone)
        }
    }

    @Test func aConflictWritesNothingAndForceEditsTheEntryMeant() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // Someone changes the playlist on Spotify after the sync.
            _ = try await s.sandbox.mutate(playlist: id, action: "remove_first")
            let changed = try await s.sandbox.entries(of: id)
            try await s.sandbox.clearRequests()
            let conflict = await s.cli.invoke(["playlist", "remove", id, "--position", "3"])
            #expect(conflict.status == 6, "\(conflict.stderr)")
            #expect(conflict.stderr.contains("changed on Spotify"))
            #expect(try await s.sandbox.writeRequests().isEmpty)
            #expect(try await s.sandbox.entries(of: id) == changed)
            // --force removes the entry the user saw as entry 3 (index 2; now at index 1).
            let forced = await s.cli.invoke(["playlist", "remove", id, "--position", "3", "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            var expected = changed
            let meant = original[2]
            let index = try #require(
                expected.indices.first {
                    expected[$0] == meant && original.prefix(2).filter { $0 == meant }.count == expected.prefix($0).filter { $0 == meant }.count
                })
            expected.remove(at: index)
            #expect(try await s.sandbox.entries(of: id) == expected)
        }
    }

    @Test func otherUsersPlaylistsExitSevenAndALostAnswerAddsOnce() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let model = try await s.sandbox.library(includeItems: false)
            let foreign = try #require(
                (model["playlists"] as? [[String: Any]] ?? []).first {
                    ($0["owner_id"] as? String) != s.sandbox.info.userID && ($0["collaborative"] as? Bool) == false
                }?["id"] as? String)
            let (id, original) = try await ownPlaylist(s)
            try await s.sandbox.clearRequests()
            let refused = await s.cli.invoke(["playlist", "add", foreign, original[0]])
            #expect(refused.status == 7, "\(refused.stderr)")
            #expect(refused.stderr.contains("belongs to"))
            #expect(try await s.sandbox.writeRequests().isEmpty)

            // The add is applied, and its answer never arrives: timbre reads, sees it, and does not resend.
            try await s.sandbox.addFaults([Fault(kind: .applyThenReset, method: "POST", pathContains: "/v1/playlists/\(id)/items")])
            let add = await s.cli.invoke(["playlist", "add", id, original[1]])
            #expect(add.status == 0, "\(add.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original + [original[1]], "added exactly once")
        }
    }

    @Test func likesAndDeletesAreUndoableAndDryRunsWriteNothing() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let likedBefore = try await s.sandbox.likedURIs()
            let fresh = original.first { !likedBefore.contains($0) && $0.hasPrefix("spotify:track:") }
            let track = try #require(fresh)

            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["like", track, "--dry-run"]).status == 0)
            #expect(await s.cli.invoke(["playlist", "remove", id, "--position", "1", "--dry-run"]).status == 0)
            #expect(try await s.sandbox.writeRequests().isEmpty, "a dry run sends no write")

            #expect(await s.cli.invoke(["like", track]).status == 0)
            #expect(try await s.sandbox.likedURIs().first == track)
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.likedURIs() == likedBefore)

            let noTerminal = await s.cli.invoke(["playlist", "delete", id])
            #expect(noTerminal.status == 2, "deleting without a terminal needs --yes")
            #expect(await s.cli.invoke(["playlist", "delete", id, "--yes"]).status == 0)
            #expect(try await !s.sandbox.followedPlaylistIDs().contains(id))
            #expect(!(parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []).contains { $0["id"] as? String == id })
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.followedPlaylistIDs().contains(id))
            #expect(try await s.sandbox.entries(of: id) == original, "following again loses nothing")
        }
    }

    @Test func aSignInWithoutEditScopesIsToldToSignInAgain() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let readOnly = try await s.sandbox.mintRefreshToken(scope: "playlist-read-private playlist-read-collaborative user-library-read")
            #expect(await s.cli.invoke(["sync", "--quiet"], environment: ["TIMBRE_REFRESH_TOKEN": readOnly]).status == 0, "reads keep working")
            let (id, original) = try await ownPlaylist(s)
            try await s.sandbox.clearRequests()
            let edit = await s.cli.invoke(["playlist", "add", id, original[0]], environment: ["TIMBRE_REFRESH_TOKEN": readOnly])
            #expect(edit.status == 4, "\(edit.stderr)")
            #expect(edit.stderr.contains("sign in again to allow editing"))
            #expect(try await s.sandbox.writeRequests().isEmpty)
        }
    }

    @Test func createAndEditDetailsThenUndoBoth() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let hostile = "Road \u{1B}]0;pwned\u{07}Trip'); DROP TABLE playlist;--"
            let created = await s.cli.invoke(["playlist", "create", hostile, "--description", "for the car", "--private"])
            #expect(created.status == 0, "\(created.stderr)")
            let id = created.stdout.trimmingCharacters(in: .newlines)
            #expect(id.count == 22, "the new id on stdout: \(created.stdout)")
            var info = try await s.sandbox.playlistInfo(id)
            #expect(info.name == hostile && info.description == "for the car" && !info.isPublic && info.followed)
            let listing = await s.cli.invoke(["playlists"])
            #expect(listing.stdout.contains(id) && !listing.stdout.contains("\u{1B}"), "listed at once, shown inert")

            #expect(await s.cli.invoke(["playlist", "edit", id, "--name", "Road Trip", "--public"]).status == 0)
            info = try await s.sandbox.playlistInfo(id)
            #expect(info.name == "Road Trip" && info.isPublic && info.description == "for the car")
            let nothing = await s.cli.invoke(["playlist", "edit", id])
            #expect(nothing.status == 2)

            #expect(await s.cli.invoke(["undo"]).status == 0)
            info = try await s.sandbox.playlistInfo(id)
            #expect(info.name == hostile && !info.isPublic, "the old details are back")
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await !s.sandbox.followedPlaylistIDs().contains(id), "undo of a creation unfollows it")
            #expect(await s.cli.invoke(["redo"]).status == 0)
            #expect(try await s.sandbox.followedPlaylistIDs().contains(id))
        }
    }

    @Test func searchFindsTracksPageByPageAndAnAlbumAddsAllItsTracks() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // 25 results need three requests of 10 in development mode.
            try await s.sandbox.clearRequests()
            let found = await s.cli.invoke(["search", "a", "--limit", "25", "--json"])
            #expect(found.status == 0, "\(found.stderr)")
            let items = parse(found.stdout) as? [[String: Any]] ?? []
            #expect(items.count == 25)
            #expect(items.allSatisfy { ($0["uri"] as? String)?.hasPrefix("spotify:track:") == true && $0["position"] == nil })
            #expect(try await s.sandbox.requests().filter { $0.path == "/v1/search" }.count == 3)
            #expect(await s.cli.invoke(["search", "a", "--type", "artist"]).status == 2)

            let albums = parse(await s.cli.invoke(["search", "a", "--type", "album", "--limit", "1", "--json"]).stdout) as? [[String: Any]] ?? []
            let album = try #require(albums.first?["id"] as? String)
            let tracks = parse(await s.cli.invoke(["api", "albums/\(album)/tracks?limit=50"]).stdout) as? [String: Any] ?? [:]
            let albumURIs = (tracks["items"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
            #expect(!albumURIs.isEmpty)
            #expect(await s.cli.invoke(["playlist", "add", id, "spotify:album:\(album)"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == original + albumURIs, "the album's tracks, in album order, at the end")
        }
    }

    @Test func aServerWithoutItemsTakesTheWritesOnTracks() async throws {
        let s = try await setUp("small", ["--legacy"])
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let moved = await s.cli.invoke(["playlist", "move", id, "--position", "1", "--to", "2"])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(try await s.sandbox.entries(of: id) == [original[1], original[0]] + original.dropFirst(2))
            #expect(try await s.sandbox.writeRequests().contains { $0.path.hasSuffix("/tracks") && $0.status == 200 })
        }
    }
}
