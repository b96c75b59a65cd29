import Foundation
import Testing

@testable import SandboxCore

/// What Spotify refuses a development-mode app in 2026, as the sandbox answers it (docs/SANDBOX.md
/// "Spotify's rules" names the source of each).
@Suite struct SpotifyRulesTests {
    /// The Spotify-owned playlists of a small library served with `--spotify-owned 3`, from the dump.
    static func spotifyOwnedIDs(_ client: WriteClient) -> [String] {
        let dump = client.control("GET", "library?include_items=false").object
        return (dump["playlists"] as? [[String: Any]] ?? []).filter { $0["spotify_owned"] as? Bool == true }.compactMap { $0["id"] as? String }
    }

    @Test func spotifyOwnedPlaylistsAreListedButAnswer404() throws {
        let client = WriteClient { $0.spotifyOwned = 3 }
        let owned = Self.spotifyOwnedIDs(client)
        #expect(owned.count == 3)
        // Listed in /me/playlists, after the generated ones, with Spotify as the owner.
        let page = client.get("/v1/me/playlists?limit=50")
        #expect(page.object["total"] as? Int == 12)
        #expect(Array(client.listedPlaylists().suffix(3)) == owned)
        let listed = page.items.first { $0["id"] as? String == owned[0] }
        #expect((listed?["owner"] as? [String: Any])?["id"] as? String == "spotify")
        #expect(listed?["name"] as? String == "Discover Weekly")
        for id in owned {
            for path in ["/v1/playlists/\(id)", "/v1/playlists/\(id)/items", "/v1/playlists/\(id)/items?limit=50&offset=0"] {
                let answer = client.get(path)
                #expect(answer.status == 404, "\(path)")
                #expect(answer.message == "Resource not found")
            }
            // The removed /tracks endpoint answers its own 403 first.
            #expect(client.get("/v1/playlists/\(id)/tracks").status == 403)
            // A write cannot reach it either.
            let add = client.call("POST", "/v1/playlists/\(id)/items", json: WriteClient.urisBody([client.trackURI(3)]))
            #expect(add.status == 404)
        }
        let model = client.model(owned[0])
        #expect(model["readable_in_development_mode"] as? Bool == false)
        #expect(model["owner_id"] as? String == "spotify")
        #expect((model["items"] as? [Any])?.isEmpty == false)
        // Following and unfollowing through /me/library still work (the app only lists them).
        #expect(client.call("DELETE", "/v1/me/library?uris=spotify:playlist:\(owned[1])").status == 200)
        #expect(!client.listedPlaylists().contains(owned[1]))
    }

    @Test func spotifyOwnedPlaylistsAreOffByDefaultAndReadableWithExtendedQuota() throws {
        #expect(Self.spotifyOwnedIDs(WriteClient()).isEmpty)
        let extended = WriteClient {
            $0.spotifyOwned = 2
            $0.developmentMode = false
        }
        for id in Self.spotifyOwnedIDs(extended) {
            #expect(extended.get("/v1/playlists/\(id)").status == 200)
            #expect(extended.get("/v1/playlists/\(id)/items?limit=50").status == 200)
        }
        // The pre-2026 API in development mode: /tracks is the endpoint, and it answers 404 too.
        let legacy = WriteClient {
            $0.spotifyOwned = 1
            $0.legacy = true
        }
        let id = try #require(Self.spotifyOwnedIDs(legacy).first)
        #expect(legacy.get("/v1/playlists/\(id)/tracks?limit=100").status == 404)
        #expect(legacy.get("/v1/playlists/\(id)").status == 404)
    }

    @Test func spotifyOwnedLibrariesAreTheSameEveryRun() {
        var first = Library(size: .medium, seed: 7)
        var second = Library(size: .medium, seed: 7)
        first.addSpotifyOwned(count: 12)
        second.addSpotifyOwned(count: 12)
        #expect(first.playlists.map(\.id) == second.playlists.map(\.id))
        #expect(first.playlists.map(\.snapshotID) == second.playlists.map(\.snapshotID))
        #expect(Set(first.playlists.map(\.id)).count == 72)
        #expect(first.playlists.last?.name == "Release Radar (2)")
    }

