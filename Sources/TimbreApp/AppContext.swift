import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

/// One run of a command (gh's Factory): the console it talks through and the environment it was
/// started with. Nothing below reads the process's own environment or streams.
public struct Invocation: Sendable {
    public let console: Console
    public let environment: [String: String]
    /// The executor and token manager this process shares (`ProcessServices`); an invocation
    /// derived from another (global options, replay, the demo's profile) passes its own on.
    public let services: ProcessServices

    public init(console: Console, environment: [String: String], services: ProcessServices = ProcessServices()) {
        self.console = console
        self.environment = environment
        self.services = services
    }

    public var paths: Paths { Paths.resolve(environment: environment) }

    /// The composition root for commands that need config.toml.
    public func context() throws -> AppContext {
        let paths = self.paths
        return AppContext(invocation: self, paths: paths, config: try Config.load(paths: paths, environment: environment))
    }
}

/// The composition root (GRDB's AppDatabase, gh's Factory): everything a command needs is built
/// here from the environment and config.toml, once — the pinned transport, the executor, the
/// credential vault, the token manager and the live `SpotifyAPI`. No command builds them by hand.
public struct AppContext: Sendable {
    public let invocation: Invocation
    public let paths: Paths
    public let config: Config
    /// The profile's user data (journal, folders), opened once on first use and shared by
    /// everything this context builds: one queue per run.
    public let userData: SharedUserData

    /// `userData`: one already open to share (the interface's quiet context takes its own's).
    public init(invocation: Invocation, paths: Paths, config: Config, userData: SharedUserData? = nil) {
        self.invocation = invocation
        self.paths = paths
        self.config = config
        self.userData = userData ?? SharedUserData(path: paths.data)
    }

    public var console: Console { invocation.console }
    public var environment: [String: String] { invocation.environment }

    /// The profile (`--profile`, else `TIMBRE_PROFILE`, else "default"; `Root.run` has checked
    /// the name): the same one `paths` was resolved for, and the secrets' `profile` attribute.
    public var profile: String { ProfileName.text(in: environment) }

    /// Every request goes through this one: the pinned libcurl transport (recorded or replayed
    /// with TIMBRE_RECORD / TIMBRE_REPLAY: `exchangeTransport()`), the retry policy and the rate
    /// budget, one per process and profile (`ProcessServices`).
    public func executor() -> RequestExecutor {
        invocation.services.executor(key: servicesKey) {
            RequestExecutor(
                transport: exchangeTransport(), budget: RateBudget(waitBudget: .seconds(config.rateLimitBudget)), ledger: requestLedger())
        }
    }

    /// The profile's count of requests and the wait Spotify asked for, shared by all its
    /// processes (`timbre quota`); a wait stored under another client id is not this app's.
    public func requestLedger() -> RequestLedger {
        RequestLedger(directory: paths.stateDirectory, app: config.clientID)
    }

    /// What the shared executor and token manager depend on: the profile's files and the
    /// services config.toml names.
    var servicesKey: String {
        [paths.cache, paths.config, paths.credentials, config.apiURL.absoluteString, config.accountsURL.absoluteString, "\(config.rateLimitBudget)"]
            .joined(separator: "\n")
    }

    /// The pinned libcurl transport alone, for what is not a Web API call (doctor's connection
    /// check, `timbre pins`): config.toml's CA file, TLS minimum and pins apply all the same —
    /// with the applied remote pin set between config.toml's pins and the defaults — and every pin
    /// decision goes to trust.jsonl. Proxy and client certificate: `transportSettings()`.
    public func transport() -> CurlTransport {
        CurlTransport(settings: transportSettings(), observer: trustJournal)
    }

    /// The cache, if a sync has created it; read-only commands never create one. Every call in a
    /// process gets the process's one pool of the file (`LibraryCache.open` shares it): the
    /// interface's first frame, its sync, its editor and these reads use the same connections.
    public func existingCache() throws -> LibraryCache? {
        guard FileManager.default.fileExists(atPath: paths.cache) else { return nil }
        // Read-only: no whole-file check before answering; `timbre sync` verifies before writing.
        return try LibraryCache.open(path: paths.cache, verify: false, warn: console.warnings)
    }

