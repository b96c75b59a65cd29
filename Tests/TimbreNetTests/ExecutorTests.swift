import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// The executor over the real transport and a real TLS server.
@Suite(.tags(.integration), .integrationTier) struct RequestExecutorTests {
    let pki: TestPKI
    init() async throws { pki = try await TestPKI.shared() }

    private func executor(
        _ server: TestTLSServer, policy: RetryPolicy = RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(100)),
        budget: RateBudget = RateBudget()
    ) -> RequestExecutor {
        RequestExecutor(transport: CurlTransport(settings: settings(pki, pins: [pki.leaf])), budget: budget, policy: policy)
    }

    /// The signers over the real transport, checked by an independent verifier (the fixture's
    /// Python hmac/hashlib): an HMAC-signed POST with a body and a query, an API key in a header
    /// and in the query; a wrong key is refused. The executor is the same for each.
    @Test func signedRequestsVerifyAtARealTLSServer() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server)
        /// 200 and what the server verified, or the status a refusal came back with.
        func verified(_ request: HTTPRequest, _ signer: any RequestSigner) async throws -> (Int, String?) {
            do {
                let response = try await executor.send(request, signer: signer)
                let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                return (response.status, object?["verified"] as? String)
            } catch let error as SpotifyError {
                return (error.status, nil)
            }
        }
        var post = HTTPRequest(method: .post, url: server.url("/signed?b=2&a=caf%C3%A9"))
        post.body = Data(#"{"uris":["spotify:track:x"]}"#.utf8)
        post.setHeader("Content-Type", "application/json")
        let hmac = HMACRequestSigner(keyID: "ops", key: Array(0..<32))
        #expect(try await verified(post, hmac) == (200, "hmac"))
        #expect(try await verified(HTTPRequest(url: server.url("/signed")), hmac) == (200, "hmac"))
        #expect(try await verified(post, HMACRequestSigner(keyID: "ops", key: Array(1..<33))).0 == 401)
        let header = APIKeySigner(key: "test-api-key-7d1f", placement: .header("X-API-Key"))
        #expect(try await verified(HTTPRequest(url: server.url("/signed")), header) == (200, "api_key"))
        let query = APIKeySigner(key: "test-api-key-7d1f", placement: .query("api_key"))
        #expect(try await verified(HTTPRequest(url: server.url("/signed?x=1")), query) == (200, "api_key"))
        #expect(try await verified(HTTPRequest(url: server.url("/signed")), APIKeySigner(key: "wrong", placement: .header("X-API-Key"))).0 == 401)
    }

    @Test func rateLimitWaitsRetryAfterThenSucceeds() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server)
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await executor.send(HTTPRequest(url: server.url("/flaky?key=rl&fail=1&status=429&retry_after=1")))
        #expect(response.status == 200)
        #expect(clock.now - start >= .seconds(1))
        #expect(executor.requestsSent == 2)
    }

    @Test func rateLimitPausesEveryConcurrentRequest() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server)
        // One request is answered 429 with Retry-After: 1; the others start once the executor has
        // seen that answer (not after a fixed sleep: on a loaded machine the 429 can take longer
        // to come back) and must not reach the server until the pause is over. Seen = the pause
        // has begun (`waited` only grows; `remainingPause` is nil again once it is over), with a
        // guard against a hang only: under load the 429 once took more than 10 s to come back.
        let limited = Task { try await executor.send(HTTPRequest(url: server.url("/flaky?key=p&fail=1&status=429&retry_after=1"))) }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(120)
        while executor.budget.waited == .zero, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(executor.budget.waited > .zero, "the 429 never came back")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await executor.send(HTTPRequest(url: server.url("/ok"))) } }
            try await group.waitForAll()
        }
        _ = try await limited.value
        let log = try server.requests()
        let rateLimitedAt = try #require(log.first { $0.path == "/flaky" }?.t)
        let okTimes = log.filter { $0.path == "/ok" }.map(\.t)
        #expect(okTimes.count == 4)
        #expect(okTimes.allSatisfy { $0 >= rateLimitedAt + 0.9 }, "requests sent during the pause: \(okTimes.map { $0 - rateLimitedAt })")
    }

    /// Issue #42 item 1: a `Retry-After` past the budget stops the process at once — the next
    /// request is refused without being sent — with a sentence naming the wait and the time.
    @Test func retryAfterBeyondTheBudgetStopsEveryRequestNamingTheWait() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server, budget: RateBudget(waitBudget: .seconds(5)))
        let error = await #expect(throws: RequestsStopped.self) {
            try await executor.send(HTTPRequest(url: server.url("/status/429?retry_after=3600")))
        }
        guard case .wait(let until, let quota, let given, let budget)? = error?.reason, let at = error?.at else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(!quota && given == 3600 && budget == 5)
        #expect(abs(until.timeIntervalSince(at) - 3600) < 1)
        #expect(error?.message.hasPrefix("Spotify asks timbre to wait 1 h, until ") == true, "\(String(describing: error?.message))")
        #expect(error?.exitStatus == .failure && error?.forSync.exitStatus == .partial)
        #expect(executor.budget.waited == .zero, "a refused pause is not waited")
        await #expect(throws: RequestsStopped.self) { try await executor.send(HTTPRequest(url: server.url("/status/200"))) }
        #expect(try server.requests().count == 1, "nothing is sent after the stop")
    }

    @Test func serverErrorsAreRetriedWithBackoff() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server)
        let response = try await executor.send(HTTPRequest(url: server.url("/flaky?key=5xx&fail=2&status=503")))
        #expect(response.status == 200)
        #expect(try server.requests().count == 3)
    }

    @Test func persistentServerErrorsGiveUpAfterTheBound() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server, policy: RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20)))
        let error = await #expect(throws: SpotifyError.self) { try await executor.send(HTTPRequest(url: server.url("/status/502"))) }
        #expect(error == .serverUnavailable(status: 502, attempts: 3, path: "/status/502"))
        #expect(try server.requests().count == 3)
    }

    @Test func connectionResetMidBodyIsRetried() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server)
        let response = try await executor.send(HTTPRequest(url: server.url("/reset?key=r&fail=1")))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(object?["attempt"] as? Int == 2)
    }

    @Test func resetPostIsNotResent() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server)
        let error = await #expect(throws: TransportError.self) {
            try await executor.send(HTTPRequest.form(server.url("/reset?key=post&fail=1"), fields: [("a", "b")]))
        }
        guard case .connection(_, .reset, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(try server.requests().count == 1)
    }

    @Test func apiErrorBodyBecomesATypedError() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let error = await #expect(throws: SpotifyError.self) { try await executor(server).send(HTTPRequest(url: server.url("/status/404"))) }
        #expect(error == .api(status: 404, message: "test status 404", path: "/status/404"))
        #expect(try server.requests().count == 1, "4xx is not retried")
    }

    @Test func unauthorizedMeansSignInAgain() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let error = await #expect(throws: SpotifyError.self) { try await executor(server).send(HTTPRequest(url: server.url("/status/401"))) }
        #expect(error?.exitStatus == .authenticationRequired)
    }

    @Test func accountsInvalidGrantTellsTheUserToSignIn() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let error = await #expect(throws: SpotifyError.self) { try await executor(server).send(HTTPRequest(url: server.url("/accounts-error"))) }
        #expect(error?.isInvalidGrant == true)
        #expect(error?.exitStatus == .authenticationRequired)
        #expect(error?.message == "your Spotify session has expired (refresh tokens last 6 months) — run `timbre login`")
    }

    @Test func unexpectedBodyIsSanitised() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = executor(server, policy: RetryPolicy(maxRetries: 0))
        let error = await #expect(throws: SpotifyError.self) { try await executor.send(HTTPRequest(url: server.url("/html-error"))) }
        #expect(error?.message.contains("\u{1B}") == false)
    }

    @Test func trustFailuresAreNotRetried() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let executor = RequestExecutor(transport: CurlTransport(settings: settings(pki, pins: [pki.other])))
        await #expect(throws: TransportError.self) { try await executor.send(HTTPRequest(url: server.url("/ok"))) }
        #expect(executor.requestsSent == 1)
        #expect(try server.requests().isEmpty)
    }
}

