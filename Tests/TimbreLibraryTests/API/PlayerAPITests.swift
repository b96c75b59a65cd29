import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// The player client against a recording fake: the one request each call sends (method, path,
/// query, body), answers decoded tolerantly, and Spotify's refusals recognised.
@Suite struct PlayerAPITests {
    /// The one fake, answering the player's paths with `answer` or `refusal`.
    static func fake(answer: HTTPResponse = HTTPResponse(status: 204), refusal: SpotifyError? = nil) -> FakeSpotify {
        FakeSpotify(player: answer, refusal: refusal)
    }

    @Test func eachCommandIsOneRequestWithItsParametersInTheQuery() async throws {
        let fake = Self.fake()
        let player = PlayerAPI(api: fake)
        try await player.play(.context(uri: "spotify:playlist:P", offset: .position(3)), device: "dev 1")
        try await player.play(.uris(["spotify:track:a", "spotify:track:b"], offset: nil))
        try await player.play(.resume)
        try await player.pause()
        try await player.next(device: "d")
        try await player.previous()
        try await player.seek(toMS: -5)
        try await player.volume(130)
        try await player.shuffle(true)
        try await player.setRepeat(.context)
        try await player.queue("spotify:track:a")
        try await player.transfer(to: "d", play: true)
        #expect(
            fake.calls.current.map(\.full) == [
                #"PUT me/player/play?device_id=dev%201 {"context_uri":"spotify:playlist:P","offset":{"position":3}}"#,
                #"PUT me/player/play {"uris":["spotify:track:a","spotify:track:b"]}"#,
                "PUT me/player/play", "PUT me/player/pause", "POST me/player/next?device_id=d", "POST me/player/previous",
                "PUT me/player/seek?position_ms=0", "PUT me/player/volume?volume_percent=100", "PUT me/player/shuffle?state=true",
                "PUT me/player/repeat?state=context", "POST me/player/queue?uri=spotify:track:a",
                #"PUT me/player {"device_ids":["d"],"play":true}"#,
            ])
    }

    @Test func stateIsReadTolerantlyAndA204IsNothing() async throws {
        #expect(try await PlayerAPI(api: Self.fake()).state() == nil)
        let body = """
            {"device": {"id": null, "name": "Phone", "type": "Smartphone", "volume_percent": null, "is_active": true},
             "repeat_state": "sometimes", "shuffle_state": "yes", "context": null, "progress_ms": "12",
             "is_playing": true, "item": {"uri": "spotify:episode:e", "name": "Ep", "duration_ms": 60000, "show": {"name": "Show"}}}
            """
        let state = try #require(try await PlayerAPI(api: Self.fake(answer: HTTPResponse(status: 200, body: Data(body.utf8)))).state())
        #expect(state.isPlaying && state.progressMS == 0 && state.repeatState == .off && !state.shuffle && state.contextURI == nil)
        #expect(state.item == PlayingItem(uri: "spotify:episode:e", name: "Ep", artists: ["Show"], album: "Show", durationMS: 60000))
        #expect(state.device?.id == nil && state.device?.volume == nil && state.device?.supportsVolume == false)
        #expect(PlaybackState.idle.json.serialized().contains(#""item":null"#))
    }

    @Test func theRefusalsAreRecognisedByTheirWords() async throws {
        let words = [
            ("Player command failed: No active device found", 404, PlayerRefusal.noActiveDevice),
            ("Player command failed: Premium required", 403, .premiumRequired),
            ("Player command failed: Cannot control device volume", 403, .volumeControlDisallowed(device: nil)),
            ("Player command failed: Device not controllable", 403, .deviceNotControllable),
            ("Device not found", 404, .deviceNotFound),
            ("Player command failed: Restriction violated", 403, .restrictionViolated),
        ]
        for (message, status, refusal) in words {
            let fake = Self.fake(refusal: .api(status: status, message: message, path: "/me/player/pause"))
            await #expect(throws: refusal) { try await PlayerAPI(api: fake).pause() }
        }
        let other = Self.fake(refusal: .api(status: 400, message: "Invalid state", path: "/me/player/repeat"))
        await #expect(throws: SpotifyError.self) { try await PlayerAPI(api: other).setRepeat(.off) }
    }
}
