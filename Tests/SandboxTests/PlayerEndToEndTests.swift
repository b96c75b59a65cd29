import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// The real `timbre-sandbox` binary with `--daily-quota`: player commands over TLS with curl, the
/// quota's 429, the frozen and advanced clock, and the request log.
@Suite(.serialized, .tags(.integration), .integrationTier) struct PlayerEndToEndTests {
    @Test func playerCommandsCountTowardTheDailyQuotaAndAppearInTheRequestLog() async throws {
        let sandbox = try await SandboxProcess.start(
            library: .small, extraArguments: ["--daily-quota", "4", "--quota-reason", "--quota-day-seconds", "3600"])
        try await withCleanup({ await sandbox.stop() }) {
            try await sandbox.freezeClock()
            let (access, _) = try await sandbox.signIn()
            let devices = try await sandbox.curl("/v1/me/player/devices", bearer: access)
            #expect(devices.status == 200)
            let list = (devices.json() as? [String: Any])?["devices"] as? [[String: Any]] ?? []
            let demo = try #require(list.first { $0["name"] as? String == "timbre demo speaker" }?["id"] as? String)
            #expect(list.first { $0["name"] as? String == "timbre demo speaker" }?["is_active"] as? Bool == false)

            let model = try await sandbox.library(includeItems: true)
            let playlists = model["playlists"] as? [[String: Any]] ?? []
            let playlist = try #require(playlists.first { ($0["owner_id"] as? String) == "sandbox_user" && ($0["track_count"] as? Int ?? 0) > 3 })
            let id = try #require(playlist["id"] as? String)
            let play = try await sandbox.curl(
                "/v1/me/player/play?device_id=\(demo)", method: "PUT", json: #"{"context_uri":"spotify:playlist:\#(id)","offset":{"position":0}}"#,
                bearer: access)
            #expect(play.status == 204)
            // curl -X PUT without data sends no Content-Length: Google's front end answers 411.
            let bare = try await sandbox.curl("/v1/me/player/pause", method: "PUT", bearer: access)
            #expect(bare.status == 411)
            let pause = try await sandbox.curl("/v1/me/player/pause", method: "PUT", bearer: access, extraArguments: ["--data", ""])
            #expect(pause.status == 204)
            #expect(try await sandbox.playerState()["is_playing"] as? Bool == false)
            #expect(try await sandbox.curl("/v1/me", bearer: access).status == 200)

            let refused = try await sandbox.curl("/v1/me", bearer: access)
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") == "3600", "the clock is frozen at the day's first request")
            #expect(((refused.json() as? [String: Any])?["error"] as? [String: Any])?["reason"] as? String == "QUOTA_EXCEEDED")
            let quota = try await sandbox.quota()
            #expect(quota["used"] as? Int == 4 && quota["refused"] as? Int == 1)

            let logged = try await sandbox.requests().filter { $0.path.hasPrefix("/v1/me/player") }
            #expect(
                logged.map { "\($0.method) \($0.path) \($0.status)" } == [
                    "GET /v1/me/player/devices 200", "PUT /v1/me/player/play 204", "PUT /v1/me/player/pause 411",
                    "PUT /v1/me/player/pause 204",
                ])
            #expect(try await sandbox.writeRequests().filter { $0.path.hasPrefix("/v1/me/player") }.count == 3)

            try await sandbox.advanceClock(milliseconds: 3_600_000)
            #expect(try await sandbox.curl("/v1/me", bearer: access).status == 200)
            #expect(try await sandbox.quota()["day"] as? Int == 1)
        }
    }
}