    /// The desktop keyring, with the run's deadline for each D-Bus exchange: 3 s (gh's), or
    /// `TIMBRE_KEYRING_TIMEOUT` seconds for a keyring known to be slow (a KeePassXC database over a
    /// network drive, a loaded machine).
    func keyring() -> LibSecretStore {
        guard let text = environment["TIMBRE_KEYRING_TIMEOUT"], let seconds = Double(text), seconds > 0, seconds <= 600 else {
            return LibSecretStore()
        }
        return LibSecretStore(timeout: seconds)
    }

    /// `warnings` defaults to the console's stderr; the interface passes its message list instead.
    public func vault(insecureStorage: Bool = false, warnings: (@Sendable (String) -> Void)? = nil) -> CredentialVault {
        if replayDirectory != nil { return replayVault(warnings: warnings) }
        if DemoCommand.isDemo(self) { return demoVault(warnings: warnings) }
        return CredentialVault(
            profile: profile, refreshTier: config.refreshTokenTier,
            environment: EnvironmentSecretStore(environment: environment),
            keyring: keyring(), file: FileSecretStore(path: paths.credentials, warn: { [console] in console.say($0) }),
            insecureStorage: insecureStorage, warnings: warnings ?? console.warnings)
    }

    /// The demo profile's secrets: a sandbox account's, in the profile's credentials file (0600)
    /// where every `timbre --profile demo …` finds them — the session too, so a valid access token
    /// is reused across processes; never the keyring, no environment token.
    func demoVault(warnings: (@Sendable (String) -> Void)? = nil) -> CredentialVault {
        CredentialVault(
            profile: profile, refreshTier: .high, environment: nil, keyring: DemoNoKeyring(),
            file: FileSecretStore(path: paths.credentials, warn: { _ in }), insecureStorage: true,
            warnings: warnings ?? console.warnings)
    }

    public func clientID(redirectPort: Int) throws -> String {
        // A replay sends nothing, so any client id does; the recording's is not secret but may be absent here.
        if config.clientID == nil, replayDirectory != nil { return ExchangeLog.placeholder }
        guard let id = config.clientID else { throw LoginError.missingClientID(redirectURI: PKCE.redirectURI(port: redirectPort)) }
        return id
    }

    func accounts(executor: RequestExecutor, clientID: String) -> AccountsClient {
        AccountsClient(executor: executor, accountsURL: config.accountsURL, clientID: clientID)
    }

    /// Token handling for commands that call the Web API: one manager per process and profile,
    /// refreshing under the profile's session lock (one refresh at a time across processes).
    func tokens(executor: RequestExecutor, vault: CredentialVault) throws -> TokenManager {
        let make = {
            TokenManager(
                accounts: accounts(executor: executor, clientID: try clientID(redirectPort: config.redirectPort)), vault: vault,
                lockPath: paths.sessionLock)
        }
        // Only the shared executor's manager is shared: one made for another executor is that caller's.
        guard executor === self.executor() else { return try make() }
        let key = [servicesKey, vault.profile, "\(vault.insecureStorage)", "\(vault.refreshTier)"].joined(separator: "\n")
        return try invocation.services.tokens(key: key, make: make)
    }

    /// The live Web API: the one place an authorized client is put together, over the process's
    /// shared executor and token manager. While a wait Spotify asked for is in force (this
    /// process's or one stored by another), it refuses with that wait before anything is sent or
    /// written — unless `whileWaiting` (the interface opens on the cache and says it there).
    public func spotify(vault: CredentialVault, executor: RequestExecutor? = nil, whileWaiting: Bool = false) throws -> AuthorizedClient {
        let executor = executor ?? self.executor()
        if !whileWaiting { try executor.checkMaySend() }
        return AuthorizedClient(executor: executor, tokens: try tokens(executor: executor, vault: vault), apiURL: config.apiURL)
    }

    /// Syncs of this profile's cache through `api`.
    public func librarySync(api: any SpotifyAPI, warnings: (@Sendable (String) -> Void)? = nil) -> LibrarySync {
        LibrarySync(
            api: api, cachePath: paths.cache, warn: warnings ?? console.warnings, userData: userData,
            historyKeep: .seconds(config.historyKeepSeconds))
    }
}

extension Date {
    var iso8601: String { ClockText.iso(self) }
}
