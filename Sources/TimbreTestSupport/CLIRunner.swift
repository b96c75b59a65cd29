import Foundation
import TimbreCore

/// Runs the real `timbre` binary the way a user or a script would: environment, stdin, and the
/// three results (stdout, stderr, exit code).
public struct CLIResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

public struct TimbreCLI: Sendable {
    /// A throwaway home for one test: XDG folders and config.toml live here.
    public let home: URL
    public var environment: [String: String]

    public init(extraEnvironment: [String: String] = [:]) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-cli-\(UUID().uuidString)")
        for dir in ["config/timbre", "cache", "state"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        var env = ProcessInfo.processInfo.environment
        // Never let a developer's own setup leak into a test.
        for key in [
            "TIMBRE_CONFIG", "TIMBRE_CLIENT_ID", "TIMBRE_REFRESH_TOKEN", "TIMBRE_PROFILE", "BROWSER", "NO_COLOR",
            "TIMBRE_CLIENT_CERT_PASSWORD", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
        ] {
            env[key] = nil
        }
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        env["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        env["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        env["TIMBRE_LOG"] = "debug"
        // gnome-keyring under a loaded CI run (3× the cores) has missed the product's 3 s: tests
        // give each D-Bus exchange a deadline of 20 s instead (tests of the deadline set their own).
        env["TIMBRE_KEYRING_TIMEOUT"] = "20"
        env.merge(extraEnvironment) { $1 }
        environment = env
    }

    /// config.toml of the profile this CLI's environment names (`TIMBRE_PROFILE`): the default
    /// profile's in `config/timbre/`, another's in `config/timbre/profiles/NAME/`.
    public var configFile: URL {
        let profile = environment["TIMBRE_PROFILE"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let folder = profile.isEmpty || profile == "default" ? "config/timbre" : "config/timbre/profiles/\(profile)"
        return home.appendingPathComponent("\(folder)/config.toml")
    }

    public func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: configFile, atomically: true, encoding: .utf8)
    }

    /// `request_timeout` for a profile whose edits a test kills: the next command waits out a write
    /// the killed process may still have in flight, for up to this long after it was sent. The
    /// default (60 s) per kill made the serialized kill tests take most of CI's hour; 10 s is still
    /// far more than any request to the loopback sandbox takes on a loaded machine.
    public static let killedEditsRequestTimeout = "request_timeout = 10"

    /// config.toml that points timbre at a sandbox and pins its root; `extra`: more top-level keys
    /// (`request_timeout = 3`).
    public func configure(for sandbox: SandboxProcess, pin: String? = nil, redirectPort: Int = 0, extra: String = "") throws {
        try writeConfig(
            sandbox.info.configTOML(
                pins: pin.map { [$0] },
                top: """
                    client_id = "\(sandbox.info.clientID)"
                    redirect_port = \(redirectPort)
                    \(extra)
                    """))
    }

