import Foundation
import Testing

@testable import SandboxCore

/// Add, remove, reorder, replace, create and details, in process (small library, seed 42).
@Suite struct PlaylistWriteTests {
    /// A well-formed track id the pool does not have.
    static let foreignID = "4uLU6hMCjMI75M1A2tKUQC"

    @Test func addInsertsAtThePositionWith201AndANewSnapshot() throws {
        // `--accept-unknown-ids`: the foreign id is taken (by default it is Spotify's 400).
        let client = WriteClient { $0.refuseUnknownIDs = false }
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let before = client.entries(playlist.id)
        let snapshot = client.snapshot(playlist.id)
        // Kept answers from before the write must not be served after it.
        #expect(client.get("/v1/playlists/\(playlist.id)/items?limit=5").object["total"] as? Int == before.count)
        #expect(client.get("/v1/playlists/\(playlist.id)?fields=snapshot_id").object["snapshot_id"] as? String == snapshot)

        let added = [client.trackURI(100), "spotify:track:\(Self.foreignID)"]
        let answer = client.call("POST", "/v1/playlists/\(playlist.id)/items", json: WriteClient.urisBody(added, extra: "\"position\":2"))
        #expect(answer.status == 201)
        let newSnapshot = try #require(answer.object["snapshot_id"] as? String)
        #expect(Set(answer.object.keys) == ["snapshot_id"])
        #expect(newSnapshot != snapshot)
        #expect(client.snapshot(playlist.id) == newSnapshot)
        #expect(client.entries(playlist.id) == Array(before[0..<2]) + added + Array(before[2...]))

        let page = client.get("/v1/playlists/\(playlist.id)/items?limit=5")
        #expect(page.object["total"] as? Int == before.count + 2)
        let items = page.items
        #expect(items.map { ($0["item"] as? [String: Any])?["uri"] as? String ?? "" } == Array(before[0..<2]) + added + [before[2]])
        #expect(items[2]["added_at"] as? String == WriteClient.nowText)
        #expect(items[3]["added_at"] as? String == WriteClient.nowText)
        #expect((items[2]["added_by"] as? [String: Any])?["id"] as? String == "sandbox_user")
        let foreign = try #require(items[3]["item"] as? [String: Any])
        #expect(foreign["id"] as? String == Self.foreignID)
        #expect(foreign["name"] as? String == client.library.pool.foreignTrack(id: Self.foreignID).name)
        #expect((items[2]["item"] as? [String: Any])?["name"] as? String == client.library.pool.track(100).name)
        #expect(client.get("/v1/playlists/\(playlist.id)?fields=snapshot_id").object["snapshot_id"] as? String == newSnapshot)

        // With no position the items go at the end; episodes and local files are playlist items too.
        let episode = "spotify:episode:" + client.library.pool.episodeID(2)
        let local = "spotify:local:Some+Artist:Tapes:A+Song:200"
        #expect(client.call("POST", "/v1/playlists/\(playlist.id)/items", json: WriteClient.urisBody([episode, local])).status == 201)
        #expect(Array(client.entries(playlist.id).suffix(2)) == [episode, local])
        let last = try #require((client.model(playlist.id)["items"] as? [[String: Any]])?.last)
        #expect(last["kind"] as? String == "local" && last["name"] as? String == "A Song" && last["added_at"] as? String == WriteClient.nowText)
    }

    @Test func addRefusesTooManyURIsBadPositionsAndBadURIs() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let before = client.entries(playlist.id)
        let snapshot = client.snapshot(playlist.id)
        let path = "/v1/playlists/\(playlist.id)/items"

