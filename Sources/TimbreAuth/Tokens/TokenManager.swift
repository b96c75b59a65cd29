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
                vault.warn(
                    "Spotify issued a new refresh token; the one in TIMBRE_REFRESH_TOKEN may stop working — mint a new one with `timbre login` on a machine with a browser"
                )
            } else {
                try await vault.storeRefreshToken(SecretBytes(rotated), to: source)
            }
        }
        var fresh = Session(
            accessToken: response.accessToken, expiresAt: Date().addingTimeInterval(TimeInterval(response.expiresIn)),
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
