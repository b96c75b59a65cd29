import Foundation
import Testing
import TimbreCore
import TimbreNet
import TimbreTestSupport

@testable import TimbreAuth

/// A scripted accounts service + API: counts refreshes, rotates on demand.
private final class FakeSpotify: HTTPTransport, @unchecked Sendable {
    let state = Locked(
        (
            refreshes: 0, issued: 0, rotate: true, omitRefresh: false, revoked: false, validRefresh: "r0",
            validAccess: Set<String>(), apiCalls: 0, usesPerToken: Int?.none, uses: [String: Int](), hosts: [String]()
        ))
    let refreshDelay: Duration

    init(refreshDelay: Duration = .milliseconds(50)) { self.refreshDelay = refreshDelay }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.path.hasSuffix("/api/token") {
            try await Task.sleep(for: refreshDelay)
            let form = String(decoding: request.body ?? Data(), as: UTF8.self)
            return state.withLock { s in
                let given = form.split(separator: "&").first { $0.hasPrefix("refresh_token=") }.map { String($0.dropFirst(14)) }
                guard !s.revoked, given == s.validRefresh else {
                    return HTTPResponse(status: 400, body: Data(#"{"error":"invalid_grant","error_description":"Refresh token revoked"}"#.utf8))
                }
                s.refreshes += 1
                s.issued += 1
                let access = "a\(s.issued)"
                s.validAccess.insert(access)
                var body: [String: Any] = ["access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": "playlist-read-private"]
                if !s.omitRefresh {
                    if s.rotate { s.validRefresh = "r\(s.issued)" }
                    body["refresh_token"] = s.validRefresh
                }
                return HTTPResponse(status: 200, body: (try? JSONSerialization.data(withJSONObject: body)) ?? Data())
            }
        }
        let auth = request.headers.first { $0.name == "Authorization" }?.value ?? ""
        return state.withLock { s in
            s.apiCalls += 1
            s.hosts.append(request.url.host ?? "")
            let token = String(auth.dropFirst("Bearer ".count))
            // Tokens that die after a few uses, as access tokens revoked mid-sync do.
            if let limit = s.usesPerToken, s.validAccess.contains(token) {
                s.uses[token, default: 0] += 1
                if s.uses[token, default: 0] > limit { s.validAccess.remove(token) }
            }
            guard s.validAccess.contains(token) else {
                return HTTPResponse(status: 401, body: Data(#"{"error":{"status":401,"message":"The access token expired"}}"#.utf8))
            }
            return HTTPResponse(status: 200, body: Data(#"{"id":"u1","display_name":"User One"}"#.utf8))
        }
    }
}

/// An in-memory keyring that records the order of writes.
private final class MemoryStore: SecretStore, @unchecked Sendable {
    let source: SecretSource = .keyring
    let values = Locked<[String: String]>([:])
    let writes = Locked<[String]>([])

    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        values.current["\(profile)/\(kind.rawValue)"].map { SecretBytes($0) }
    }
    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {
        let text = secret.withString { $0 }
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = text }
        writes.withLock { $0.append("\(kind.rawValue)=\(kind == .refreshToken ? text : "…")") }
    }
    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = nil }
    }
}

/// A store that holds nothing and keeps nothing (the file store of a profile without one).
struct EmptyStore: SecretStore {
    let source: SecretSource = .file
    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? { nil }
    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {}
    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {}
}

@Suite struct TokenManagerTests {
    private func make(_ fake: FakeSpotify, session: Session? = nil) async throws -> (TokenManager, MemoryStore, AuthorizedClient) {
        let store = MemoryStore()
        try await store.write(SecretBytes("r0"), kind: .refreshToken, tier: .high, profile: "p")
        store.writes.withLock { $0 = [] }
        let vault = CredentialVault(
            profile: "p", refreshTier: .high, environment: nil, keyring: store, file: EmptyStore(),
            insecureStorage: false, warnings: { _ in })
        let executor = RequestExecutor(transport: fake, policy: RetryPolicy(maxRetries: 0))
        let accounts = AccountsClient(executor: executor, accountsURL: URL(string: "https://accounts.test")!, clientID: "c")
        let manager = TokenManager(accounts: accounts, vault: vault, session: session)
        return (manager, store, AuthorizedClient(executor: executor, tokens: manager, apiURL: URL(string: "https://api.test/v1")!))
    }

