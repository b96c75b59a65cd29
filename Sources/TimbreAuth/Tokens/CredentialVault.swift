import Foundation
import Logging
import TimbreCore

/// Where one profile's credentials are read from and written to, across the stores:
///
/// - refresh token: `TIMBRE_REFRESH_TOKEN` first (read-only, never written anywhere), then the
///   keyring, then the plain-text file (only if it exists). Written to the keyring at its tier
///   (`secret_tier_refresh_token`, default high), or to the file with `--insecure-storage`; a
///   rotated token goes back where the old one came from. With no keyring and no
///   `--insecure-storage`, storing it fails with the keyring message: no silent fallback.
/// - session (access token, expiry, user): standard tier; the keyring when reachable, else the
///   file when that is where the refresh token lives, else this run's memory only.
public final class CredentialVault: Sendable {
    public let profile: String
    public let refreshTier: SecretTier
    private let environment: (any SecretStore)?
    private let keyring: any SecretStore
    private let file: any SecretStore
    /// `--insecure-storage` (or the demo profile): new secrets go to the file.
    public let insecureStorage: Bool
    private let memory = Locked<Session?>(nil)
    private let warnings: @Sendable (String) -> Void
    private let logger = Logger(label: "timbre.auth")

    public init(
        profile: String, refreshTier: SecretTier, environment: (any SecretStore)?, keyring: any SecretStore,
        file: any SecretStore, insecureStorage: Bool, warnings: @escaping @Sendable (String) -> Void
    ) {
        self.profile = profile
        self.refreshTier = refreshTier
        self.environment = environment
        self.keyring = keyring
        self.file = file
        self.insecureStorage = insecureStorage
        self.warnings = warnings
    }

    public func warn(_ text: String) { warnings(text) }

    /// The refresh token and where it was found; nil when none is stored anywhere.
    public func refreshToken() async throws -> (SecretBytes, SecretSource)? {
        if let environment, let token = try await environment.read(.refreshToken, profile: profile) {
            return (token, .env)
        }
        var keyringProblem: SecretStoreError?
        do {
            if let token = try await keyring.read(.refreshToken, profile: profile) { return (token, .keyring) }
        } catch {
            keyringProblem = error
        }
        if let token = try await file.read(.refreshToken, profile: profile) { return (token, .file) }
        // Nothing found. An unreachable keyring just means "not signed in here"; a locked or hung
        // one explains more than "not signed in" would, so it is reported as it is.
        if let keyringProblem {
            if case .serviceUnavailable = keyringProblem { return nil }
            throw keyringProblem
        }
        return nil
    }

    /// Where a new login's refresh token goes.
    public var loginDestination: SecretSource { insecureStorage ? .file : .keyring }

    /// Before a sign-in spends anything (a refresh rotates the token it was given): is there a
    /// keyring to keep the new token in? Throws `NowhereToStore` when there is none, or it is
    /// locked or does not answer. The file store (`--insecure-storage`) is checked when written.
    public func checkLoginDestination() async throws {
        guard loginDestination == .keyring else { return }
        do {
            _ = try await keyring.read(.session, profile: profile)
        } catch {
            throw NowhereToStore(keyring: error)
        }
    }

    public func storeRefreshToken(_ token: SecretBytes, to destination: SecretSource) async throws {
        switch destination {
        case .env: return
        case .file: try await file.write(token, kind: .refreshToken, tier: refreshTier, profile: profile)
        case .keyring: try await keyring.write(token, kind: .refreshToken, tier: refreshTier, profile: profile)
        }
    }

    public func loadSession() async -> Session? {
        if let session = memory.current { return session }
        for store in [keyring, file] {
            if let secret = try? await store.read(.session, profile: profile), let session = secret.withString(Session.decode) {
                memory.withLock { $0 = session }
                return session
            }
        }
        return nil
    }

    /// The session as stored now, past this run's memory (another process may have renewed it),
    /// remembered when found; nil when no store holds one.
    public func storedSession() async -> Session? {
        for store in [keyring, file] {
            if let secret = try? await store.read(.session, profile: profile), let session = secret.withString(Session.decode) {
                memory.withLock { $0 = session }
                return session
            }
        }
        return nil
    }

    /// Best effort: a session that cannot be stored is kept for this run only.
    public func saveSession(_ session: Session) async {
        memory.withLock { $0 = session }
        guard let text = try? session.encoded() else { return }
        let secret = SecretBytes(text)
        do {
            try await keyring.write(secret, kind: .session, tier: .standard, profile: profile)
            return
        } catch {
            logger.debug("session not stored in the keyring", metadata: ["reason": "\(error.message)"])
        }
        var useFile = insecureStorage
        if !useFile { useFile = (try? await file.read(.refreshToken, profile: profile)) != nil }
        if useFile {
            try? await file.write(secret, kind: .session, tier: .standard, profile: profile)
        }
    }

    /// Removes every secret of the profile from every store; returns where something may have been.
    public func removeAll() async throws -> [String] {
        memory.withLock { $0 = nil }
        var problems: [String] = []
        for store in [keyring, file] {
            for kind in SecretKind.signIn {
                do { try await store.delete(kind, profile: profile) } catch {
                    if case .serviceUnavailable = error { continue }
                    problems.append("\(store.source.rawValue): \(error.message)")
                }
            }
        }
        return problems
    }
}

/// `login --with-token` with no usable keyring and no `--insecure-storage`: refused before the
/// token is used, since Spotify may rotate it on first use and the new one would have nowhere to go.
public struct NowhereToStore: UserFacingError {
    public var keyring: SecretStoreError
    public var message: String {
        "\(keyring.message) Nothing was sent to Spotify: the token you gave is still unused."
    }
    public var hint: String? {
        "unlock or start a keyring and run the same command again, or keep the token in a 0600 file: `timbre login --with-token --insecure-storage`"
    }
    public var exitStatus: ExitStatus { .authenticationRequired }
}
