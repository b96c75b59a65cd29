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
}
