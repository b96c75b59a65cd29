import Foundation
import Testing

@testable import SandboxCore

/// The player model and Spotify's Player endpoints, in process on the sandbox clock: every request
/// is sent at `WriteClient.now` and time only moves through `POST /__sandbox/clock?advance_ms=`.
@Suite struct PlayerTests {
    static let demo = "timbre demo speaker"
    static let kitchen = "Kitchen radio"
    static let office = "Office computer"

    // MARK: Helpers

    func devices(_ client: WriteClient) -> [[String: Any]] {
        client.get("/v1/me/player/devices").object["devices"] as? [[String: Any]] ?? []
    }

    func deviceID(_ client: WriteClient, _ name: String) throws -> String {
        let found = devices(client).first { $0["name"] as? String == name }?["id"] as? String
        return try #require(found)
    }

    func state(_ client: WriteClient) -> [String: Any] { client.control("GET", "player").object }

    func advance(_ client: WriteClient, ms: Int) {
        #expect(client.control("POST", "clock?advance_ms=\(ms)").status == 200)
    }

    /// `error.reason` of a Web API error.
    func reason(_ answer: WriteClient.Answer) -> String? {
        (answer.object["error"] as? [String: Any])?["reason"] as? String
    }

    /// The user's own playlist whose first `count` entries are all catalogue tracks.
    func playablePlaylist(_ client: WriteClient, count: Int = 6) throws -> Playlist {
        try client.playlist { playlist in
            playlist.owner == 0 && playlist.entries.count >= count && playlist.entries.prefix(count).allSatisfy { $0.kind == .track }
        }
    }

    func uri(_ client: WriteClient, _ entry: Entry) -> String { client.trackURI(Int(entry.ref)) }

    func duration(_ client: WriteClient, _ entry: Entry) -> Int { client.library.pool.track(Int(entry.ref)).durationMs }

    /// Plays `playlist` from entry `position` on `device` and checks the 204.
    func play(_ client: WriteClient, _ playlist: Playlist, position: Int, device: String) throws {
        let id = try deviceID(client, device)
        let answer = client.call(
            "PUT", "/v1/me/player/play?device_id=\(id)",
            json: #"{"context_uri":"spotify:playlist:\#(playlist.id)","offset":{"position":\#(position)}}"#)
        #expect(answer.status == 204, "\(answer.text)")
        #expect(answer.body.isEmpty)
    }

    // MARK: Devices and an idle player

    @Test func theDemoSpeakerARadioWithoutVolumeAndARestrictedDeviceExistInactive() throws {
        let client = WriteClient()
        let all = devices(client)
        #expect(all.map { $0["name"] as? String } == [Self.demo, Self.kitchen, Self.office])
        #expect(all.allSatisfy { $0["is_active"] as? Bool == false })
        #expect(all.allSatisfy { ($0["id"] as? String)?.count == 40 })
        let radio = try #require(all.first { $0["name"] as? String == Self.kitchen })
        #expect(radio["supports_volume"] as? Bool == false)
        #expect(radio["volume_percent"] is NSNull)
        let office = try #require(all.first { $0["name"] as? String == Self.office })
        #expect(office["is_restricted"] as? Bool == true)
        #expect(all[0]["volume_percent"] as? Int == 50 && all[0]["supports_volume"] as? Bool == true)
        // Nothing active: 204 with no body, and an empty queue.
        let player = client.get("/v1/me/player")
        #expect(player.status == 204 && player.body.isEmpty)
        #expect(client.get("/v1/me/player/currently-playing").status == 204)
        let queue = client.get("/v1/me/player/queue")
        #expect(queue.status == 200 && queue.object["currently_playing"] is NSNull && (queue.object["queue"] as? [Any])?.isEmpty == true)
    }

    @Test func commandsWithoutAnActiveDeviceAre404NoActiveDevice() throws {
        let client = WriteClient()
        for (method, target) in [
            ("PUT", "/v1/me/player/play"), ("PUT", "/v1/me/player/pause"), ("POST", "/v1/me/player/next"),
            ("PUT", "/v1/me/player/seek?position_ms=0"), ("POST", "/v1/me/player/queue?uri=\(client.trackURI(40))"),
        ] {
            let answer = client.call(method, target)
            #expect(answer.status == 404, "\(target)")
            #expect(answer.message == "Player command failed: No active device found")
            #expect(reason(answer) == "NO_ACTIVE_DEVICE")
        }
        #expect(client.call("PUT", "/v1/me/player/play?device_id=0000000000000000000000000000000000000000").status == 404)
        #expect(client.call("PUT", "/v1/me/player/play?device_id=0000000000000000000000000000000000000000").message == "Device not found")
    }

    // MARK: Playing a context

    @Test func aPlaylistContextWithAnOffsetPlaysThatEntryOnTheNamedDevice() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 3, device: Self.kitchen)
        let model = state(client)
        #expect(model["active_device"] as? String == Self.kitchen)
        #expect(model["context_uri"] as? String == "spotify:playlist:\(playlist.id)")
        #expect(model["context_index"] as? Int == 3)
        #expect(model["item_uri"] as? String == uri(client, playlist.entries[3]))
        #expect(model["is_playing"] as? Bool == true)

