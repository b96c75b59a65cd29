import Foundation
import Testing

@testable import SandboxCore

/// Follows and likes: `/me/library`, its `contains`, `/playlists/{id}/followers`, `/me/tracks`.
@Suite struct LibraryWriteTests {
    @Test func unfollowHidesAPlaylistAndFollowBringsItBackFirst() throws {
        let client = WriteClient()
        let editorial = try client.playlist { $0.owner == 1 }
        let listed = client.listedPlaylists()
        let uri = "spotify:playlist:\(editorial.id)"
        #expect(client.get("/v1/me/library/contains?uris=\(uri)").json as? [Bool] == [true])

        let unfollow = client.call("DELETE", "/v1/me/library?uris=\(uri)")
        #expect(unfollow.status == 200 && unfollow.body.isEmpty)
        #expect(client.listedPlaylists() == listed.filter { $0 != editorial.id })
        #expect(client.get("/v1/me/playlists").object["total"] as? Int == 8)
        #expect(client.get("/v1/me/library/contains?uris=\(uri)").json as? [Bool] == [false])
        #expect(client.get("/v1/playlists/\(editorial.id)").status == 200)
        #expect(client.model(editorial.id)["followed"] as? Bool == false)
        let dump = client.control("GET", "library?include_items=false").object
        #expect((dump["unfollowed"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [editorial.id])
        #expect(client.call("DELETE", "/v1/me/library?uris=\(uri)").status == 200)  // again: nothing to do

        #expect(client.call("PUT", "/v1/me/library?uris=\(uri)").status == 200)
        #expect(client.listedPlaylists() == [editorial.id] + listed.filter { $0 != editorial.id })
        #expect(client.model(editorial.id)["followed"] as? Bool == true)
        #expect(client.get("/v1/me/library/contains?uris=\(uri)").json as? [Bool] == [true])
    }

    /// Through `/playlists/{id}/followers`, which only extended-quota apps keep since 2026.
    @Test func anUnfollowedOwnPlaylistStaysEditableByID() throws {
        let client = WriteClient { $0.developmentMode = false }
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        #expect(client.call("DELETE", "/v1/playlists/\(playlist.id)/followers").status == 200)
        #expect(!client.listedPlaylists().contains(playlist.id))
        #expect(client.call("POST", "/v1/playlists/\(playlist.id)/items", json: WriteClient.urisBody([client.trackURI(3)])).status == 201)
        #expect(client.entries(playlist.id).last == client.trackURI(3))
        #expect(client.call("PUT", "/v1/playlists/\(playlist.id)/followers", json: #"{"public":false}"#).status == 200)
        #expect(client.listedPlaylists().first == playlist.id)
        #expect(client.call("PUT", "/v1/playlists/0000000000000000000000/followers").message == "Resource not found")
    }

    @Test func aFollowOfAnUnknownPlaylistChangesNothing() throws {
        let client = WriteClient()
        let editorial = try client.playlist { $0.owner == 1 }
        let listed = client.listedPlaylists()
        let answer = client.call("DELETE", "/v1/me/library?uris=spotify:playlist:\(editorial.id),spotify:playlist:0000000000000000000000")
        #expect(answer.status == 404 && answer.message == "Resource not found")
        #expect(client.listedPlaylists() == listed)
    }

    @Test func likesGoOnTopOnceAndUnlikesRemove() throws {
        let client = WriteClient()
        let before = client.liked()
        #expect(before.count == 50)
        let (a, b, c) = (client.trackURI(400), client.trackURI(401), client.trackURI(402))
        #expect(!before.contains(a) && !before.contains(b) && !before.contains(c))
        #expect(client.get("/v1/me/tracks?limit=2").items.count == 2)  // kept, and must not be served after the write

        #expect(client.call("PUT", "/v1/me/library?uris=\(a),\(b)").status == 200)
        #expect(client.liked() == [a, b] + before)
        let page = client.get("/v1/me/tracks?limit=2")
        #expect(page.object["total"] as? Int == 52)
        #expect(page.items.map { ($0["track"] as? [String: Any])?["uri"] as? String ?? "" } == [a, b])
        #expect(page.items.map { $0["added_at"] as? String ?? "" } == [WriteClient.nowText, WriteClient.nowText])
        #expect(client.get("/v1/me/library/contains?uris=\(a),\(b),\(c)").json as? [Bool] == [true, true, false])

        // Liking again moves nothing and adds nothing; an old like stays where it is.
        #expect(client.call("PUT", "/v1/me/library?uris=\(b),\(before[5])").status == 200)
        #expect(client.liked() == [a, b] + before)

        #expect(client.call("DELETE", "/v1/me/library?uris=\(a)").status == 200)
        #expect(client.liked() == [b] + before)
        #expect(client.get("/v1/me/library/contains?uris=\(a),\(b)").json as? [Bool] == [false, true])
    }