    @Test func hundredConcurrentCallersCauseOneRefresh() async throws {
        let fake = FakeSpotify(refreshDelay: .milliseconds(200))
        let (manager, _, _) = try await make(fake)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await manager.accessToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["a1"])
        #expect(fake.state.current.refreshes == 1)
    }

    @Test func validTokenIsReusedAndNearExpiryIsRefreshed() async throws {
        let fake = FakeSpotify()
        fake.state.withLock { $0.validAccess.insert("old") }
        let fresh = Session(accessToken: "old", expiresAt: Date().addingTimeInterval(3000), scopes: [])
        let (manager, _, _) = try await make(fake, session: fresh)
        #expect(try await manager.accessToken() == "old")
        #expect(fake.state.current.refreshes == 0)

        let nearlyExpired = Session(accessToken: "old", expiresAt: Date().addingTimeInterval(200), scopes: [])
        let (manager2, _, _) = try await make(fake, session: nearlyExpired)
        #expect(try await manager2.accessToken() == "a1", "under 5 minutes left: refreshed first")
    }

    @Test func rotatedRefreshTokenIsStoredBeforeTheAccessTokenIsUsed() async throws {
        let fake = FakeSpotify()
        let (manager, store, client) = try await make(fake)
        _ = try await client.me()
        #expect(store.writes.current.first == "refresh_token=r1", "\(store.writes.current)")
        #expect(store.values.current["p/refresh_token"] == "r1")
        // The next refresh uses the rotated token and works.
        try await manager.refresh()
        #expect(store.values.current["p/refresh_token"] == "r2")
    }

    @Test func responseWithoutRefreshTokenKeepsTheOldOne() async throws {
        let fake = FakeSpotify()
        fake.state.withLock { $0.omitRefresh = true }
        let (manager, store, _) = try await make(fake)
        try await manager.refresh()
        try await manager.refresh()
        #expect(store.values.current["p/refresh_token"] == "r0")
        #expect(fake.state.current.refreshes == 2)
    }

    @Test func unauthorizedTriggersOneRefreshAndOneRetry() async throws {
        let fake = FakeSpotify()
        // The stored session claims to be valid, but the server no longer accepts it.
        let stale = Session(accessToken: "revoked-by-server", expiresAt: Date().addingTimeInterval(3000), scopes: [])
        let (_, _, client) = try await make(fake, session: stale)
        let profile = try await client.me()
        #expect(profile.id == "u1")
        #expect(fake.state.current.refreshes == 1)
        #expect(fake.state.current.apiCalls == 2)
    }