        let player = client.get("/v1/me/player")
        #expect(player.status == 200)
        let object = player.object
        #expect((object["device"] as? [String: Any])?["name"] as? String == Self.kitchen)
        #expect((object["device"] as? [String: Any])?["is_active"] as? Bool == true)
        #expect((object["context"] as? [String: Any])?["uri"] as? String == "spotify:playlist:\(playlist.id)")
        #expect((object["context"] as? [String: Any])?["type"] as? String == "playlist")
        #expect((object["item"] as? [String: Any])?["uri"] as? String == uri(client, playlist.entries[3]))
        #expect(object["is_playing"] as? Bool == true && object["progress_ms"] as? Int == 0)
        #expect(object["repeat_state"] as? String == "off" && object["shuffle_state"] as? Bool == false)
        #expect(object["currently_playing_type"] as? String == "track")
        let current = client.get("/v1/me/player/currently-playing").object
        #expect((current["item"] as? [String: Any])?["uri"] as? String == uri(client, playlist.entries[3]))
        #expect(current["device"] == nil)
    }

    @Test func theClockEndsTheTrackTheNextStartsAndTheEndedOneIsRecentlyPlayed() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 1, device: Self.demo)
        advance(client, ms: 10_000)
        #expect(client.get("/v1/me/player").object["progress_ms"] as? Int == 10_000)
        advance(client, ms: duration(client, playlist.entries[1]) - 10_000 + 2_000)
        let model = state(client)
        #expect(model["context_index"] as? Int == 2)
        #expect(model["item_uri"] as? String == uri(client, playlist.entries[2]))
        #expect(model["progress_ms"] as? Int == 2_000)

        let recent = client.get("/v1/me/player/recently-played?limit=5")
        #expect(recent.status == 200)
        let items = recent.items
        #expect(items.count == 1)
        #expect((items.first?["track"] as? [String: Any])?["uri"] as? String == uri(client, playlist.entries[1]))
        #expect((items.first?["context"] as? [String: Any])?["uri"] as? String == "spotify:playlist:\(playlist.id)")
        // played_at: when the track ended, on the sandbox clock.
        let ended = Int64(WriteClient.now.timeIntervalSince1970) * 1_000 + Int64(duration(client, playlist.entries[1]))
        #expect(items.first?["played_at"] as? String == ISODate.formatMilliseconds(ms: ended))
        #expect(client.get("/v1/me/player/recently-played?limit=51").status == 400)
    }

    @Test func repeatTrackPlaysItAgainRepeatContextWrapsAndOffStopsAtTheEnd() throws {
        let client = WriteClient()
        let first = client.trackURI(40), second = client.trackURI(41)
        let pool = client.library.pool
        let demo = try deviceID(client, Self.demo)
        #expect(client.call("PUT", "/v1/me/player/play?device_id=\(demo)", json: WriteClient.urisBody([first, second])).status == 204)
        #expect(state(client)["context_uri"] is NSNull)
        #expect(client.call("PUT", "/v1/me/player/repeat?state=track").status == 204)
        advance(client, ms: pool.track(40).durationMs + 1)
        #expect(state(client)["item_uri"] as? String == first)
        #expect(client.call("PUT", "/v1/me/player/repeat?state=context").status == 204)
        advance(client, ms: pool.track(40).durationMs + pool.track(41).durationMs)
        #expect(state(client)["item_uri"] as? String == first, "after the last track, the first again")
        #expect(client.call("PUT", "/v1/me/player/repeat?state=off").status == 204)
        advance(client, ms: pool.track(40).durationMs + pool.track(41).durationMs + 5_000)
        let stopped = state(client)
        #expect(stopped["item_uri"] as? String == second)
        #expect(stopped["is_playing"] as? Bool == false)
        #expect(client.call("PUT", "/v1/me/player/repeat?state=all").status == 400)
        let repeats = (state(client)["recently_played"] as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
        #expect(repeats == [second, first, second, first, first])
    }

    @Test func theQueuePlaysBeforeTheContextGoesOn() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 0, device: Self.demo)
        let queued = client.trackURI(77)
        #expect(client.call("POST", "/v1/me/player/queue?uri=\(queued)").status == 204)
        let queue = client.get("/v1/me/player/queue").object
        let listed = (queue["queue"] as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
        #expect(listed.prefix(3) == [queued, uri(client, playlist.entries[1]), uri(client, playlist.entries[2])])
        #expect((queue["currently_playing"] as? [String: Any])?["uri"] as? String == uri(client, playlist.entries[0]))

        #expect(client.call("POST", "/v1/me/player/next").status == 204)
        var model = state(client)
        #expect(model["item_uri"] as? String == queued && model["from_queue"] as? Bool == true)
        #expect(client.get("/v1/me/player").object["context"] is NSNull, "a queued track plays outside the context")
        #expect(client.call("POST", "/v1/me/player/next").status == 204)
        model = state(client)
        #expect(model["item_uri"] as? String == uri(client, playlist.entries[1]) && model["context_index"] as? Int == 1)
        #expect(client.call("POST", "/v1/me/player/previous").status == 204)
        #expect(state(client)["context_index"] as? Int == 0)
        #expect(client.call("POST", "/v1/me/player/queue?uri=spotify:track:nope").status == 400)
    }

    @Test func pauseWhenPausedAndResumeWhenPlayingAreRestrictionViolated() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 0, device: Self.demo)
        let resume = client.call("PUT", "/v1/me/player/play")
        #expect(resume.status == 403 && resume.message == "Player command failed: Restriction violated" && reason(resume) == "UNKNOWN")
        advance(client, ms: 5_000)
        #expect(client.call("PUT", "/v1/me/player/pause").status == 204)
        advance(client, ms: 5_000)
        var model = state(client)
        #expect(model["is_playing"] as? Bool == false && model["progress_ms"] as? Int == 5_000, "paused: the clock runs, progress does not")
        let again = client.call("PUT", "/v1/me/player/pause")
        #expect(again.status == 403 && again.message == "Player command failed: Restriction violated" && reason(again) == "UNKNOWN")
        #expect(client.call("PUT", "/v1/me/player/play").status == 204)
        advance(client, ms: 1_000)
        model = state(client)
        #expect(model["is_playing"] as? Bool == true && model["progress_ms"] as? Int == 6_000)
    }

    @Test func seekPastTheEndPlaysTheNextTrack() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 0, device: Self.demo)
        #expect(client.call("PUT", "/v1/me/player/seek?position_ms=12345").status == 204)
        #expect(state(client)["progress_ms"] as? Int == 12_345)
        #expect(client.call("PUT", "/v1/me/player/seek?position_ms=\(duration(client, playlist.entries[0]))").status == 204)
        #expect(state(client)["context_index"] as? Int == 1)
        #expect(client.call("PUT", "/v1/me/player/seek?position_ms=-1").status == 400)
        #expect(client.call("PUT", "/v1/me/player/seek").status == 400)
    }

    @Test func volumeNeedsADeviceThatSupportsIt() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 0, device: Self.kitchen)
        let refused = client.call("PUT", "/v1/me/player/volume?volume_percent=30")
        #expect(refused.status == 403 && refused.message == "Player command failed: Cannot control device volume")
        #expect(reason(refused) == "VOLUME_CONTROL_DISALLOW")
        let demo = try deviceID(client, Self.demo)
        #expect(client.call("PUT", "/v1/me/player", json: #"{"device_ids":["\#(demo)"]}"#).status == 204)
        #expect(client.call("PUT", "/v1/me/player/volume?volume_percent=30").status == 204)
        #expect(devices(client).first { $0["name"] as? String == Self.demo }?["volume_percent"] as? Int == 30)
        #expect(client.call("PUT", "/v1/me/player/volume?volume_percent=101").status == 400)
        #expect(client.call("PUT", "/v1/me/player/volume").status == 400)
    }

    @Test func aRestrictedDeviceTakesNoCommand() throws {
        let client = WriteClient()
        let office = try deviceID(client, Self.office)
        let transfer = client.call("PUT", "/v1/me/player", json: #"{"device_ids":["\#(office)"],"play":true}"#)
        #expect(transfer.status == 403 && reason(transfer) == "DEVICE_NOT_CONTROLLABLE")
        let playlist = try playablePlaylist(client)
        let play = client.call(
            "PUT", "/v1/me/player/play?device_id=\(office)", json: #"{"context_uri":"spotify:playlist:\#(playlist.id)"}"#)
        #expect(play.status == 403 && reason(play) == "DEVICE_NOT_CONTROLLABLE")
        #expect(state(client)["active_device"] is NSNull, "nothing changed")
    }

    @Test func transferMovesPlaybackAndKeepsItsStateUnlessToldToPlay() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        try play(client, playlist, position: 2, device: Self.demo)
        #expect(client.call("PUT", "/v1/me/player/pause").status == 204)
        let kitchen = try deviceID(client, Self.kitchen)
        #expect(client.call("PUT", "/v1/me/player", json: #"{"device_ids":["\#(kitchen)"]}"#).status == 204)
        var model = state(client)
        #expect(model["active_device"] as? String == Self.kitchen && model["is_playing"] as? Bool == false)
        #expect(model["context_index"] as? Int == 2)
        #expect(client.call("PUT", "/v1/me/player", json: #"{"device_ids":["\#(kitchen)"],"play":true}"#).status == 204)
        model = state(client)
        #expect(model["is_playing"] as? Bool == true)
        let two = client.call("PUT", "/v1/me/player", json: #"{"device_ids":["\#(kitchen)","\#(kitchen)"]}"#)
        #expect(two.status == 400)
        #expect(client.call("PUT", "/v1/me/player", json: #"{"device_ids":[]}"#).status == 400)
        #expect(client.call("PUT", "/v1/me/player", json: #"{"device_ids":["nope"]}"#).status == 404)
    }

    @Test func shuffleKeepsTheCurrentEntryAndNextLeavesTheContextOrder() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client, count: 8)
        try play(client, playlist, position: 0, device: Self.demo)
        #expect(client.call("PUT", "/v1/me/player/shuffle?state=true").status == 204)
        #expect(client.get("/v1/me/player").object["shuffle_state"] as? Bool == true)
        #expect(state(client)["context_index"] as? Int == 0, "the playing entry stays")
        var seen: [Int] = []
        for _ in 0..<7 {
            #expect(client.call("POST", "/v1/me/player/next").status == 204)
            seen.append(state(client)["context_index"] as? Int ?? -1)
        }
        #expect(Set(seen).count == 7 && !seen.contains(0), "every other entry once")
        #expect(seen != Array(1...7), "not in the playlist's order")
        #expect(client.call("PUT", "/v1/me/player/shuffle?state=false").status == 204)
        let here = state(client)["context_index"] as? Int ?? -1
        if here + 1 < 8 {
            #expect(client.call("POST", "/v1/me/player/next").status == 204)
            #expect(state(client)["context_index"] as? Int == here + 1)
        }
        #expect(client.call("PUT", "/v1/me/player/shuffle?state=maybe").status == 400)
    }

    @Test func playBodiesAreCheckedAsSpotifyDocumentsThem() throws {
        let client = WriteClient()
        let playlist = try playablePlaylist(client)
        let demo = try deviceID(client, Self.demo)
        let path = "/v1/me/player/play?device_id=\(demo)"
        let both = client.call("PUT", path, json: #"{"context_uri":"spotify:playlist:\#(playlist.id)","uris":["\#(client.trackURI(1))"]}"#)
        #expect(both.status == 400)
        #expect(client.call("PUT", path, json: #"{"context_uri":"spotify:playlist:\#(playlist.id)","offset":{"position":100000}}"#).status == 400)
        #expect(client.call("PUT", path, json: "{not json").status == 400)
        #expect(client.call("PUT", path, json: #"{"context_uri":"spotify:playlist:0000000000000000000000"}"#).status == 404)
        // offset by URI, and a position_ms into the first track.
        let target = uri(client, playlist.entries[4])
        let byURI = client.call(
            "PUT", path, json: #"{"context_uri":"spotify:playlist:\#(playlist.id)","offset":{"uri":"\#(target)"},"position_ms":7000}"#)
        #expect(byURI.status == 204)
        let model = state(client)
        #expect(model["context_index"] as? Int == 4 && model["progress_ms"] as? Int == 7_000)
        // An album context plays the album's tracks.
        let album = client.library.pool.albumID(client.library.pool.albumIndex(ofTrack: 50))
        #expect(client.call("PUT", path, json: #"{"context_uri":"spotify:album:\#(album)"}"#).status == 204)
        #expect(client.get("/v1/me/player").object["context"].flatMap { ($0 as? [String: Any])?["type"] as? String } == "album")
    }

    // MARK: Premium, scopes, lengths, the request log

    @Test func withoutPremiumEveryCommandIs403PremiumRequiredAndReadsStillAnswer() throws {
        let client = WriteClient { $0.premium = false }
        let demo = try deviceID(client, Self.demo)
        for (method, target) in [
            ("PUT", "/v1/me/player/play?device_id=\(demo)"), ("PUT", "/v1/me/player/pause"), ("POST", "/v1/me/player/next"),
            ("PUT", "/v1/me/player/volume?volume_percent=10"), ("PUT", "/v1/me/player/shuffle?state=true"),
        ] {
            let answer = client.call(method, target)
            #expect(answer.status == 403 && answer.message == "Player command failed: Premium required", "\(target)")
            #expect(reason(answer) == "PREMIUM_REQUIRED")
        }
        #expect(client.get("/v1/me/player/devices").status == 200)
        #expect(client.control("POST", "player/premium", json: #"{"premium":true}"#).status == 200)
        #expect(client.call("PUT", "/v1/me/player/play?device_id=\(demo)", json: WriteClient.urisBody([client.trackURI(3)])).status == 204)
    }

    @Test func playerEndpointsCheckTheirScopes() throws {
        let client = WriteClient(scopes: ["playlist-read-private"])
        #expect(client.get("/v1/me/player").message == "Insufficient client scope")
        #expect(client.get("/v1/me/player/devices").status == 403)
        #expect(client.get("/v1/me/player/currently-playing").status == 403)
        #expect(client.get("/v1/me/player/recently-played").status == 403)
        #expect(client.call("PUT", "/v1/me/player/pause").message == "Insufficient client scope")
        let reader = client.signIn(scopes: ["user-read-currently-playing"])
        #expect(client.call("GET", "/v1/me/player/currently-playing", token: reader).status == 204)
        #expect(client.call("GET", "/v1/me/player", token: reader).status == 403)
        let modifier = client.signIn(scopes: ["user-modify-playback-state"])
        #expect(client.call("PUT", "/v1/me/player/pause", token: modifier).status == 404, "past the scope check: no active device")
    }

    @Test func aBodilessCommandWithoutContentLengthIs411AndPlayerRequestsAreLogged() throws {
        let client = WriteClient()
        let response = client.service.handle(
            SandboxRequest(method: "PUT", path: "/v1/me/player/pause", query: "", headers: ["authorization": "Bearer \(client.token)"]),
            now: WriteClient.now)
        #expect(response.status == 411)
        #expect(client.call("POST", "/v1/me/player/next").status == 404)
        client.get("/v1/me/player")
        let log = client.control("GET", "requests").json as? [[String: Any]] ?? []
        let player = log.filter { ($0["path"] as? String ?? "").hasPrefix("/v1/me/player") }
        #expect(
            player.map { "\($0["method"] ?? "") \($0["path"] ?? "") \($0["status"] ?? "")" } == [
                "PUT /v1/me/player/pause 411", "POST /v1/me/player/next 404", "GET /v1/me/player 204",
            ])
    }

    @Test func aDeviceAddedThroughTheControlAPIIsListedAndPlayable() throws {
        let client = WriteClient()
        let added = client.control("POST", "player/devices", json: #"{"name":"Phone","type":"Smartphone","supports_volume":false}"#)
        #expect(added.status == 200)
        let id = try #require(added.object["id"] as? String)
        #expect(devices(client).last?["name"] as? String == "Phone")
        #expect(devices(client).last?["volume_percent"] is NSNull)
        #expect(client.call("PUT", "/v1/me/player/play?device_id=\(id)", json: WriteClient.urisBody([client.trackURI(5)])).status == 204)
        #expect(state(client)["active_device"] as? String == "Phone")
        #expect(client.control("POST", "player/devices", json: "{}").status == 400)
    }
}