        let many = (0..<101).map { client.trackURI(50 + $0) }
        let tooMany = client.call("POST", path, json: WriteClient.urisBody(many))
        #expect(tooMany.status == 400)
        #expect(tooMany.text == #"{"error":{"status":400,"message":"You can add a maximum of 100 tracks per request."}}"#)
        let past = client.call("POST", path, json: WriteClient.urisBody([client.trackURI(1)], extra: "\"position\":\(before.count + 1)"))
        #expect(past.status == 400 && past.message == "Index out of bounds")
        #expect(client.call("POST", path, json: WriteClient.urisBody([client.trackURI(1)], extra: "\"position\":-1")).message == "Index out of bounds")
        let bad = client.call("POST", path, json: WriteClient.urisBody([client.trackURI(1), "spotify:track:short"]))
        #expect(bad.status == 400 && bad.message == "Invalid track uri: spotify:track:short")
        #expect(
            client.call("POST", path, json: WriteClient.urisBody(["spotify:playlist:\(playlist.id)"])).message
                == "Invalid track uri: spotify:playlist:\(playlist.id)")
        #expect(client.call("POST", path, json: "").message == "Missing uris")
        #expect(client.call("POST", path, json: #"{"uris":"spotify:track:x"}"#).message == "Error parsing JSON.")
        #expect(client.entries(playlist.id) == before)
        #expect(client.snapshot(playlist.id) == snapshot)

        // 100 is allowed, and position = count appends.
        #expect(client.call("POST", path, json: WriteClient.urisBody(Array(many.prefix(100)), extra: "\"position\":\(before.count)")).status == 201)
        #expect(client.entries(playlist.id) == before + many.prefix(100))
        // `uris` in the query wins over the body's.
        let query = client.call("POST", path + "?uris=\(client.trackURI(7)),\(client.trackURI(8))", json: WriteClient.urisBody([client.trackURI(9)]))
        #expect(query.status == 201)
        #expect(Array(client.entries(playlist.id).suffix(2)) == [client.trackURI(7), client.trackURI(8)])
    }

    @Test func aPlaylistHoldsAtMostTenThousandEntries() throws {
        let client = WriteClient { $0.library = .large }
        let full = try client.playlist { $0.entries.count == 10_000 }
        #expect(full.owner == 0)
        let answer = client.call("POST", "/v1/playlists/\(full.id)/items", json: WriteClient.urisBody([client.trackURI(1)]))
        #expect(answer.status == 400 && answer.message == "Playlist size limit reached")
        #expect(client.model(full.id)["track_count"] as? Int == 10_000)
    }

    @Test func removeTakesEveryCopyOfEachURIAndIgnoresPositions() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let path = "/v1/playlists/\(playlist.id)/items"
        let (x, y, z, w) = (client.trackURI(20), client.trackURI(21), client.trackURI(22), client.trackURI(23))
        let replaced = client.call("PUT", path, json: WriteClient.urisBody([x, y, x, z, x]))
        #expect(replaced.status == 200)
        let replacedSnapshot = try #require(replaced.object["snapshot_id"] as? String)
        #expect(client.entries(playlist.id) == [x, y, x, z, x])

        let removed = client.call("DELETE", path, json: #"{"items":[{"uri":"\#(x)","positions":[0]}],"snapshot_id":"\#(replacedSnapshot)"}"#)
        #expect(removed.status == 200)
        let removedSnapshot = try #require(removed.object["snapshot_id"] as? String)
        #expect(removedSnapshot != replacedSnapshot)
        #expect(client.entries(playlist.id) == [y, z])
        #expect(client.get("/v1/playlists/\(playlist.id)/items").object["total"] as? Int == 2)

        // A URI the playlist lacks changes nothing but the snapshot.
        #expect(client.call("DELETE", path, json: WriteClient.itemsBody([y, w, y])).status == 200)
        #expect(client.entries(playlist.id) == [z])
        let many = client.call("DELETE", path, json: WriteClient.itemsBody((0..<101).map { client.trackURI($0) }))
        #expect(many.status == 400 && many.message == "You can remove a maximum of 100 tracks per request.")
        #expect(client.call("DELETE", path, json: "{}").message == "Missing items")
        #expect(client.call("DELETE", path, json: WriteClient.itemsBody(["spotify:local:broken"])).message == "Invalid track uri: spotify:local:broken")
        #expect(client.entries(playlist.id) == [z])
    }

    @Test func reorderMovesRangesBothWaysCountingPositionsBeforeTheMove() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let path = "/v1/playlists/\(playlist.id)/items"
        let (a, b, c, d, e) = (client.trackURI(10), client.trackURI(11), client.trackURI(12), client.trackURI(13), client.trackURI(14))
        #expect(client.call("PUT", path, json: WriteClient.urisBody([a, b, c, d, e])).status == 200)

        func reorder(_ body: String) -> WriteClient.Answer { client.call("PUT", path, json: body) }
        // [2,3] to the front.
        let first = reorder(#"{"range_start":2,"insert_before":0,"range_length":2}"#)
        #expect(first.status == 200 && first.object["snapshot_id"] is String)
        #expect(client.entries(playlist.id) == [c, d, a, b, e])
        // 0 to the end of the five: insert_before 5.
        #expect(reorder(#"{"range_start":0,"insert_before":5}"#).status == 200)
        #expect(client.entries(playlist.id) == [d, a, b, e, c])
        // A range forward: [1,2] before position 4 (counted before the move).
        #expect(reorder(#"{"range_start":1,"range_length":2,"insert_before":4}"#).status == 200)
        #expect(client.entries(playlist.id) == [d, e, a, b, c])
        // Backward by one: the last before the second.
        #expect(reorder(#"{"range_start":4,"insert_before":1}"#).status == 200)
        #expect(client.entries(playlist.id) == [d, c, e, a, b])
        // Inside its own range: the order stays.
        #expect(reorder(#"{"range_start":1,"range_length":2,"insert_before":2}"#).status == 200)
        #expect(client.entries(playlist.id) == [d, c, e, a, b])

        let snapshot = client.snapshot(playlist.id)
        #expect(reorder(#"{"range_start":4,"range_length":2,"insert_before":0}"#).message == "Index out of bounds")
        #expect(reorder(#"{"range_start":0,"insert_before":6}"#).message == "Index out of bounds")
        #expect(reorder(#"{"range_start":-1,"insert_before":0}"#).message == "Index out of bounds")
        #expect(reorder(#"{"range_start":0,"insert_before":2,"range_length":0}"#).message == "Invalid range_length")
        #expect(reorder(#"{"range_start":0}"#).message == "Missing range_start and insert_before (reorder) or uris (replace)")
        let both = reorder(#"{"uris":["\#(a)"],"range_start":0,"insert_before":2}"#)
        #expect(both.status == 400 && both.message == "Cannot reorder and replace items in one request")
        #expect(client.entries(playlist.id) == [d, c, e, a, b])
        #expect(client.snapshot(playlist.id) == snapshot)
    }

    @Test func movingIsSpotifysReorderOnAnyList() throws {
        let five = [0, 1, 2, 3, 4]
        #expect(try Library.moving(five, rangeStart: 2, insertBefore: 0, rangeLength: 2) == [2, 3, 0, 1, 4])
        #expect(try Library.moving(five, rangeStart: 0, insertBefore: 5, rangeLength: 1) == [1, 2, 3, 4, 0])
        #expect(try Library.moving(five, rangeStart: 0, insertBefore: 3, rangeLength: 2) == [2, 0, 1, 3, 4])
        #expect(try Library.moving(five, rangeStart: 3, insertBefore: 1, rangeLength: 2) == [0, 3, 4, 1, 2])
        #expect(try Library.moving(five, rangeStart: 0, insertBefore: 0, rangeLength: 5) == five)
        #expect(throws: EditError(400, "Index out of bounds")) { try Library.moving(five, rangeStart: 3, insertBefore: 0, rangeLength: 3) }
        #expect(throws: EditError(400, "Invalid range_length")) { try Library.moving(five, rangeStart: 0, insertBefore: 0, rangeLength: 0) }
    }

    @Test func replaceSetsEveryEntryAndAnEmptyListClears() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let path = "/v1/playlists/\(playlist.id)/items"
        let uris = [client.trackURI(3), client.trackURI(4)]
        #expect(client.call("PUT", path, json: WriteClient.urisBody(uris)).status == 200)
        #expect(client.entries(playlist.id) == uris)
        let items = client.model(playlist.id)["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["added_at"] as? String } == [WriteClient.nowText, WriteClient.nowText])
        let many = client.call("PUT", path, json: WriteClient.urisBody((0..<101).map { client.trackURI($0) }))
        #expect(many.status == 400 && many.message == "You can set a maximum of 100 tracks per request.")
        #expect(client.call("PUT", path, json: #"{"uris":[]}"#).status == 200)
        #expect(client.entries(playlist.id).isEmpty)
    }

    @Test func aStaleSnapshotIsAppliedToTheCurrentState() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let path = "/v1/playlists/\(playlist.id)/items"
        let before = client.entries(playlist.id)
        let stale = client.snapshot(playlist.id)
        let x = client.trackURI(30)
        #expect(client.call("POST", path, json: WriteClient.urisBody([x], extra: "\"position\":0,\"snapshot_id\":\"\(stale)\"")).status == 201)
        #expect(client.snapshot(playlist.id) != stale)
        // Removal and reorder with the old snapshot id still apply, to what is there now.
        let removed = client.call("DELETE", path, json: WriteClient.itemsBody([x], extra: "\"snapshot_id\":\"\(stale)\""))
        #expect(removed.status == 200)
        #expect(client.entries(playlist.id) == before)
        #expect(client.call("PUT", path, json: #"{"range_start":0,"insert_before":2,"snapshot_id":"\#(stale)"}"#).status == 200)
        #expect(client.entries(playlist.id) == [before[1], before[0]] + before[2...])
    }

    @Test func onlyOwnedOrCollaborativePlaylistsCanBeChanged() throws {
        let client = WriteClient()
        let editorial = try client.playlist { $0.owner == 1 }
        let collaborative = try client.playlist { $0.collaborative && $0.owner != 0 }
        #expect(!editorial.editable && collaborative.editable)
        let x = client.trackURI(40)
        let path = "/v1/playlists/\(editorial.id)/items"
        let add = client.call("POST", path, json: WriteClient.urisBody([x]))
        #expect(add.status == 403)
        #expect(add.text == #"{"error":{"status":403,"message":"You cannot add tracks to a playlist you don't own."}}"#)
        #expect(client.call("DELETE", path, json: WriteClient.itemsBody([x])).message == "You cannot remove tracks from a playlist you don't own.")
        #expect(client.call("PUT", path, json: #"{"range_start":0,"insert_before":2}"#).message == "You cannot reorder tracks in a playlist you don't own.")
        #expect(client.call("PUT", path, json: WriteClient.urisBody([x])).message == "You cannot replace tracks in a playlist you don't own.")
        #expect(
            client.call("PUT", "/v1/playlists/\(editorial.id)", json: #"{"name":"Mine now"}"#).message
                == "You cannot change details of a playlist you don't own.")
        #expect(client.model(editorial.id)["name"] as? String == "Today's Top Hits")
        #expect(client.model(editorial.id)["track_count"] as? Int == 50)

        let shared = client.call("POST", "/v1/playlists/\(collaborative.id)/items", json: WriteClient.urisBody([x]))
        #expect(shared.status == 201)
        #expect(client.entries(collaborative.id).count == 26 && client.entries(collaborative.id).last == x)
        #expect(client.call("POST", "/v1/playlists/0000000000000000000000/items", json: WriteClient.urisBody([x])).message == "Resource not found")
        #expect(client.call("POST", "/v1/playlists/nope/items", json: WriteClient.urisBody([x])).message == "Invalid base62 id")
    }

    @Test func writesNeedTheModifyScopeForThePlaylistsVisibilityWhileReadsWork() throws {
        let client = WriteClient()
        let privateOne = try client.ownPlaylist(isPublic: false, minimum: 5)
        let publicOne = try client.ownPlaylist(isPublic: true, minimum: 5)
        let collaborative = try client.playlist { $0.collaborative }
        let body = WriteClient.urisBody([client.trackURI(60)])

        let readOnly = client.signIn(scopes: ["playlist-read-private", "playlist-read-collaborative", "user-library-read"])
        let refused = client.call("POST", "/v1/playlists/\(privateOne.id)/items", json: body, token: readOnly)
        #expect(refused.status == 403)
        #expect(refused.text == #"{"error":{"status":403,"message":"Insufficient client scope"}}"#)
        #expect(client.call("POST", "/v1/me/playlists", json: #"{"name":"x"}"#, token: readOnly).message == "Insufficient client scope")
        #expect(client.call("GET", "/v1/playlists/\(privateOne.id)/items", token: readOnly).status == 200)
        #expect(client.call("GET", "/v1/me/playlists", token: readOnly).status == 200)
        #expect(client.call("GET", "/v1/me/tracks", token: readOnly).status == 200)

        let publicOnly = client.signIn(scopes: ["playlist-modify-public"])
        #expect(client.call("POST", "/v1/playlists/\(privateOne.id)/items", json: body, token: publicOnly).message == "Insufficient client scope")
        #expect(client.call("POST", "/v1/playlists/\(collaborative.id)/items", json: body, token: publicOnly).message == "Insufficient client scope")
        #expect(client.call("POST", "/v1/playlists/\(publicOne.id)/items", json: body, token: publicOnly).status == 201)
        #expect(client.call("POST", "/v1/me/playlists", json: #"{"name":"x","public":false}"#, token: publicOnly).message == "Insufficient client scope")

        let privateOnly = client.signIn(scopes: ["playlist-modify-private"])
        #expect(client.call("POST", "/v1/playlists/\(publicOne.id)/items", json: body, token: privateOnly).message == "Insufficient client scope")
        #expect(client.call("POST", "/v1/playlists/\(collaborative.id)/items", json: body, token: privateOnly).status == 201)
        #expect(client.call("POST", "/v1/playlists/\(privateOne.id)/items", json: body, token: privateOnly).status == 201)
        #expect(client.entries(privateOne.id).last == client.trackURI(60))
    }

    @Test func createdPlaylistsAreTheUsersAndListedFirst() throws {
        let client = WriteClient()
        let listed = client.listedPlaylists()
        #expect(listed.count == 9)
        let created = client.call("POST", "/v1/me/playlists", json: #"{"name":"Road Trip","description":"Songs for the car","public":false}"#)
        #expect(created.status == 201)
        let object = created.object
        let id = try #require(object["id"] as? String)
        #expect(id == SpotifyID.make(seed: 42, namespace: 10, index: 9 + 10_000))
        #expect(object["name"] as? String == "Road Trip")
        #expect(object["description"] as? String == "Songs for the car")
        #expect(object["public"] as? Bool == false && object["collaborative"] as? Bool == false)
        #expect((object["owner"] as? [String: Any])?["id"] as? String == "sandbox_user")
        #expect((object["items"] as? [String: Any])?["total"] as? Int == 0)
        #expect(object["snapshot_id"] as? String == client.snapshot(id))
        #expect(client.listedPlaylists() == [id] + listed)

        // The pre-2026 path answers 403 to development-mode apps; with extended quota it creates too.
        #expect(client.call("POST", "/v1/users/sandbox_user/playlists", json: #"{"name":"Second"}"#).message == "Forbidden")
        #expect(client.listedPlaylists() == [id] + listed)
        let older = client.call("POST", "/v1/me/playlists", json: #"{"name":"Second"}"#)
        #expect(older.status == 201 && older.object["public"] as? Bool == true)
        let second = try #require(older.object["id"] as? String)
        #expect(client.listedPlaylists() == [second, id] + listed)
        #expect(client.call("POST", "/v1/playlists/\(id)/items", json: WriteClient.urisBody([client.trackURI(5)])).status == 201)
        #expect(client.entries(id) == [client.trackURI(5)])

        let extended = WriteClient { $0.developmentMode = false }
        let viaUser = extended.call("POST", "/v1/users/sandbox_user/playlists", json: #"{"name":"Old path"}"#)
        #expect(viaUser.status == 201 && viaUser.object["name"] as? String == "Old path")
        let other = extended.call("POST", "/v1/users/alice.k/playlists", json: #"{"name":"Hers"}"#)
        #expect(other.status == 403 && other.message == "You cannot create a playlist for another user")
        #expect(client.call("POST", "/v1/me/playlists", json: #"{"description":"no name"}"#).message == "Missing required field: name")
        #expect(
            client.call("POST", "/v1/me/playlists", json: #"{"name":"Both","collaborative":true}"#).message
                == "You can only set collaborative to true on non-public playlists")
        #expect(client.call("POST", "/v1/me/playlists", json: #"{"name":"Shared","collaborative":true,"public":false}"#).status == 201)
        #expect(client.listedPlaylists().count == 12)
    }

    @Test func detailsChangeNameDescriptionAndVisibilityButNotTheSnapshot() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let snapshot = client.snapshot(playlist.id)
        #expect(client.listedPlaylists().count == 9)
        #expect(client.get("/v1/me/playlists?limit=50").items.first?["name"] as? String == playlist.name)

        let answer = client.call("PUT", "/v1/playlists/\(playlist.id)", json: #"{"name":"Evening Tea","description":"Calm","public":true}"#)
        #expect(answer.status == 200 && answer.body.isEmpty)
        let model = client.model(playlist.id)
        #expect(model["name"] as? String == "Evening Tea" && model["description"] as? String == "Calm" && model["public"] as? Bool == true)
        #expect(model["snapshot_id"] as? String == snapshot)
        let read = client.get("/v1/playlists/\(playlist.id)?fields=name,description,public,snapshot_id").object
        #expect(read["name"] as? String == "Evening Tea" && read["description"] as? String == "Calm" && read["public"] as? Bool == true)
        #expect(read["snapshot_id"] as? String == snapshot)
        #expect(client.get("/v1/me/playlists?limit=50").items.first?["name"] as? String == "Evening Tea")

        let both = client.call("PUT", "/v1/playlists/\(playlist.id)", json: #"{"collaborative":true}"#)
        #expect(both.status == 400 && both.message == "You can only set collaborative to true on non-public playlists")
        #expect(client.call("PUT", "/v1/playlists/\(playlist.id)", json: #"{"public":"yes"}"#).message == "Error parsing JSON.")
        #expect(client.model(playlist.id)["collaborative"] as? Bool == false)
    }

    @Test func legacyModeTakesWritesOnTracksAndHasNoItemsOrLibrary() throws {
        let client = WriteClient { $0.legacy = true }
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let before = client.entries(playlist.id)
        let x = client.trackURI(70)
        let items = client.call("POST", "/v1/playlists/\(playlist.id)/items", json: WriteClient.urisBody([x]))
        #expect(items.status == 404 && items.message == "Service not found")
        #expect(client.call("POST", "/v1/playlists/\(playlist.id)/tracks", json: WriteClient.urisBody([x], extra: "\"position\":0")).status == 201)
        #expect(client.entries(playlist.id) == [x] + before)
        #expect(client.call("DELETE", "/v1/playlists/\(playlist.id)/tracks", json: #"{"tracks":[{"uri":"\#(x)"}]}"#).status == 200)
        #expect(client.entries(playlist.id) == before)
        #expect(client.call("PUT", "/v1/me/library?uris=\(x)").message == "Service not found")
        #expect(client.call("PUT", "/v1/me/tracks?ids=\(client.library.pool.trackID(70))").status == 200)
        #expect(client.liked().first == x)
    }

    /// With extended quota `/tracks` still works; in development mode it is 403 (SpotifyRulesTests).
    @Test func theTracksPathTakesWritesWithExtendedQuota() throws {
        let client = WriteClient { $0.developmentMode = false }
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let before = client.entries(playlist.id)
        let path = "/v1/playlists/\(playlist.id)/tracks"
        #expect(client.get(path).status == 200)
        #expect(client.call("POST", path, json: WriteClient.urisBody([client.trackURI(71)])).status == 201)
        #expect(client.call("PUT", path, json: #"{"range_start":\#(before.count),"insert_before":0}"#).status == 200)
        #expect(client.entries(playlist.id) == [client.trackURI(71)] + before)
        #expect(client.call("DELETE", path, json: #"{"tracks":[{"uri":"\#(client.trackURI(71))"}]}"#).status == 200)
        #expect(client.entries(playlist.id) == before)
    }

    @Test func writesAreLoggedWithMethodPathStatusAndBodySize() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        client.control("POST", "requests/clear")
        let body = WriteClient.urisBody([client.trackURI(80)])
        client.call("POST", "/v1/playlists/\(playlist.id)/items", json: body)
        client.get("/v1/playlists/\(playlist.id)/items")
        client.call("DELETE", "/v1/playlists/\(playlist.id)/items", json: WriteClient.itemsBody([client.trackURI(80)]))
        let log = client.control("GET", "requests").json as? [[String: Any]] ?? []
        #expect(log.map { $0["method"] as? String ?? "" } == ["POST", "GET", "DELETE"])
        #expect(log.map { $0["path"] as? String ?? "" } == Array(repeating: "/v1/playlists/\(playlist.id)/items", count: 3))
        #expect(log.map { $0["status"] as? Int ?? 0 } == [201, 200, 200])
        #expect(log.map { $0["request_bytes"] as? Int ?? -1 } == [body.utf8.count, 0, WriteClient.itemsBody([client.trackURI(80)]).utf8.count])
    }
}
