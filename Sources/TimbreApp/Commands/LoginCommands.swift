import Foundation
import TimbreAuth
import TimbreCore

/// `timbre login`: OAuth PKCE through the browser and a loopback redirect, `--paste` over SSH, or
/// a refresh token on stdin (`--with-token`).
public struct LoginCommand: Sendable {
    public var noBrowser: Bool
    public var paste: Bool
    public var port: Int?
    public var withToken: Bool
    public var insecureStorage: Bool

    public init(noBrowser: Bool, paste: Bool, port: Int?, withToken: Bool, insecureStorage: Bool) {
        self.noBrowser = noBrowser
        self.paste = paste
        self.port = port
        self.withToken = withToken
        self.insecureStorage = insecureStorage
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = context.console
        let port = self.port ?? context.config.redirectPort
        let clientID = try context.clientID(redirectPort: port == 0 ? Config.defaultRedirectPort : port)
        let executor = context.executor()
        let vault = context.vault(insecureStorage: insecureStorage)
        let timeout = Int(context.environment["TIMBRE_LOGIN_TIMEOUT"] ?? "").map { Duration.seconds(max(1, $0)) } ?? .seconds(300)
        let input = console.input
        let flow = LoginFlow(
            accounts: context.accounts(executor: executor, clientID: clientID),
            apiURL: context.config.apiURL, executor: executor, vault: vault, port: port, timeout: timeout,
            io: LoginIO(
                say: { console.say($0) },
                readLine: { input.readLine() },
                readAll: { input.readAll() },
                openBrowser: { Browser.open($0, environment: context.environment) }))
        let mode: LoginFlow.Mode = withToken ? .withToken : (paste ? .paste : .loopback(openBrowser: !noBrowser))
        let (profile, _) = try await flow.run(mode)
        // Both strings come from the server: neither reaches the terminal raw.
        let id = TerminalText.sanitize(profile.id)
        let name = profile.displayName.map { "\(TerminalText.sanitize($0)) (\(id))" } ?? id
        let place = insecureStorage ? context.paths.credentials : "the keyring"
        console.say("✓ Signed in to Spotify as \(name); credentials stored in \(place).")
        return .success
    }
}

/// `timbre logout`: every stored secret of the profile removed; exit 1 if one could not be.
public struct LogoutCommand: Sendable {
    public init() {}

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = context.console
        let problems = try await context.vault().removeAll()
        for problem in problems { console.warning(problem) }
        console.say("Signed out: removed timbre's credentials for profile \"\(context.profile)\".")
        if context.environment[EnvironmentSecretStore.variable] != nil {
            console.warning("TIMBRE_REFRESH_TOKEN is still set in your environment; unset it to stay signed out")
        }
        return problems.isEmpty ? .success : .failure
    }
}
