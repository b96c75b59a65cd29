import Foundation
import Logging
import TimbreCore
import TimbreNet

/// Hands out valid access tokens (Nevod's token-model idea: one object that authorizes requests
/// and refreshes when needed).
///
/// - refreshes proactively when less than 5 minutes remain;
/// - single-flight: any number of concurrent callers share one refresh;
/// - a rotated refresh token is stored before the new access token is handed out;
/// - a response without `refresh_token` keeps the old one;
/// - `invalid_grant` surfaces as "your Spotify session has expired … run `timbre login`" (exit 4).
public actor TokenManager {
    public static let refreshMargin: TimeInterval = 300

    private let accounts: AccountsClient
    private let vault: CredentialVault
    private let logger = Logger(label: "timbre.auth")
    private var session: Session?
    private var loaded = false
    private var inFlight: Task<Session, any Error>?
    /// Refreshes performed by this manager (tests and `sync --json` read it).
    public private(set) var refreshCount = 0

    public init(accounts: AccountsClient, vault: CredentialVault, session: Session? = nil) {
        self.accounts = accounts
        self.vault = vault
        self.session = session
        self.loaded = session != nil
    }

    /// The current session, loading it from the store the first time.
    public func currentSession() async -> Session? {
        if !loaded {
            session = await vault.loadSession()
            loaded = true
        }
        return session
    }

    /// A token valid for at least five more minutes.
    public func accessToken() async throws -> String {
        if let session = await currentSession(), session.isValid(for: Self.refreshMargin) {
            return session.accessToken
        }
        return try await refresh().accessToken
    }

    /// After a 401 for `rejected`: refresh once, unless another caller already did.
    public func accessToken(afterRejecting rejected: String) async throws -> String {
        if let session, session.accessToken != rejected, session.isValid(for: Self.refreshMargin) {
            return session.accessToken
        }
        if session?.accessToken == rejected { session?.expiresAt = .distantPast }
        return try await refresh().accessToken
    }

    /// Refreshes now (single-flight) and returns the new session.
    @discardableResult
    public func refresh() async throws -> Session {
        if let inFlight { return try await inFlight.value }
        // The task itself installs the new session and ends the flight, on the actor, the moment
        // it finishes: a caller resumed later must never find the old session with the finished
        // flight still in place (it would be handed the same token again as "renewed").
        let task = Task {
            defer { self.inFlight = nil }
            let fresh = try await self.performRefresh()
            self.session = fresh
            return fresh
        }
        inFlight = task
        return try await task.value
    }

    private func performRefresh() async throws -> Session {
        guard let (refreshToken, source) = try await vault.refreshToken() else { throw AuthError.notSignedIn }
        let response = try await accounts.refresh(refreshToken)
        refreshCount += 1
        if let rotated = response.refreshToken, !rotated.isEmpty, !refreshToken.withString({ $0 == rotated }) {
            // Store the rotated token before anything uses the new access token: if this fails,
            // the user still holds a refresh token that works.
            if source == .env {
                logger.warning("Spotify rotated the refresh token given in TIMBRE_REFRESH_TOKEN; it is not stored anywhere")
                vault.warn("Spotify issued a new refresh token; the one in TIMBRE_REFRESH_TOKEN may stop working — mint a new one with `timbre login` on a machine with a browser")
            } else {
                try await vault.storeRefreshToken(SecretBytes(rotated), to: source)
            }
        }
        var fresh = Session(accessToken: response.accessToken, expiresAt: Date().addingTimeInterval(TimeInterval(response.expiresIn)),
                            scopes: response.scopes.isEmpty ? (session?.scopes ?? []) : response.scopes,
                            userID: session?.userID, displayName: session?.displayName)
        if fresh.userID == nil, let stored = await vault.loadSession() {
            fresh.userID = stored.userID
            fresh.displayName = stored.displayName
        }
        await vault.saveSession(fresh)
        logger.info("access token refreshed", metadata: ["expires_in": "\(response.expiresIn)", "rotated": "\(response.refreshToken != nil)"])
        return fresh
    }

    /// Records who the session belongs to (after `GET /me`).
    public func setUser(_ profile: UserProfile) async {
        guard var current = await currentSession() else { return }
        current.userID = profile.id
        current.displayName = profile.displayName
        session = current
        await vault.saveSession(current)
    }
}

/// Sends Web API requests with a valid bearer token, only ever to the API's own origin.
///
/// A 401 refreshes the token (single-flight across every request) and retries, for as long as
/// each 401 answers a newer token than the one rejected before (bounded by
/// `RetryPolicy.maxReauthorizations`): with many requests in flight and tokens that die quickly,
/// one retry is not enough, and only a refresh the accounts service itself refuses means "sign
/// in again".
public struct AuthorizedClient: Sendable {
    public let executor: RequestExecutor
    public let tokens: TokenManager
    public let apiURL: URL

    public init(executor: RequestExecutor, tokens: TokenManager, apiURL: URL) {
        self.executor = executor
        self.tokens = tokens
        self.apiURL = apiURL
    }

    /// `path` is relative to api_url (`me/playlists?limit=50`) or an absolute `next` URL, which
    /// must be on api_url's origin: the token is never sent anywhere else.
    public func get(_ path: String) async throws -> HTTPResponse {
        let url = try resolve(path)
        var token = try await tokens.accessToken()
        var reauthorizations = 0
        while true {
            do {
                return try await executor.send(HTTPRequest(url: url, headers: [("Authorization", "Bearer \(token)")]))
            } catch let error as SpotifyError where error.status == 401 && reauthorizations < executor.policy.maxReauthorizations {
                let renewed = try await tokens.accessToken(afterRejecting: token)
                // The same token again means no refresh could help: give the 401 to the caller.
                guard renewed != token else { throw error }
                token = renewed
                reauthorizations += 1
            }
        }
    }

    func resolve(_ path: String) throws -> URL {
        if path.hasPrefix("https://") || path.hasPrefix("http://") {
            guard let absolute = URL(string: path) else { throw TransportError.invalidRequest("bad URL from the API: \(TerminalText.preview(path))") }
            guard Self.sameOrigin(absolute, apiURL), absolute.path.hasPrefix(apiURL.path) else {
                throw TransportError.invalidRequest(
                    "the API pointed timbre at \(TerminalText.preview(Redactor.redact(absolute.absoluteString), limit: 80)), outside api_url (\(apiURL.absoluteString)); the access token is only sent to api_url")
            }
            return absolute
        }
        guard let relative = URL(string: apiURL.absoluteString + "/" + path) else { throw TransportError.invalidRequest("bad path \(TerminalText.preview(path))") }
        return relative
    }

    /// Scheme, host and port equal (a missing port is the scheme's default).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    /// `GET /me`; an unreadable body is transient, like a 5xx: fetched again after a backoff.
    public func me() async throws -> UserProfile {
        var attempt = 0
        while true {
            let response = try await get("me")
            if let profile = try? JSONDecoder().decode(UserProfile.self, from: response.body) { return profile }
            guard attempt < executor.policy.maxRetries else { throw AuthError.malformedProfile }
            try await executor.backOff(attempt: attempt)
            attempt += 1
        }
    }
}
