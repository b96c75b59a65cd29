import ArgumentParser
import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

extension Root {
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Try timbre without a Spotify account: a local Spotify sandbox, signed in and synced, in the interface.",
            discussion: """
                Starts the bundled sandbox (timbre-sandbox, a Spotify-compatible server over TLS on \
                127.0.0.1), signs in to it through the real OAuth PKCE flow over the pinned TLS \
                transport using the sandbox's freshly generated certificate pins, syncs its medium \
                library (60 playlists, 6,000 items, 800 liked songs), then opens the interface. \
                Everything lives in a temporary profile that is deleted on exit: your own login, \
                keyring and cache are never touched.
                """)

        @Option(help: "Library size: small, medium or large (500 playlists, 200,000 items).")
        var library = "medium"

        @Flag(help: "Sign in and sync, print the summary, and exit without opening the interface.")
        var noInterface = false

        func validate() throws {
            guard ["small", "medium", "large"].contains(library) else { throw ValidationError("--library must be small, medium or large") }
        }

        func run() async throws {
            if !noInterface, isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1 {
                throw UsageError(message: "`timbre demo` opens the interface and needs a terminal", hint: "run it in a terminal, or add --no-interface")
            }
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: home) }

            let say: @Sendable (String) -> Void = { Output.stderr($0 + "\n") }
            say("Starting the Spotify sandbox (\(library) library)…")
            // TIMBRE_DEMO_START_TIMEOUT (seconds) lets tests meet the deadline without waiting it out.
            let startTimeout = Int(ProcessInfo.processInfo.environment["TIMBRE_DEMO_START_TIMEOUT"] ?? "").map { Duration.seconds(max(1, $0)) }
                ?? DemoSandbox.announcementTimeout
            let sandbox = try DemoSandbox.start(stateDirectory: home.appendingPathComponent("sandbox"), library: library, timeout: startTimeout)
            defer { sandbox.stop() }

            // A throwaway profile: its own XDG folders and config.toml, secrets in memory only.
            var environment = ProcessInfo.processInfo.environment
            for key in ["TIMBRE_CONFIG", "TIMBRE_CLIENT_ID", "TIMBRE_REFRESH_TOKEN"] { environment[key] = nil }
            environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
            environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
            environment["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
            environment["TIMBRE_PROFILE"] = "demo"
            let paths = Paths.resolve(environment: environment)
            try Paths.ensureParentDirectory(of: paths.config)
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
                """.write(toFile: paths.config, atomically: true, encoding: .utf8)
            let context = try AppContext.load(environment: environment)
            let vault = CredentialVault(profile: "demo", refreshTier: .high, environment: nil, keyring: MemorySecretStore(),
                                        file: MemorySecretStore(), insecureStorage: false, warnings: say)
            let executor = context.executor()

            say("Signing in through OAuth PKCE over pinned TLS…")
            let flow = LoginFlow(
                accounts: AccountsClient(executor: executor, accountsURL: context.config.accountsURL, clientID: sandbox.clientID),
                apiURL: context.config.apiURL, executor: executor, vault: vault, port: 0, timeout: .seconds(30),
                io: LoginIO(say: { _ in }, readLine: { nil }, readAll: { Data() },
                            openBrowser: { url in DemoBrowser.approve(url, executor: executor); return true }))
            let (profile, _) = try await flow.run(.loopback(openBrowser: true))
            say("Signed in as \(profile.displayName ?? profile.id). Syncing…")

            let cache = try LibraryCache.open(path: context.paths.cache, warn: say)
            let tokens = try context.tokens(executor: executor, vault: vault)
            let client = AuthorizedClient(executor: executor, tokens: tokens, apiURL: context.config.apiURL)
            let report = try await SyncEngine(client: client, cache: cache, options: SyncOptions()).run()
            say(report.summary)
            if noInterface { return }
            try await Interface.open(context, vault: vault)
        }
    }
}

/// The sandbox process the demo runs: found next to the `timbre` binary.
struct DemoSandbox {
    let process: Process
    let baseURL: String
    let caFile: String
    let clientID: String
    let rootPin: String
    let leafPin: String

    struct Missing: UserFacingError {
        let path: String
        var message: String { "the sandbox binary is missing (looked for \(path))" }
        var hint: String? { "build it with `swift build` (it is the timbre-sandbox product, installed next to timbre)" }
        var exitStatus: ExitStatus { .failure }
    }

    static func start(stateDirectory: URL, library: String, timeout: Duration = announcementTimeout) throws -> DemoSandbox {
        let own = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let binary = own.deletingLastPathComponent().appendingPathComponent("timbre-sandbox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw Missing(path: binary.path) }
        // Called from the command's main-thread start, whose signal mask is clean (see `Spawn`).
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--state-dir", stateDirectory.path, "--port", "0", "--library", library]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        // The sandbox is not a browser but still none of timbre's secrets' business.
        process.environment = Spawn.childEnvironment(ProcessInfo.processInfo.environment)
        try process.run()
        guard let buffer = readAnnouncement(out.fileHandleForReading.fileDescriptor, deadline: ContinuousClock.now + timeout) else {
            // SIGKILL: a hung sandbox may not act on SIGTERM (it can inherit a mask that blocks it).
            kill(process.processIdentifier, SIGKILL)
            throw DemoStartTimeout(seconds: Int(timeout.components.seconds))
        }
        guard let line = buffer.split(separator: 10).first,
              let info = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
              let base = info["base_url"] as? String, let ca = info["ca_file"] as? String, let client = info["client_id"] as? String,
              let pins = info["pins"] as? [String: String], let root = pins["root"], let leaf = pins["leaf"] else {
            process.terminate()
            throw UsageError(message: "the sandbox did not start (no announcement on its stdout)")
        }
        return DemoSandbox(process: process, baseURL: base, caFile: ca, clientID: client, rootPin: root, leafPin: leaf)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }

    struct DemoStartTimeout: UserFacingError {
        let seconds: Int
        var message: String { "the sandbox did not announce itself within \(seconds) seconds" }
        var hint: String? { "the machine may be very busy; try again, or run `timbre-sandbox serve` by hand to see what it does" }
        var exitStatus: ExitStatus { .failure }
    }

    /// How long a starting sandbox may take to print its first line.
    static let announcementTimeout: Duration = .seconds(20)

    /// Reads up to the first newline, or nil when `deadline` passes first; a sandbox that hangs
    /// must not hang the demo with it.
    static func readAnnouncement(_ fd: Int32, deadline: ContinuousClock.Instant) -> Data? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !buffer.contains(10) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, min(1_000, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[0..<count])
        }
        return buffer
    }
}

/// Plays the user's browser in the demo: asks the sandbox's authorize page (through the same
/// pinned transport) and follows its redirect to timbre's loopback listener.
enum DemoBrowser {
    static func approve(_ url: String, executor: RequestExecutor) {
        Task.detached {
            guard let authorize = URL(string: url),
                  let response = try? await executor.transport.send(HTTPRequest(url: authorize)),
                  response.status == 302, let location = response.header("location"),
                  let callback = URL(string: location), callback.host == "127.0.0.1", let port = callback.port else { return }
            let target = callback.path + (callback.query.map { "?" + $0 } ?? "")
            LoopbackGet.send(port: port, target: target)
        }
    }
}

/// A one-shot `GET` to 127.0.0.1, enough to deliver the redirect to the listener.
enum LoopbackGet {
    static func send(port: Int, target: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        var request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        _ = Glibc.send(fd, &request, request.count, Int32(MSG_NOSIGNAL))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
    }
}
