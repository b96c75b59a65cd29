import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

/// `timbre demo`: the bundled sandbox, signed in through the real PKCE flow over pinned TLS,
/// synced, then the interface — all in the profile `demo`, which it resets each time.
public struct DemoCommand: Sendable {
    public enum Library: String, Sendable, CaseIterable { case small, medium, large }

    public var library: Library
    public var noInterface: Bool

    public init(library: Library, noInterface: Bool) {
        self.library = library
        self.noInterface = noInterface
    }

    /// The demo's profile: its config, cache, user data and log live in this profile's folders
    /// (`timbre --profile demo paths`), never in the default profile's.
    public static let profileName = "demo"

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let console = invocation.console
        if !noInterface, !console.stdinIsTTY || !console.stdoutIsTTY {
            throw UsageError(message: "`timbre demo` opens the interface and needs a terminal", hint: "run it in a terminal, or add --no-interface")
        }
        let profile = Invocation(console: console, environment: Self.environment(base: invocation.environment), services: invocation.services)
        let paths = profile.paths
        // A real setup named "demo" is refused before anything starts or goes.
        try Self.checkOwnership(paths)
        // The sandbox's state (its certificates and keys) lasts as long as the sandbox.
        let sandboxState = URL(fileURLWithPath: paths.stateDirectory).appendingPathComponent("sandbox")
        try? FileManager.default.removeItem(at: sandboxState)
        defer { try? FileManager.default.removeItem(at: sandboxState) }

        console.say("Starting the Spotify sandbox (\(library.rawValue) library)…")
        // TIMBRE_DEMO_START_TIMEOUT (seconds) lets tests meet the deadline without waiting it out.
        let startTimeout =
            Int(invocation.environment["TIMBRE_DEMO_START_TIMEOUT"] ?? "").map { Duration.seconds(max(1, $0)) }
            ?? DemoSandbox.announcementTimeout
        let sandbox = try DemoSandbox.start(
            stateDirectory: sandboxState, library: library.rawValue,
            environment: invocation.environment, timeout: startTimeout)
        defer { sandbox.stop() }
        // Only now, with a sandbox to replace it, the previous demo's cache, journal and session go.
        try Self.reset(paths)

        try Self.writeConfig(for: sandbox, to: paths.config)
        let demo = try profile.context()
        // The session in the profile's credentials file (0600; a sandbox account, not the
        // user's), so `timbre --profile demo …` in another terminal works against this sandbox;
        // never the keyring.
        let vault = demo.vault()
        let executor = demo.executor()

        console.say("Signing in through OAuth PKCE over pinned TLS…")
        let flow = LoginFlow(
            accounts: demo.accounts(executor: executor, clientID: sandbox.clientID),
            apiURL: demo.config.apiURL, executor: executor, vault: vault, port: 0, timeout: .seconds(30),
            io: LoginIO(
                say: { _ in }, readLine: { nil }, readAll: { Data() },
                openBrowser: { url in
                    DemoBrowser.approve(url, secret: sandbox.secret, executor: executor)
                    return true
                }))
        // The sign-in is "other" in `timbre quota`, as `login` is; the sync and the interface count
        // by what each request is (sync, player, edit).
        let (user, _) = try await RequestKind.$current.withValue(.other) { try await flow.run(.loopback(openBrowser: true)) }
        console.say("Signed in as \(TerminalText.sanitize(user.displayName ?? user.id)). Syncing…")