    @Test func episodesAreSavedApartFromLikedSongs() throws {
        let client = WriteClient()
        let episode = "spotify:episode:" + client.library.pool.episodeID(3)
        #expect(client.call("PUT", "/v1/me/library?uris=\(episode)").status == 200)
        #expect(client.liked().count == 50)
        let saved = client.control("GET", "liked").object["saved_episodes"] as? [[String: Any]] ?? []
        #expect(saved.map { $0["uri"] as? String ?? "" } == [episode])
        #expect(client.get("/v1/me/library/contains?uris=\(episode)").json as? [Bool] == [true])
        #expect(client.call("DELETE", "/v1/me/library?uris=\(episode)").status == 200)
        #expect(client.get("/v1/me/library/contains?uris=\(episode)").json as? [Bool] == [false])
    }

    @Test func libraryLimitsAndBadURIs() throws {
        let client = WriteClient()
        let fortyURIs = (0..<40).map { client.trackURI(300 + $0) }
        let liked = Set(client.liked())
        // Two of them happen to be liked in the generated library (tracks 324 and 325).
        #expect(fortyURIs.filter(liked.contains) == [client.trackURI(324), client.trackURI(325)])
        let forty = fortyURIs.joined(separator: ",")
        #expect(
            client.get("/v1/me/library/contains?uris=\(forty)").json as? [Bool] == fortyURIs.map { $0 == client.trackURI(324) || $0 == client.trackURI(325) })
        let many = forty + "," + client.trackURI(399)
        #expect(client.call("PUT", "/v1/me/library?uris=\(many)").message == "Too many ids requested")
        #expect(client.get("/v1/me/library/contains?uris=\(many)").message == "Too many ids requested")
        #expect(client.call("PUT", "/v1/me/library?uris=spotify:track:xyz").message == "Invalid uri: spotify:track:xyz")
        let album = "spotify:album:" + client.library.pool.albumID(1)
        #expect(client.call("PUT", "/v1/me/library?uris=\(album)").message == "Unsupported uri: \(album)")
        #expect(client.get("/v1/me/library/contains?uris=\(album)").json as? [Bool] == [false])
        #expect(client.call("PUT", "/v1/me/library").message == "Missing uris")
        // The body may carry them instead of the query.
        #expect(client.call("PUT", "/v1/me/library", json: WriteClient.urisBody([client.trackURI(398)])).status == 200)
        #expect(client.liked().first == client.trackURI(398))
        #expect(client.liked().count == 51)
    }

    /// Only extended-quota apps keep them since 2026 (SpotifyRulesTests: 403 in development mode).
    @Test func theOlderTracksEndpointsTakeUpToFiftyIDs() throws {
        let client = WriteClient { $0.developmentMode = false }
        let ids = (0..<3).map { client.library.pool.trackID(500 + $0) }
        #expect(client.call("PUT", "/v1/me/tracks?ids=\(ids.joined(separator: ","))").status == 200)
        #expect(Array(client.liked().prefix(3)) == ids.map { "spotify:track:\($0)" })
        #expect(client.get("/v1/me/tracks/contains?ids=\(ids[0]),\(client.library.pool.trackID(510))").json as? [Bool] == [true, false])
        #expect(client.call("DELETE", "/v1/me/tracks", json: #"{"ids":["\#(ids[1])"]}"#).status == 200)
        #expect(client.liked().count == 52 && !client.liked().contains("spotify:track:\(ids[1])"))
        let fiftyOne = (0..<51).map { client.library.pool.trackID($0) }.joined(separator: ",")
        #expect(client.call("PUT", "/v1/me/tracks?ids=\(fiftyOne)").message == "Too many ids requested")
        #expect(client.call("PUT", "/v1/me/tracks?ids=bad").message == "Invalid base62 id")
    }

    @Test func likesNeedUserLibraryModifyAndFollowsAPlaylistScope() throws {
        let client = WriteClient { $0.developmentMode = false }  // /me/tracks included
        let editorial = try client.playlist { $0.owner == 1 }
        let track = client.trackURI(450)
        let playlistsOnly = client.signIn(scopes: ["playlist-modify-private", "user-library-read"])
        #expect(client.call("PUT", "/v1/me/library?uris=\(track)", token: playlistsOnly).message == "Insufficient client scope")
        #expect(client.call("PUT", "/v1/me/tracks?ids=\(client.library.pool.trackID(450))", token: playlistsOnly).message == "Insufficient client scope")
        #expect(client.get("/v1/me/library/contains?uris=\(track)").json as? [Bool] == [false])
        #expect(client.call("DELETE", "/v1/me/library?uris=spotify:playlist:\(editorial.id)", token: playlistsOnly).status == 200)

        let libraryOnly = client.signIn(scopes: ["user-library-modify"])
        #expect(client.call("PUT", "/v1/me/library?uris=spotify:playlist:\(editorial.id)", token: libraryOnly).message == "Insufficient client scope")
        // All or nothing: the track in the same request is not liked either.
        #expect(client.call("PUT", "/v1/me/library?uris=\(track),spotify:playlist:\(editorial.id)", token: libraryOnly).status == 403)
        #expect(client.liked().count == 50)
        #expect(client.call("PUT", "/v1/me/library?uris=\(track)", token: libraryOnly).status == 200)
        #expect(client.liked().first == track)
    }
}
