import Foundation
import Testing

@testable import SandboxCore

/// The daily quota (`--daily-quota N`), in process on the sandbox clock.
@Suite struct QuotaTests {
    func quota(_ client: WriteClient) -> [String: Any] { client.control("GET", "quota").object }

    func retryAfter(_ answer: WriteClient.Answer) -> String? {
        answer.response.headers.first { $0.0 == "Retry-After" }?.1
    }

    func error(_ answer: WriteClient.Answer) -> [String: Any] { answer.object["error"] as? [String: Any] ?? [:] }

    @Test func afterNRequestsEveryAPIRequestIs429WithTheSecondsLeftOfTheDay() throws {
        let client = WriteClient {
            $0.dailyQuota = 3
            $0.quotaDaySeconds = 1_000
        }
        // Sign-in (authorize and token requests) and control calls do not count.
        #expect(quota(client)["used"] as? Int == 0)
        #expect(client.get("/v1/me").status == 200)
        client.control("POST", "clock?advance_ms=250000")
        #expect(client.get("/v1/me/playlists").status == 200)
        #expect(client.call("PUT", "/v1/me/library?uris=\(client.trackURI(9))").status == 200, "writes count too")
        let refused = client.get("/v1/me")
        #expect(refused.status == 429)
        #expect(retryAfter(refused) == "750", "the day began with the first request, 250 s ago")
        #expect(error(refused)["message"] as? String == "API rate limit exceeded")
        #expect(error(refused)["status"] as? Int == 429)
        #expect(error(refused)["reason"] == nil)
        // Every API request, whatever its path or method; the player too.
        #expect(client.call("POST", "/v1/me/player/next").status == 429)
        client.control("POST", "clock?advance_ms=500500")
        #expect(retryAfter(client.get("/v1/search?q=a&type=track")) == "250", "the seconds left, rounded up")
        // The accounts service still answers.
        let token = client.signIn(scopes: ["playlist-read-private"])
        #expect(!token.isEmpty)
        let counts = quota(client)
        #expect(counts["used"] as? Int == 3 && counts["refused"] as? Int == 3 && counts["limit"] as? Int == 3)
        #expect(counts["seconds_left"] as? Int == 250 && counts["day"] as? Int == 0)
        // The next day: requests answer again and count from zero.
        client.control("POST", "clock?advance_ms=250000")
        #expect(client.get("/v1/me").status == 200)
        let next = quota(client)
        #expect(next["day"] as? Int == 1 && next["used"] as? Int == 1 && next["refused"] as? Int == 0 && next["total"] as? Int == 4)
    }

    @Test func withQuotaReasonTheBodyNamesQuotaExceeded() throws {
        let client = WriteClient {
            $0.dailyQuota = 1
            $0.quotaReason = true
        }
        #expect(client.get("/v1/me").status == 200)
        let refused = client.get("/v1/me")
        #expect(refused.status == 429)
        #expect(retryAfter(refused) == "86400")
        // The July 2026 body, exactly.
        #expect(refused.text == #"{"error":{"status":429,"message":"Too many requests","reason":"QUOTA_EXCEEDED"}}"#)
    }

    @Test func theQuotaIsSetAndResetThroughTheControlAPI() throws {
        let client = WriteClient()
        #expect(quota(client)["limit"] is NSNull)
        for _ in 0..<5 { client.get("/v1/me") }
        #expect(quota(client)["used"] as? Int == 5)
        #expect(client.control("POST", "quota", json: #"{"limit":5,"reason":true,"day_seconds":60}"#).status == 200)
        #expect(client.get("/v1/me").status == 429)
        #expect(client.control("POST", "quota", json: #"{"reset":true}"#).status == 200)
        #expect(client.get("/v1/me").status == 200)
        #expect(client.control("POST", "quota", json: #"{"limit":null}"#).status == 200)
        for _ in 0..<10 { #expect(client.get("/v1/me").status == 200) }
        #expect(client.control("POST", "quota", json: #"{"limit":-1}"#).status == 400)
        #expect(client.control("POST", "clock?advance_ms=-5").status == 400)
    }
}