        let report = try await demo.librarySync(api: try demo.spotify(vault: vault, executor: executor)).run(lockWait: .seconds(2))
        console.say(report.summary)
        if noInterface { return .success }
        try await InterfaceCommand().open(demo, vault: vault, greeting: Self.tryTheCLI)
        return .success
    }

    /// What the demo's first screen says: the command line works against the same sandbox.
    static let tryTheCLI = "try `timbre --profile demo playlists` in another terminal: the CLI works on this sandbox too"

    /// The profile `demo`, whatever profile the command line named: nothing of the user's own
    /// setup (config file, client id, refresh token, a replay) comes along.
    static func environment(base: [String: String]) -> [String: String] {
        var environment = base
        for key in ["TIMBRE_CONFIG", "TIMBRE_CLIENT_ID", "TIMBRE_REFRESH_TOKEN", "TIMBRE_REPLAY"] { environment[key] = nil }
        environment["TIMBRE_PROFILE"] = profileName
        return environment
    }

    /// A config.toml the demo did not write is a real setup that happens to be called "demo": it
    /// is left alone and the demo refuses to run.
    static func checkOwnership(_ paths: Paths) throws {
        if let existing = try? String(contentsOfFile: paths.config, encoding: .utf8), !existing.hasPrefix(configMarker) {
            throw DemoProfileTaken(config: paths.config)
        }
    }

    /// A fresh start: the previous demo's cache, user data and session go (they belonged to a
    /// sandbox that is gone). Called once the new sandbox is up, so a demo that cannot start
    /// leaves the previous one's files as they were.
    static func reset(_ paths: Paths) throws {
        try checkOwnership(paths)
        // Only ever the demo's own folders (…/timbre/profiles/demo/), never another profile's.
        let own = "/timbre/profiles/\(profileName)/"
        guard paths.cache.contains(own), paths.data.contains(own), paths.log.contains(own), paths.credentials.contains(own) else { return }
        for folder in [paths.cache, paths.data].map({ ($0 as NSString).deletingLastPathComponent }) {
            try? FileManager.default.removeItem(atPath: folder)
        }
        try? FileManager.default.removeItem(atPath: paths.credentials)
    }

    /// Whether `context` is the demo's profile as `timbre demo` wrote it: its session lives in the
    /// credentials file (a sandbox account), never in the keyring.
    static func isDemo(_ context: AppContext) -> Bool {
        guard context.profile == profileName, let path = context.config.sourcePath else { return false }
        return (try? String(contentsOfFile: path, encoding: .utf8))?.hasPrefix(configMarker) == true
    }

    static let configMarker = "# Written by `timbre demo`"

    /// `error` as a command of the demo profile should say it: a refused connection to the
    /// loopback sandbox means the demo is not running, not that the network is down.
    public static func explained(_ error: any UserFacingError, environment: [String: String]) -> any UserFacingError {
        guard ProfileName.text(in: environment) == profileName,
            case .connection(let host, .refused, _)? = error as? TransportError, host == "127.0.0.1"
        else { return error }
        return SandboxNotRunning(original: error.message)
    }

    struct SandboxNotRunning: UserFacingError {
        let original: String
        var message: String { original }
        var hint: String? {
            "the demo's sandbox runs only while `timbre demo` does: start it in another terminal and try again (playlists, tracks and stats read the last demo's cache offline)"
        }
        var exitStatus: ExitStatus { .failure }
    }

    struct DemoProfileTaken: UserFacingError {
        let config: String
        var message: String { "the profile \"\(DemoCommand.profileName)\" has a config.toml that `timbre demo` did not write (\(config))" }
        var hint: String? { "the demo would replace it: move that setup to another profile name, or remove the file" }
        var exitStatus: ExitStatus { .failure }
    }

    static func writeConfig(for sandbox: DemoSandbox, to path: String) throws {
        try Paths.ensureParentDirectory(of: path)
        try """
        \(configMarker) for its profile; replaced by the next demo.
        # The sandbox at \(sandbox.baseURL) while the demo runs; its session is in credentials.json beside this file.
        client_id = "\(sandbox.clientID)"
        redirect_port = 0
        accounts_url = "\(sandbox.baseURL)"
        api_url = "\(sandbox.baseURL)/v1"

        [tls]
        ca_file = "\(sandbox.caFile)"

        [[tls.pin]]
        host = "127.0.0.1"
        pins = ["\(sandbox.rootPin)", "\(sandbox.leafPin)"]
        scope = "any"
        """.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