/// Logic without a network: a scripted transport.
@Suite struct RetryLogicTests {
    @Test func backoffGrowsExponentiallyAndIsCapped() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.delay(beforeRetry: 0, jitter: 1) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 1, jitter: 1) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 3, jitter: 1) == .milliseconds(800))
        #expect(policy.delay(beforeRetry: 4, jitter: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 60, jitter: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 2, jitter: 0) == .milliseconds(200), "jitter scales into [0.5, 1]")
    }

    @Test func retryAfterParsing() {
        #expect(RetryPolicy.retryAfter("3") == .seconds(3))
        #expect(RetryPolicy.retryAfter(nil) == .seconds(1))
        #expect(RetryPolicy.retryAfter("garbage") == .seconds(1))
        #expect(RetryPolicy.retryAfter("-5") == .seconds(1), "negative reads as unreadable")
        #expect(RetryPolicy.retryAfter("0") == RetryPolicy.shortestRetryAfter, "zero still pauses: no busy loop")
        #expect(RetryPolicy.retryAfter("2.5") == .milliseconds(2500))
        #expect(RetryPolicy.retryAfter("1e19") == RetryPolicy.longestRetryAfter, "huge values are clamped before any conversion (this trapped)")
        #expect(RetryPolicy.retryAfter("99999999999999999999999") == RetryPolicy.longestRetryAfter)
        #expect(RetryPolicy.retryAfter("inf") == .seconds(1))
        #expect(RetryPolicy.retryAfter("nan") == .seconds(1))
        #expect(RetryPolicy.retryAfter("1e400") == .seconds(1), "not finite")
        #expect(RetryPolicy.retryAfter("--3") == .seconds(1))
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RetryPolicy.retryAfter("Mon, 12 Jan 1970 13:46:50 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Fri, 01 Jan 9999 00:00:00 GMT", now: now) == RetryPolicy.longestRetryAfter)
    }

    @Test func pinVerifierHonoursScope() {
        let pins = (1...3).map { SPKIPin(digest: Array(repeating: UInt8($0), count: 32)) }
        let chain = zip(PinVerifier.positions(count: 3), pins).map { ChainEntry(position: $0, subject: "", pin: $1) }
        let host = HostPattern("h.example")!
        #expect(
            PinVerifier.evaluate(rule: PinRule(host: host, pins: [pins[2]], scope: .root), chain: chain)
                == .matched(pin: pins[2], position: .root, isPrimary: true))
        #expect(PinVerifier.evaluate(rule: PinRule(host: host, pins: [pins[2]], scope: .leaf), chain: chain) == .mismatch)
        #expect(
            PinVerifier.evaluate(rule: PinRule(host: host, pins: [pins[0], pins[1]], scope: .intermediate), chain: chain)
                == .matched(pin: pins[1], position: .intermediate, isPrimary: false))
        #expect(PinVerifier.positions(count: 1) == [.leaf])
        #expect(PinVerifier.positions(count: 2) == [.leaf, .root])
    }
}
