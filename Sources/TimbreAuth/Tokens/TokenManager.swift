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
/// - one refresh at a time per profile across processes (`lockPath`: an `flock` on the profile's
///   `session.lock`): after taking the lock the stored session is read again, and a session
///   another process renewed meanwhile is adopted instead of spending the refresh token again
///   (Spotify rotates it: the loser of a race would get `invalid_grant`);
/// - `invalid_grant` re-reads the stored refresh token once (a process without the lock may have
///   rotated it) and tries the newer one; only then does it surface as "your Spotify session has
///   expired … run `timbre login`" (exit 4).
public actor TokenManager {
    public static let refreshMargin: TimeInterval = 300
    /// A session another process stored is adopted when it is valid at least this much longer:
    /// sending a request with it is worth more than one more refresh (a 401 still refreshes).
    public static let adoptionMargin: TimeInterval = 1
    /// How long a refresh waits for another process's refresh (one request to the accounts service).
    public static let lockWait: Duration = .seconds(30)

    private let accounts: AccountsClient
    private let vault: CredentialVault
    private let lockPath: String?
    private let lockWait: Duration
    private let logger = Logger(label: "timbre.auth")
    private var session: Session?
    private var loaded = false
    private var inFlight: Task<Session, any Error>?
    /// Refreshes performed by this manager (tests and `sync --json` read it).
    public private(set) var refreshCount = 0
    /// Sessions taken over from the store, renewed by another process (tests read it).
    public private(set) var adoptedCount = 0

    /// `lockPath`: the profile's session lock (`Paths.sessionLock`); nil when nothing else can
    /// share the credentials (tests with an in-memory store).
    public init(
        accounts: AccountsClient, vault: CredentialVault, session: Session? = nil, lockPath: String? = nil,
        lockWait: Duration = TokenManager.lockWait
    ) {
        self.accounts = accounts
        self.vault = vault
        self.session = session
        self.loaded = session != nil
        self.lockPath = lockPath
        self.lockWait = lockWait
    }

    /// The current session, loading it from the store the first time.
    public func currentSession() async -> Session? {
        if !loaded {
            // Only a session minted from the refresh token this run uses: the profile's stored one
            // may be another account's (a token given in TIMBRE_REFRESH_TOKEN) or an older sign-in's.
            if let stored = await vault.loadSession(), let grant = stored.grant,
                let (refreshToken, _) = try? await vault.refreshToken(), grant == Session.grant(of: refreshToken)
            {
                session = stored
            }
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
        // The session this refresh replaces: a stored one that differs was renewed by another process.
        let replacing = await currentSession()?.accessToken
        guard let lockPath else { return try await refreshStored(replacing: replacing) }
        let lock: FileLock
        do {
            lock = try await FileLock.acquire(path: lockPath, wait: lockWait)
        } catch {
            throw SessionLockError(underlying: error)
        }
        defer { lock.release() }
        return try await refreshStored(replacing: replacing)
    }

    /// Under the lock: adopt what another process stored, else refresh with the stored refresh
    /// token (always the newest one: every refresh stores its rotation before letting go).
    private func refreshStored(replacing: String?) async throws -> Session {
        // One read of the store's refresh token serves the adoption check and the refresh.
        guard let (refreshToken, source) = try await vault.refreshToken() else { throw AuthError.notSignedIn }
        if let adopted = await adoptable(replacing: replacing, holding: refreshToken) { return adopted }
        do {
            return try await exchange(refreshToken, from: source)
        } catch let error as SpotifyError where error.isInvalidGrant {
            // Once: a process of an older timbre, or one whose lock file was elsewhere, may have
            // rotated the token after it was read here.
            guard let (newer, newerSource) = try await vault.refreshToken() else { throw error }
            if let adopted = await adoptable(replacing: replacing, holding: newer) { return adopted }
            guard !newer.withString({ n in refreshToken.withString { $0 == n } }) else { throw error }
            logger.info("refresh token rotated by another process; trying the newer one")
            return try await exchange(newer, from: newerSource)
        }
    }

    /// The stored session, when it is not the one being replaced, still valid, and minted from
    /// `refreshToken`, the one this process would use (another account's session is never taken over).
    private func adoptable(replacing: String?, holding refreshToken: SecretBytes) async -> Session? {
        guard var stored = await vault.storedSession(), stored.accessToken != replacing,
            stored.isValid(for: Self.adoptionMargin), stored.grant == Session.grant(of: refreshToken)
        else { return nil }
        if stored.userID == nil {
            stored.userID = session?.userID
            stored.displayName = session?.displayName
        }
        adoptedCount += 1
        logger.info("access token renewed by another timbre process; using it")
        return stored
    }

    private func exchange(_ refreshToken: SecretBytes, from source: SecretSource) async throws -> Session {
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
        // The grant of the refresh token the store holds now: the rotated one when it was stored.
        let current = response.refreshToken.flatMap { $0.isEmpty || source == .env ? nil : SecretBytes($0) } ?? refreshToken
        var fresh = Session(
            accessToken: response.accessToken, expiresAt: Date().addingTimeInterval(TimeInterval(response.expiresIn)),
            scopes: response.scopes.isEmpty ? (session?.scopes ?? []) : response.scopes,
            userID: session?.userID, displayName: session?.displayName, grant: Session.grant(of: current))
        if fresh.userID == nil, let stored = await vault.loadSession(), stored.grant == Session.grant(of: refreshToken) {
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

/// Another process held the profile's session lock for longer than a refresh takes.
public struct SessionLockError: UserFacingError {
    public var underlying: FileLockError

    public var message: String {
        switch underlying {
        case .busy(_, let pid, let waited):
            let holder = pid.map { "timbre process \($0)" } ?? "another timbre process"
            return "\(holder) has been renewing the Spotify session for more than \(waited.components.seconds) s"
        default: return "cannot take the session lock: \(underlying.message)"
        }
    }

    public var hint: String? {
        switch underlying {
        case .busy: return "check your network connection, or stop that process, then try again; you are still signed in"
        default: return underlying.hint
        }
    }

    public var exitStatus: ExitStatus { .failure }
}