    @Test func each401ForANewerTokenRefreshesAgainSoQuicklyDyingTokensNeverEndTheRun() async throws {
        let fake = FakeSpotify(refreshDelay: .milliseconds(5))
        fake.state.withLock { $0.usesPerToken = 8 }
        let (_, _, client) = try await make(fake)
        // 24 requests at once, each token good for 8 of them: most requests meet a 401 for a
        // token refreshed after they started, some more than once.
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<24 { group.addTask { try await client.me().id } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(ids.count == 24 && ids.allSatisfy { $0 == "u1" })
        #expect(fake.state.current.refreshes >= 2, "refreshed \(fake.state.current.refreshes) times")
    }

    @Test func a401ThatNoRefreshCuresGivesUpAfterTheBound() async throws {
        let fake = FakeSpotify(refreshDelay: .milliseconds(1))
        // Every token is dead on arrival: the API refuses what the accounts service issues.
        fake.state.withLock { $0.usesPerToken = 0 }
        let (_, _, client) = try await make(fake)
        let error = await #expect(throws: SpotifyError.self) { try await client.get("me") }
        #expect(error?.exitStatus == .authenticationRequired)
        let state = fake.state.current
        #expect(state.refreshes == 1 + client.executor.policy.maxReauthorizations, "the first token, then one refresh per 401, bounded")
        #expect(state.apiCalls == 1 + client.executor.policy.maxReauthorizations)
    }

    @Test func theBearerTokenGoesOnlyToTheAPIOrigin() async throws {
        let fake = FakeSpotify()
        let (_, _, client) = try await make(fake)
        // A `next` link on the API's origin is followed.
        #expect(try await client.get("https://api.test/v1/me?offset=50").status == 200)
        #expect(try await client.get("https://API.test:443/v1/me").status == 200, "case and the default port are the same origin")
        // Anything else never sees the token: another host, port, scheme, or a path outside api_url.
        for hostile in [
            "https://evil.test/v1/me", "https://api.test.evil.test/v1/me", "https://api.test:8443/v1/me",
            "http://api.test/v1/me", "https://api.test/other/me", "https://user@evil.test/v1",
        ] {
            let error = await #expect(throws: TransportError.self, "\(hostile)") { try await client.get(hostile) }
            #expect(error?.message.contains("only sent to api_url") == true, "\(String(describing: error?.message))")
        }
        #expect(fake.state.current.hosts == ["api.test", "API.test"], "no request left for another origin")
    }

    /// Issue #31, item 10: dot segments (plain or percent-encoded) are removed before the check,
    /// and "below api_url" is by whole segments.
    @Test func pathsAreNormalisedAndMustStayBelowAPIURL() throws {
        let api = try #require(URL(string: "https://api.test/v1"))
        for (path, expected) in [
            ("me/./playlists?limit=5", "https://api.test/v1/me/playlists?limit=5"), ("me/../me", "https://api.test/v1/me"),
            ("https://api.test/v1/me/%2E/x", "https://api.test/v1/me/x"), ("https://api.test/v1", "https://api.test/v1"),
        ] {
            #expect(try AuthorizedClient.resolve(path, apiURL: api).absoluteString == expected, "\(path)")
        }
        for path in ["../x", "me/../../x", "me/%2e%2e/%2E%2E/x", "..", "https://api.test/v1evil", "https://api.test/v1/../x", "https://api.test/"] {
            #expect(throws: TransportError.self, "\(path)") { try AuthorizedClient.resolve(path, apiURL: api) }
        }
    }

    @Test func invalidGrantAsksTheUserToSignInAgain() async throws {
        let fake = FakeSpotify()
        fake.state.withLock { $0.revoked = true }
        let (manager, _, _) = try await make(fake)
        do {
            _ = try await manager.accessToken()
            Issue.record("expected invalid_grant")
        } catch let error as SpotifyError {
            #expect(error.exitStatus == .authenticationRequired)
            #expect(error.message == "your Spotify session has expired (refresh tokens last 6 months) — run `timbre login`")
        }
    }
}

@Suite struct LoginPiecesTests {
    @Test func pkceMatchesRFC7636AppendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", state: "s")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func freshPKCEIsRandomAndWellFormed() throws {
        let a = try PKCE(), b = try PKCE()
        #expect(a.verifier != b.verifier && a.state != b.state)
        #expect((43...128).contains(a.verifier.count))
        #expect(a.verifier.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) })
    }

