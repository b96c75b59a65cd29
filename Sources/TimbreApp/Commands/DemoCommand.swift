import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary

/// `timbre demo`: the bundled sandbox, signed in through the real PKCE flow over pinned TLS,
/// synced, then the interface — all in a throwaway profile deleted on exit.
public struct DemoCommand: Sendable {
    public enum Library: String, Sendable, CaseIterable { case small, medium, large }

    public var library: Library
    public var noInterface: Bool

    public init(library: Library, noInterface: Bool) {
        self.library = library
        self.noInterface = noInterface
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let console = invocation.console
        if !noInterface, !console.stdinIsTTY || !console.stdoutIsTTY {
            throw UsageError(message: "`timbre demo` opens the interface and needs a terminal", hint: "run it in a terminal, or add --no-interface")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: home) }

        console.say("Starting the Spotify sandbox (\(library.rawValue) library)…")
        // TIMBRE_DEMO_START_TIMEOUT (seconds) lets tests meet the deadline without waiting it out.
        let startTimeout = Int(invocation.environment["TIMBRE_DEMO_START_TIMEOUT"] ?? "").map { Duration.seconds(max(1, $0)) }
            ?? DemoSandbox.announcementTimeout
        let sandbox = try DemoSandbox.start(stateDirectory: home.appendingPathComponent("sandbox"), library: library.rawValue,
                                            environment: invocation.environment, timeout: startTimeout)
        defer { sandbox.stop() }

        let profile = Invocation(console: console, environment: Self.profile(in: home, base: invocation.environment))
        try Self.writeConfig(for: sandbox, to: profile.paths.config)
        let demo = try profile.context()
        // Secrets in memory only: the demo never touches the keyring or a credentials file.
        let vault = demo.memoryVault()
        let executor = demo.executor()

        console.say("Signing in through OAuth PKCE over pinned TLS…")
        let flow = LoginFlow(
            accounts: demo.accounts(executor: executor, clientID: sandbox.clientID),
            apiURL: demo.config.apiURL, executor: executor, vault: vault, port: 0, timeout: .seconds(30),
            io: LoginIO(say: { _ in }, readLine: { nil }, readAll: { Data() },
                        openBrowser: { url in DemoBrowser.approve(url, executor: executor); return true }))
        let (user, _) = try await flow.run(.loopback(openBrowser: true))
        console.say("Signed in as \(TerminalText.sanitize(user.displayName ?? user.id)). Syncing…")

        let report = try await demo.librarySync(api: try demo.spotify(vault: vault, executor: executor)).run(lockWait: .seconds(2))
        console.say(report.summary)
        if noInterface { return .success }
        try await InterfaceCommand().open(demo, vault: vault)
        return .success
    }

    /// A throwaway profile: its own XDG folders and config.toml; nothing of the user's own setup.
    static func profile(in home: URL, base: [String: String]) -> [String: String] {
        var environment = base
        for key in ["TIMBRE_CONFIG", "TIMBRE_CLIENT_ID", "TIMBRE_REFRESH_TOKEN"] { environment[key] = nil }
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        environment["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["TIMBRE_PROFILE"] = "demo"
        return environment
    }

    static func writeConfig(for sandbox: DemoSandbox, to path: String) throws {
        try Paths.ensureParentDirectory(of: path)
        try """
            # Written by `timbre demo` for its temporary profile.
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
