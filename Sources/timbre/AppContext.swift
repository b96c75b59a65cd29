import Foundation
import TimbreAuth
import TimbreLibrary
import TimbreCore
import TimbreNet

/// What every command that talks to Spotify needs, built from the environment and config.toml.
struct AppContext {
    let environment: [String: String]
    let paths: Paths
    let config: Config

    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AppContext {
        let paths = Paths.resolve(environment: environment)
        return AppContext(environment: environment, paths: paths, config: try Config.load(paths: paths, environment: environment))
    }

    /// `TIMBRE_PROFILE` names a separate set of credentials (the demo uses its own); default "default".
    var profile: String {
        let name = environment["TIMBRE_PROFILE"]?.trimmingCharacters(in: .whitespaces) ?? ""
        return name.isEmpty ? "default" : name
    }

    func executor() -> RequestExecutor {
        RequestExecutor(transport: CurlTransport(settings: TransportSettings(config: config)),
                        budget: RateBudget(waitBudget: .seconds(config.rateLimitBudget)))
    }

    /// The cache, if a sync has created it; read-only commands never create one.
    func existingCache() throws -> LibraryCache? {
        guard FileManager.default.fileExists(atPath: paths.cache) else { return nil }
        // Read-only: no whole-file check before answering; `timbre sync` verifies before writing.
        return try LibraryCache.open(path: paths.cache, verify: false, warn: { Output.warning($0) })
    }

    /// `warnings` defaults to stderr; the interface passes its message list instead.
    func vault(insecureStorage: Bool = false, warnings: (@Sendable (String) -> Void)? = nil) -> CredentialVault {
        CredentialVault(
            profile: profile, refreshTier: config.refreshTokenTier,
            environment: EnvironmentSecretStore(environment: environment),
            keyring: LibSecretStore(), file: FileSecretStore(path: paths.credentials),
            insecureStorage: insecureStorage, warnings: warnings ?? { Output.warning($0) })
    }

    func clientID(redirectPort: Int) throws -> String {
        guard let id = config.clientID else { throw LoginError.missingClientID(redirectURI: PKCE.redirectURI(port: redirectPort)) }
        return id
    }

    /// Token handling for commands that call the Web API.
    func tokens(executor: RequestExecutor, vault: CredentialVault) throws -> TokenManager {
        let accounts = AccountsClient(executor: executor, accountsURL: config.accountsURL, clientID: try clientID(redirectPort: config.redirectPort))
        return TokenManager(accounts: accounts, vault: vault)
    }
}

extension Date {
    var iso8601: String {
        ClockText.iso(self)
    }
}