    /// `timeout`: a guard against a hang, not a bound on speed (a refused `sync` took more than 60 s
    /// once, with both cores kept busy by stress-ng and a build beside the suite).
    ///
    /// Started with `Spawn` and reaped by its pid, not with Foundation's `Process`: on Linux that
    /// learns of an exit when a socket its child inherited closes, and a process another test
    /// starts at the same moment can inherit that socket too (swift-corelibs-foundation #4795) —
    /// then a command that has ended "runs" for as long as that other process lives. (It also
    /// hands the task pool's blocked signals to the child.) stdin is a file, so no other child
    /// can hold its end open either.
    public func run(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:], timeout: Duration = .seconds(120),
        executable: String? = nil
    ) async throws -> CLIResult {
        let binary = try executable ?? SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
        let scratch = FileManager.default.temporaryDirectory
        let out = scratch.appendingPathComponent("timbre-out-\(UUID().uuidString)")
        let err = scratch.appendingPathComponent("timbre-err-\(UUID().uuidString)")
        let input = stdin.map { _ in scratch.appendingPathComponent("timbre-in-\(UUID().uuidString)") }
        defer {
            for file in [out, err] + (input.map { [$0] } ?? []) { try? FileManager.default.removeItem(at: file) }
        }
        if let input, let stdin {
            // 0600: what a test pipes in can be a (sandbox's) refresh token.
            guard FileManager.default.createFile(atPath: input.path, contents: Data(stdin.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CLIError.cannotStart("could not write the input file \(input.path)")
            }
        }
        let pid: pid_t
        do {
            pid = try Spawn.start(
                [binary] + arguments, stdinPath: input?.path, stdoutPath: out.path, stderrPath: err.path,
                environment: environment.merging(extra) { $1 })
        } catch {
            throw CLIError.cannotStart(error.description)
        }
        let deadline = ContinuousClock.now + timeout
        var status = Spawn.ended(pid)
        while status == nil {
            if ContinuousClock.now > deadline {
                // What it was doing: its threads' stacks (while it still runs), what it wrote, the
                // end of its log — so a hang seen once under load can be found, not guessed at.
                let stacks = Self.threadStacks(of: pid)
                kill(pid, SIGKILL)
                _ = Spawn.wait(pid)
                let said = [out, err].map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }
                throw CLIError.timedOut(arguments, detail: Self.hangReport(stacks: stacks, stdout: said[0], stderr: said[1], log: logTail()))
            }
            try await Task.sleep(for: .milliseconds(20))
            status = Spawn.ended(pid)
        }
        return CLIResult(
            status: status ?? -1,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// The last lines of the profile's log (`TIMBRE_LOG` writes it under the state folder).
    private func logTail(lines: Int = 40) -> String {
        let text = (try? String(contentsOfFile: Paths.resolve(environment: environment).log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Every thread's stack of a process that seems hung, through gdb when the machine has it
    /// (frame arguments left out: they could hold a token); nil without gdb.
    static func threadStacks(of pid: Int32) -> String? {
        let gdb = "/usr/bin/gdb"
        guard FileManager.default.isExecutableFile(atPath: gdb) else { return nil }
        guard
            let (output, _) = try? ChildProcess.run([
                gdb, "-batch", "-nx", "-p", String(pid), "-ex", "set print frame-arguments none", "-ex", "thread apply all bt 30",
            ])
        else { return nil }
        // The frames alone: gdb's banner and symbol-loading chatter say nothing about the hang.
        return output.split(separator: "\n")
            .filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }.joined(separator: "\n")
    }

    static func hangReport(stacks: String?, stdout: String, stderr: String, log: String) -> String {
        func block(_ title: String, _ text: String, limit: Int = 12_000) -> String {
            let body = text.count > limit ? "…" + String(text.suffix(limit)) : text
            return "--- \(title) ---\n\(body.isEmpty ? "(empty)" : body)"
        }
        return [
            block("stdout so far", stdout), block("stderr so far", stderr), block("log (last lines)", log),
            block("threads", stacks ?? "(no gdb on this machine)", limit: 30_000),
        ].joined(separator: "\n")
    }

    /// Every file under this test's home whose bytes contain `needle`.
    public func filesContaining(_ needle: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil) else { return [] }
        var hits: [String] = []
        for case let url as URL in enumerator {
            guard let data = try? Data(contentsOf: url) else { continue }
            if data.range(of: Data(needle.utf8)) != nil { hits.append(url.path) }
        }
        return hits
    }

    public func remove() { try? FileManager.default.removeItem(at: home) }
}

public enum CLIError: Error, CustomStringConvertible {
    case timedOut([String], detail: String = "")
    case cannotStart(String)
    public var description: String {
        switch self {
        case .timedOut(let arguments, let detail):
            let line = "timbre \(arguments.joined(separator: " ")) did not finish in time"
            return detail.isEmpty ? line : "\(line)\n\(detail)"
        case .cannotStart(let why): return "timbre could not be started: \(why)"
        }
    }
}