    @Test func authorizeURLCarriesEveryParameter() throws {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", state: "st+ate")
        let url = pkce.authorizeURL(accountsURL: URL(string: "https://accounts.spotify.com")!, clientID: "cid", redirectURI: "http://127.0.0.1:8974/callback")
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(url.path == "/authorize")
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "cid")
        #expect(query["redirect_uri"] == "http://127.0.0.1:8974/callback")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"] == pkce.challenge)
        #expect(query["state"] == "st+ate")
        #expect(
            query["scope"]
                == "playlist-read-private playlist-read-collaborative user-library-read playlist-modify-public playlist-modify-private user-library-modify"
                + " user-read-playback-state user-modify-playback-state user-read-currently-playing user-read-recently-played",
            "reading, editing and playback")
    }

    @Test func callbackParsing() throws {
        #expect(try CallbackParser.parse("/callback?code=abc&state=s1", expectedState: "s1") == .code("abc"))
        #expect(try CallbackParser.parse("http://127.0.0.1:8974/callback?state=s1&code=abc", expectedState: "s1") == .code("abc"))
        #expect(try CallbackParser.parse("/favicon.ico", expectedState: "s1") == .unrelated)
        #expect(throws: LoginError.stateMismatch) { try CallbackParser.parse("/callback?code=abc&state=other", expectedState: "s1") }
        #expect(throws: LoginError.stateMismatch) { try CallbackParser.parse("/callback?code=abc", expectedState: "s1") }
        #expect(throws: LoginError.accessDenied) { try CallbackParser.parse("/callback?error=access_denied&state=s1", expectedState: "s1") }
    }

    @Test func tokenInputForms() throws {
        #expect(try LoginFlow.readRefreshToken(Data("AQDabc-_123\n".utf8)).withString { $0 } == "AQDabc-_123")
        #expect(try LoginFlow.readRefreshToken(Data(#"{"access_token":"x","refresh_token":"AQDjson123"}"#.utf8)).withString { $0 } == "AQDjson123")
        #expect(throws: LoginError.self) { try LoginFlow.readRefreshToken(Data()) }
        #expect(throws: LoginError.self) { try LoginFlow.readRefreshToken(Data("two words here".utf8)) }
        #expect(throws: LoginError.self) { try LoginFlow.readRefreshToken(Data("{\"nope\":1}".utf8)) }
        #expect(throws: LoginError.self) { try LoginFlow.readRefreshToken(Data("{broken".utf8)) }
    }

    @Test func browserCommandNeverUsesAShell() {
        let url = "https://a.example/authorize?x=1&y=$(rm -rf ~)"
        #expect(Browser.command(for: url, environment: ["BROWSER": "/usr/bin/firefox"]) == ["/usr/bin/firefox", url])
        #expect(Browser.command(for: url, environment: ["BROWSER": "/opt/b --new-tab %s:/usr/bin/other"]) == ["/opt/b", "--new-tab", url])
        #expect(Browser.command(for: url, environment: [:], searchPath: { $0 == "xdg-open" ? "/usr/bin/xdg-open" : nil }) == ["/usr/bin/xdg-open", url])
        #expect(Browser.command(for: url, environment: [:], searchPath: { _ in nil }) == nil)
    }

    @Test(.tags(.integration), .integrationTier) func loopbackListenerIgnoresStrayRequestsAndTakesTheMatchingCallback() async throws {
        let listener = try LoopbackListener(port: 0)
        #expect(listener.port > 0)
        let waiting = Task { try await listener.waitForCode(expectedState: "good", timeout: .seconds(10)) }
        for path in ["/favicon.ico", "/callback?code=c1&state=good"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "-o", "/dev/null", "http://127.0.0.1:\(listener.port)\(path)"]
            try process.run()
            while !process.hasEnded { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(try await waiting.value == "c1")
    }

    @Test(.tags(.integration), .integrationTier) func loopbackListenerTimesOut() async throws {
        let listener = try LoopbackListener(port: 0)
        await #expect(throws: LoginError.timedOut(seconds: 1)) {
            try await listener.waitForCode(expectedState: "s", timeout: .seconds(1))
        }
    }
}
