import Foundation
import Testing

@testable import SandboxCore

/// The faults that make storms: periodic ones, rate-limit windows, reasons, dying tokens.
@Suite struct StormFaultTests {
    private func request(_ service: SandboxService, _ target: String, token: String, at now: Date) -> SandboxResponse {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        return service.handle(
            SandboxRequest(
                method: "GET", path: parts[0], query: parts.count > 1 ? parts[1] : "",
                headers: ["authorization": "Bearer \(token)"]), now: now)
    }

    private func addFaults(_ service: SandboxService, _ json: String) {
        let response = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/faults", query: "", headers: [:], body: Array(json.utf8)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    @Test func everyNthMatchingRequestIsHitAndCountCountsFirings() throws {
        let service = ServiceTests.make()
        let (access, _) = ServiceTests.signIn(service)
        addFaults(service, #"{"faults":[{"kind":"malformed","path_contains":"/v1/me","every":3,"count":2}]}"#)
        let now = Date()
        let statuses = (1...9).map { _ -> Bool in
            let response = request(service, "/v1/me", token: access, at: now)
            return (try? JSONSerialization.jsonObject(with: Data(response.body))) != nil
        }
        // The 3rd and 6th answers are garbled; after two firings the fault is spent.
        #expect(statuses == [true, true, false, true, true, false, true, true, true])
    }

    @Test func aWindowAnswers429ToEveryAPIRequestUntilItCloses() throws {
        let service = ServiceTests.make()
        let (access, _) = ServiceTests.signIn(service)
        addFaults(service, #"{"faults":[{"kind":"status","status":429,"path_contains":"/v1/","every":2,"window_ms":2000,"count":1}]}"#)
        let start = Date()
        #expect(request(service, "/v1/me", token: access, at: start).status == 200)
        let opening = request(service, "/v1/me/playlists", token: access, at: start)
        #expect(opening.status == 429)
        #expect(opening.headers.first { $0.0 == "Retry-After" }?.1 == "2")
        // Inside the window, any API path — not only the ones that count toward `every`.
        let inside = request(service, "/v1/me/tracks", token: access, at: start.addingTimeInterval(1.2))
        #expect(inside.status == 429)
        #expect(inside.headers.first { $0.0 == "Retry-After" }?.1 == "1", "the seconds left, rounded up")
        // The accounts service is not rate-limited by it.
        let token = ServiceTests.post(
            service, "/api/token",
            form: [
                "grant_type": "refresh_token", "refresh_token": "nope",
                "client_id": "0123456789abcdef0123456789abcdef",
            ])
        #expect(token.0 == 400)
        // Closed: answers again, and the spent fault opens no other window.
        for offset in [2.0, 2.1, 2.2, 2.3] {
            #expect(request(service, "/v1/me", token: access, at: start.addingTimeInterval(offset)).status == 200)
        }
    }

    @Test func a429CanNameItsReason() throws {
        let service = ServiceTests.make()
        let (access, _) = ServiceTests.signIn(service)
        addFaults(service, #"{"faults":[{"kind":"status","status":429,"reason":"QUOTA_EXCEEDED"}]}"#)
        let response = request(service, "/v1/me", token: access, at: Date())
        #expect(response.status == 429)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect((body["error"] as? [String: Any])?["reason"] as? String == "QUOTA_EXCEEDED")
    }

    @Test func accessTokensDieAfterTheirRequests() throws {
        let service = ServiceTests.make { $0.accessTokenRequests = 3 }
        let (access, refresh) = ServiceTests.signIn(service)
        let now = Date()
        #expect((1...3).map { _ in request(service, "/v1/me", token: access, at: now).status } == [200, 200, 200])
        let dead = request(service, "/v1/me", token: access, at: now)
        #expect(dead.status == 401)
        #expect(String(decoding: dead.body, as: UTF8.self).contains("The access token expired"))
        // A refreshed token gets its own three.
        let (_, fresh) = ServiceTests.post(
            service, "/api/token",
            form: [
                "grant_type": "refresh_token", "refresh_token": refresh,
                "client_id": "0123456789abcdef0123456789abcdef",
            ])
        let next = try #require(fresh["access_token"] as? String)
        #expect(request(service, "/v1/me", token: next, at: now).status == 200)
    }

    @Test func faultsRoundTripThroughTheControlAPI() throws {
        let service = ServiceTests.make()
        addFaults(service, #"{"faults":[{"kind":"status","status":429,"every":5,"window_ms":2000,"count":12,"reason":"x"}]}"#)
        let listed = service.handle(SandboxRequest(method: "GET", path: "/__sandbox/faults", query: "", headers: [:]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])
        let fault = try #require((object["faults"] as? [[String: Any]])?.first)
        #expect(fault["every"] as? Int == 5 && fault["window_ms"] as? Int == 2000 && fault["count"] as? Int == 12 && fault["reason"] as? String == "x")
        #expect(fault["seen"] == nil, "internal counters stay out of the API")
    }
}
