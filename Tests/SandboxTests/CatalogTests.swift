import Foundation
import Testing

@testable import SandboxCore

/// `GET /search`, `/tracks/{id}`, `/albums/{id}/tracks`.
@Suite struct CatalogTests {
    @Test func searchLimitIsTenInDevelopmentModeAndFiftyOtherwise() throws {
        let dev = WriteClient()
        let tooMany = dev.get("/v1/search?q=the&type=track&limit=11")
        #expect(tooMany.status == 400)
        #expect(tooMany.text == #"{"error":{"status":400,"message":"Invalid limit"}}"#)
        let ten = dev.get("/v1/search?q=the&type=track&limit=10")
        #expect(ten.status == 200)
        let tracks = try #require(ten.object["tracks"] as? [String: Any])
        #expect(tracks["limit"] as? Int == 10 && (tracks["items"] as? [Any])?.count == 10)
        #expect((dev.get("/v1/search?q=the&type=track").object["tracks"] as? [String: Any])?["limit"] as? Int == 5)

        let quota = WriteClient { $0.developmentMode = false }
        #expect(quota.get("/v1/search?q=the&type=track&limit=50").status == 200)
        #expect(quota.get("/v1/search?q=the&type=track&limit=51").message == "Invalid limit")
        #expect((quota.get("/v1/search?q=the&type=track").object["tracks"] as? [String: Any])?["limit"] as? Int == 20)
    }

    @Test func searchRefusesWhatItCannotAnswer() {
        let client = WriteClient()
        #expect(client.get("/v1/search?type=track").message == "No search query")
        #expect(client.get("/v1/search?q=a").message == "Missing parameter type")
        #expect(client.get("/v1/search?q=a&type=track,artist").message == "Bad search type field artist")
        #expect(client.get("/v1/search?q=a&type=track&offset=1001").message == "Invalid offset")
    }

    @Test func fieldFiltersNarrowTracksByNameArtistAndYear() throws {
        let client = WriteClient { $0.developmentMode = false }
        let pool = client.library.pool
        let target = pool.track(200)
        let name = target.name.lowercased(), artist = target.artists[0].name.lowercased()
        let query = "track:\"\(target.name)\" artist:\"\(target.artists[0].name)\""
        let answer = client.get("/v1/search?type=track&limit=50&q=" + FormEncoding.escape(query))
        let tracks = try #require(answer.object["tracks"] as? [String: Any])
        let expected = (0..<pool.trackCount).map(pool.track).filter { track in
            track.name.lowercased().contains(name) && track.artists.contains { $0.name.lowercased().contains(artist) }
        }
        #expect(expected.contains { $0.id == target.id })
        #expect(tracks["total"] as? Int == expected.count)
        #expect((tracks["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == expected.prefix(50).map(\.id))

        let year = Int(target.album.releaseDate.prefix(4)) ?? 0
        let byYear = client.get("/v1/search?type=album&limit=50&q=" + FormEncoding.escape("year:\(year - 1)-\(year)"))
        let albums = try #require(byYear.object["albums"] as? [String: Any])
        let expectedAlbums = (0..<pool.albumCount).map(pool.album).filter { (year - 1...year).contains(Int($0.releaseDate.prefix(4)) ?? 0) }
        #expect(albums["total"] as? Int == expectedAlbums.count)
        #expect((albums["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == expectedAlbums.prefix(50).map(\.id))
        if expectedAlbums.count > 50 {
            #expect(
                (albums["next"] as? String)?.hasSuffix("/v1/search?offset=50&limit=50&type=album&q=" + FormEncoding.escape("year:\(year - 1)-\(year)")) == true)
        } else {
            #expect(albums["next"] is NSNull)
        }
    }

    @Test func playlistsAreSearchedByNameAmongPublicOnes() throws {
        let client = WriteClient()
        let answer = client.get("/v1/search?q=HITS&type=playlist,track")
        #expect(Array(answer.object.keys).sorted() == ["playlists", "tracks"])
        let playlists = try #require(answer.object["playlists"] as? [String: Any])
        #expect((playlists["items"] as? [[String: Any]])?.map { $0["name"] as? String ?? "" } == ["Today's Top Hits"])
        // "Morning Coffee" is private: not found.
        #expect(((client.get("/v1/search?q=coffee&type=playlist").object["playlists"] as? [String: Any])?["total"] as? Int) == 0)
    }

    @Test func queriesParseWordsQuotesAndFilters() {
        let query = SearchQuery(parsing: #"Love track:"Night Drive" artist:Ana year:1990-1999 "two words" genre:x"#)
        #expect(query.words == ["love", "two words", "genre:x"])
        #expect(query.track == ["night drive"])
        #expect(query.artist == ["ana"])
        #expect(query.years == 1990...1999)
        #expect(SearchQuery(parsing: "year:2001").years == 2001...2001)
        #expect(SearchQuery(parsing: "   ").isEmpty)
    }

    @Test func tracksByIDIncludingOnesAddedThatThePoolLacks() throws {
        let client = WriteClient { $0.refuseUnknownIDs = false }
        let pool = client.library.pool
        let track = client.get("/v1/tracks/\(pool.trackID(42))")
        #expect(track.status == 200 && track.object["name"] as? String == pool.track(42).name)
        #expect(client.get("/v1/tracks/\(PlaylistWriteTests.foreignID)").message == "Resource not found")
        #expect(client.get("/v1/tracks/short").message == "Invalid base62 id")
        let playlist = try client.ownPlaylist(isPublic: false)
        #expect(
            client.call("POST", "/v1/playlists/\(playlist.id)/items", json: WriteClient.urisBody(["spotify:track:\(PlaylistWriteTests.foreignID)"])).status
                == 201)
        let added = client.get("/v1/tracks/\(PlaylistWriteTests.foreignID)")
        #expect(added.status == 200)
        #expect(added.object["name"] as? String == pool.foreignTrack(id: PlaylistWriteTests.foreignID).name)
        #expect(added.object["uri"] as? String == "spotify:track:\(PlaylistWriteTests.foreignID)")
    }

    @Test func albumTracksArePagedSimplifiedTracks() throws {
        let client = WriteClient()
        let album = try #require((0..<client.library.pool.albumCount).first { client.catalog.tracks(onAlbum: $0).count >= 3 })
        let expected = client.catalog.tracks(onAlbum: album).map(client.library.pool.trackID)
        let id = client.library.pool.albumID(album)
        let page = client.get("/v1/albums/\(id)/tracks?limit=2")
        #expect(page.status == 200)
        #expect(page.object["total"] as? Int == expected.count)
        #expect(page.items.compactMap { $0["id"] as? String } == Array(expected.prefix(2)))
        #expect(page.items.allSatisfy { $0["album"] == nil && $0["popularity"] == nil && $0["name"] is String })
        #expect(client.get("/v1/albums/\(id)/tracks?offset=2&limit=50").items.compactMap { $0["id"] as? String } == Array(expected.dropFirst(2)))
        #expect(client.get("/v1/albums/0000000000000000000000/tracks").message == "Resource not found")
        #expect(client.get("/v1/albums/x/tracks").message == "Invalid base62 id")
    }
}