    @Test func aDeletePlaylistFaultMakesThePlaylistVanishMidSync() throws {
        let client = WriteClient()
        let target = try client.ownPlaylist(minimum: 3)
        #expect(client.control("POST", "faults", json: #"{"faults":[{"kind":"delete_playlist"}]}"#).status == 400)
        let fault = #"{"faults":[{"kind":"delete_playlist","playlist":"\#(target.id)","path_contains":"/v1/","every":3}]}"#
        #expect(client.control("POST", "faults", json: fault).status == 200)
        // The first two API requests see it; the third deletes it before it is handled.
        #expect(client.listedPlaylists().contains(target.id))
        #expect(client.get("/v1/playlists/\(target.id)/items?limit=50").status == 200)
        let third = client.get("/v1/playlists/\(target.id)/items?limit=50")
        #expect(third.status == 404)
        #expect(third.message == "Resource not found")
        #expect(!client.listedPlaylists().contains(target.id))
        #expect(client.get("/v1/playlists/\(target.id)").status == 404)
        #expect(client.control("GET", "playlists/\(target.id)").status == 404)
        #expect((client.control("GET", "faults").object["faults"] as? [Any])?.isEmpty == true)
    }

    @Test func collaborativeIsOnlyForNonPublicPlaylists() throws {
        let client = WriteClient()
        let message = "You can only set collaborative to true on non-public playlists"
        let create = client.call("POST", "/v1/me/playlists", json: #"{"name":"Both","public":true,"collaborative":true}"#)
        #expect(create.status == 400 && create.message == message)
        let listed = client.listedPlaylists()
        #expect(listed.count == 9, "nothing was created")
        let mine = try client.ownPlaylist(isPublic: true)
        let details = client.call("PUT", "/v1/playlists/\(mine.id)", json: #"{"collaborative":true}"#)
        #expect(details.status == 400 && details.message == message)
        #expect(client.model(mine.id)["collaborative"] as? Bool == false && client.model(mine.id)["public"] as? Bool == true)
        // Private and collaborative in one request is fine.
        #expect(client.call("PUT", "/v1/playlists/\(mine.id)", json: #"{"public":false,"collaborative":true}"#).status == 200)
        #expect(client.model(mine.id)["collaborative"] as? Bool == true)
    }

    @Test func onlyTheOwnerChangesDetailsWhileCollaboratorsEditEntries() throws {
        let client = WriteClient()
        let shared = try client.playlist { $0.collaborative && $0.owner != 0 }
        let details = client.call("PUT", "/v1/playlists/\(shared.id)", json: #"{"name":"Ours now"}"#)
        #expect(details.status == 403)
        #expect(details.message == "You cannot change details of a playlist you don't own.")
        #expect(client.model(shared.id)["name"] as? String == shared.name)
        let add = client.call("POST", "/v1/playlists/\(shared.id)/items", json: WriteClient.urisBody([client.trackURI(7)]))
        #expect(add.status == 201)
        let move = client.call("PUT", "/v1/playlists/\(shared.id)/items", json: #"{"range_start":0,"insert_before":3}"#)
        #expect(move.status == 200)
        #expect(client.call("DELETE", "/v1/playlists/\(shared.id)/items", json: WriteClient.itemsBody([client.trackURI(7)])).status == 200)
    }

    @Test func anAddWithAnUnknownIDIsRefusedWhole() throws {
        let client = WriteClient()
        let mine = try client.ownPlaylist(isPublic: false, minimum: 3)
        let before = client.entries(mine.id)
        let snapshot = client.snapshot(mine.id)
        let unknown = "spotify:track:\(PlaylistWriteTests.foreignID)"
        for (method, body) in [
            ("POST", WriteClient.urisBody([client.trackURI(9), unknown])),
            ("PUT", WriteClient.urisBody([unknown])),
            ("POST", WriteClient.urisBody(["spotify:episode:\(PlaylistWriteTests.foreignID)"])),
        ] {
            let answer = client.call(method, "/v1/playlists/\(mine.id)/items", json: body)
            #expect(answer.status == 400, "\(method) \(body)")
            #expect(answer.text == #"{"error":{"status":400,"message":"Payload contains a non-existing ID"}}"#)
        }
        let query = client.call("POST", "/v1/playlists/\(mine.id)/items?uris=\(unknown)")
        #expect(query.message == "Payload contains a non-existing ID")
        #expect(client.entries(mine.id) == before)
        #expect(client.snapshot(mine.id) == snapshot)
        // Catalogue tracks, episodes and local files are taken.
        let known = [client.trackURI(9), "spotify:episode:" + client.library.pool.episodeID(0)]
        #expect(client.call("POST", "/v1/playlists/\(mine.id)/items", json: WriteClient.urisBody(known)).status == 201)
        #expect(client.entries(mine.id) == before + known)
    }

    @Test func itemsLimitAbove50IsRefused() throws {
        let client = WriteClient()
        let mine = try client.ownPlaylist(minimum: 3)
        let refused = client.get("/v1/playlists/\(mine.id)/items?limit=51")
        #expect(refused.status == 400)
        #expect(refused.text == #"{"error":{"status":400,"message":"Invalid limit"}}"#)
        #expect(client.get("/v1/playlists/\(mine.id)/items?limit=100").status == 400)
        #expect(client.get("/v1/playlists/\(mine.id)/items?limit=50").status == 200)
    }

    @Test func aBodilessWriteWithoutContentLengthIs411() throws {
        let client = WriteClient()
        let uri = client.trackURI(11)
        func bare(_ method: String, _ headers: [String: String]) -> SandboxResponse {
            client.service.handle(
                SandboxRequest(
                    method: method, path: "/v1/me/library", query: "uris=\(uri)",
                    headers: ["authorization": "Bearer \(client.token)"].merging(headers) { $1 }),
                now: WriteClient.now)
        }
        let liked = client.liked()
        for method in ["PUT", "DELETE"] {
            let answer = bare(method, [:])
            #expect(answer.status == 411, "\(method)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("\(method) requests require a <code>Content-length</code> header"))
            #expect(client.liked() == liked)
        }
        #expect(bare("PUT", ["content-length": "0"]).status == 200)
        #expect(client.liked().first == uri)
        #expect(bare("DELETE", ["transfer-encoding": "chunked"]).status == 200)
        #expect(client.liked() == liked)
        // Reads need no length; the request log says what each write carried.
        #expect(client.get("/v1/me").status == 200)
        let log = client.control("GET", "requests").json as? [[String: Any]] ?? []
        let writes = log.filter { $0["path"] as? String == "/v1/me/library" }
        #expect(writes.map { $0["status"] as? Int } == [411, 411, 200, 200])
        #expect(writes.map { $0["content_length"] as? String } == [nil, nil, "0", nil])
        // Off: the old, kinder front end.
        let lenient = WriteClient { $0.requireContentLength = false }
        let answer = lenient.service.handle(
            SandboxRequest(
                method: "PUT", path: "/v1/me/library", query: "uris=\(uri)",
                headers: ["authorization": "Bearer \(lenient.token)"]), now: WriteClient.now)
        #expect(answer.status == 200)
    }

    @Test func tracksEndpointsAre403InDevelopmentMode() throws {
        let client = WriteClient()
        let mine = try client.ownPlaylist(isPublic: false, minimum: 3)
        let before = client.entries(mine.id)
        let body = WriteClient.urisBody([client.trackURI(12)])
        #expect(client.get("/v1/playlists/\(mine.id)/tracks?limit=50").status == 403)
        for (method, json) in [("POST", body), ("PUT", body), ("DELETE", WriteClient.itemsBody([before[0]]))] {
            let answer = client.call(method, "/v1/playlists/\(mine.id)/tracks", json: json)
            #expect(answer.status == 403 && answer.message == "Forbidden", "\(method)")
        }
        #expect(client.entries(mine.id) == before)
        let extended = WriteClient { $0.developmentMode = false }
        #expect(extended.call("POST", "/v1/playlists/\(mine.id)/tracks", json: body).status == 201)
        #expect(extended.get("/v1/playlists/\(mine.id)/tracks?limit=100").status == 200)
    }

    @Test func typeSpecificLibraryEndpointsAreGoneInDevelopmentMode() throws {
        let client = WriteClient()
        let mine = try client.ownPlaylist(isPublic: false, minimum: 3)
        let id = client.library.pool.trackID(450)
        let liked = client.liked()
        for (method, target) in [
            ("PUT", "/v1/me/tracks?ids=\(id)"), ("DELETE", "/v1/me/tracks?ids=\(id)"), ("GET", "/v1/me/tracks/contains?ids=\(id)"),
            ("PUT", "/v1/playlists/\(mine.id)/followers"), ("DELETE", "/v1/playlists/\(mine.id)/followers"),
            ("POST", "/v1/users/sandbox_user/playlists"),
        ] {
            let answer = client.call(method, target, json: method == "POST" ? #"{"name":"x"}"# : nil)
            #expect(answer.status == 403 && answer.message == "Forbidden", "\(method) \(target)")
        }
        #expect(client.liked() == liked)
        #expect(client.listedPlaylists().count == 9)
        // Liked Songs are still read through GET /me/tracks.
        #expect(client.get("/v1/me/tracks?limit=5").status == 200)
        let extended = WriteClient { $0.developmentMode = false }
        #expect(extended.call("PUT", "/v1/me/tracks?ids=\(id)").status == 200)
        #expect(extended.get("/v1/me/tracks/contains?ids=\(id)").json as? [Bool] == [true])
    }
}
