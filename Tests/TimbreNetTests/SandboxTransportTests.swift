import Foundation
import SandboxCore
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreNet

/// The transport and executor against the bundled sandbox, configured only through config.toml
/// text, the way a user would set it up.
@Suite(.tags(.integration), .integrationTier) struct SandboxTransportTests {
    private func transport(_ sandbox: SandboxProcess, pins: [String], scope: String = "any", observer: TrustObserver? = nil) throws -> RequestExecutor {
        let config = try Config.parse(sandbox.info.configTOML(pins: pins, scope: scope))
        return RequestExecutor(
            transport: CurlTransport(settings: TransportSettings(config: config), observer: observer),
            policy: RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(100)))
    }

    private func me(_ sandbox: SandboxProcess, token: String) -> HTTPRequest {
        HTTPRequest(url: URL(string: sandbox.info.apiURL + "/me")!, headers: [("Authorization", "Bearer \(token)")])
    }

    @Test func pinsFromTheSandboxLetRequestsThrough() async throws {
        let sandbox = try await SandboxProcess.start()
        try await withCleanup({ await sandbox.stop() }) {
            let (token, _) = try await sandbox.signIn()
            try await sandbox.clearRequests()
            for (pin, scope) in [(sandbox.info.pins.leaf, "leaf"), (sandbox.info.pins.intermediate, "intermediate"), (sandbox.info.pins.root, "root")] {
                // The executor held for the whole send (a temporary's lifetime is not promised past
                // the call's first suspension: a full run once read a freed transport here).
                let executor = try transport(sandbox, pins: [pin], scope: scope)
                defer { withExtendedLifetime(executor) {} }
                let response = try await executor.send(me(sandbox, token: token))
                let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                #expect(object?["id"] as? String == sandbox.info.userID)
            }
            #expect(try await sandbox.requests().count == 3)
        }
    }

    /// A write without a body still says `Content-Length: 0` — PUT and DELETE as well as POST —
    /// or Spotify's front end answers 411 (spotify/web-api#859); the sandbox does the same.
    @Test func bodilessWritesSendContentLengthZero() async throws {
        let sandbox = try await SandboxProcess.start()
        try await withCleanup({ await sandbox.stop() }) {
            let (token, _) = try await sandbox.signIn()
            let executor = try transport(sandbox, pins: [sandbox.info.pins.root], scope: "root")
            let uri = try #require(try await sandbox.likedURIs().first)
            try await sandbox.clearRequests()
            let morningCoffee = "2nZzl0QOqazWKTfzBHvI16"  // small, seed 42: the user's own
            let before = try await sandbox.entries(of: morningCoffee)
            for method in [HTTPMethod.delete, .put, .post] {
                // The URIs in the query, no body: an unlike, a like, an add at the end.
                let path = method == .post ? "/playlists/\(morningCoffee)/items?uris=\(uri)" : "/me/library?uris=\(uri)"
                let request = HTTPRequest(method: method, url: URL(string: sandbox.info.apiURL + path)!, headers: [("Authorization", "Bearer \(token)")])
                let response = try await executor.send(request)
                #expect(response.status == (method == .post ? 201 : 200), "\(method) \(response.status)")
            }
            let writes = try await sandbox.requests()
            #expect(writes.map(\.method) == ["DELETE", "PUT", "POST"])
            #expect(writes.map(\.contentLength) == ["0", "0", "0"])
            #expect(writes.map(\.requestBytes) == [0, 0, 0])
            #expect(try await sandbox.likedURIs().first == uri, "unliked, then liked again (on top)")
            #expect(try await sandbox.entries(of: morningCoffee) == before + [uri])
        }
    }

    @Test func wrongPinReachesNoEndpoint() async throws {
        let sandbox = try await SandboxProcess.start()
        try await withCleanup({ await sandbox.stop() }) {
            let (token, _) = try await sandbox.signIn()
            try await sandbox.clearRequests()
            let wrong = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
            let recorder = TrustEventRecorder()
            let error = await #expect(throws: TransportError.self) {
                let executor = try transport(sandbox, pins: [wrong], observer: recorder)
                defer { withExtendedLifetime(executor) {} }
                _ = try await executor.send(me(sandbox, token: token))
            }
            #expect(error?.exitStatus == .trustFailure)
            #expect(try await sandbox.requests().isEmpty, "no HTTP request may reach the server")
            guard case .pinMismatch? = recorder.events.first else {
                Issue.record("\(recorder.events)")
                return
            }
        }
    }

    @Test func faultsEndWithTheRightAnswer() async throws {
        let sandbox = try await SandboxProcess.start()
        try await withCleanup({ await sandbox.stop() }) {
            let (token, _) = try await sandbox.signIn()
            let executor = try transport(sandbox, pins: [sandbox.info.pins.root], scope: "root")
            try await sandbox.addFaults([
                Fault(kind: .status, pathContains: "/me", count: 1, status: 429, retryAfter: 1),
                Fault(kind: .status, pathContains: "/me", count: 2, status: 503),
                Fault(kind: .reset, pathContains: "/me", count: 1),
            ])
            try await sandbox.clearRequests()
            let response = try await executor.send(me(sandbox, token: token))
            #expect(response.status == 200)
            let statuses = try await sandbox.requests().map(\.status)
            #expect(statuses.first == 429)
            #expect(statuses.last == 200)
            #expect(statuses.count == 5, "429, 503, 503, reset, 200: \(statuses)")
        }
    }

    /// Bursts with quiet gaps between them (a sync waiting on its writer, say) reuse the connections
    /// of the first burst: curl's default connection cache shrank with the transfers in flight and
    /// closed them, and every burst paid new TLS handshakes.
    @Test func burstsReuseTheirConnections() async throws {
        let sandbox = try await SandboxProcess.start()
        try await withCleanup({ await sandbox.stop() }) {
            let (token, _) = try await sandbox.signIn()
            let recorder = TrustEventRecorder()
            let executor = try transport(sandbox, pins: [sandbox.info.pins.root], scope: "root", observer: recorder)
            let width = CurlTransport.connectionsPerHost
            for _ in 0..<8 {
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<width { group.addTask { try await executor.send(me(sandbox, token: token)).status } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: width))
            }
            let handshakes = recorder.events.filter { if case .pinMatched = $0 { true } else { false } }.count
            #expect(handshakes >= 1 && handshakes <= width, "\(handshakes) TLS handshakes for 8 bursts of \(width) requests")
        }
    }

    @Test func expiredTokenSurfacesAsSignInRequired() async throws {
        let sandbox = try await SandboxProcess.start()
        try await withCleanup({ await sandbox.stop() }) {
            let (token, _) = try await sandbox.signIn()
            try await sandbox.expireAccessTokens()
            let error = await #expect(throws: SpotifyError.self) {
                let executor = try transport(sandbox, pins: [sandbox.info.pins.leaf])
                defer { withExtendedLifetime(executor) {} }
                _ = try await executor.send(me(sandbox, token: token))
            }
            #expect(error?.exitStatus == .authenticationRequired)
        }
    }
}
