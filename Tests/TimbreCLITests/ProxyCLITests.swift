import Foundation
import Testing
import TimbreTestSupport

/// The CONNECT proxy of Tests/Fixtures/connect_proxy.py: it tunnels bytes and logs each target.
final class ConnectProxy: @unchecked Sendable {
    let port: Int
    let logFile: URL
    private let process: Process

    private init(process: Process, port: Int, logFile: URL) {
        self.process = process
        self.port = port
        self.logFile = logFile
    }

    static func start() async throws -> ConnectProxy {
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-proxy-\(UUID().uuidString).log")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/connect_proxy.py").path
        let (process, line) = try await offThePool {
            try ChildProcess.startAndReadFirstLine("/usr/bin/env", ["python3", script, "--log", logFile.path], name: "CONNECT proxy")
        }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let port = object["port"] as? Int else {
            process.terminate()
            throw FixtureFailure("unexpected first line from the proxy: \(line)")
        }
        return ConnectProxy(process: process, port: port, logFile: logFile)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The `host:port` of every CONNECT it was asked for, in order.
    func targets() -> [String] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["target"] as? String
        }
    }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: logFile)
    }
}

/// Proxies come from the run's environment (`Invocation.environment`, which `invoke` sets without
/// touching the test process's own): libcurl's rules, NO_PROXY respected, and the pins checked on
/// the origin's certificate through the tunnel.
@Suite(.serialized, .tags(.integration), .integrationTier) struct ProxyCLITests {
    func withProxyAndSandbox(_ body: (ConnectProxy, SandboxProcess, TimbreCLI) async throws -> Void) async throws {
        let proxy = try await ConnectProxy.start()
        try await withCleanup({ proxy.stop() }) {
            try await SandboxProcess.with(extraArguments: ["--refresh-rotation", "same"]) { sandbox in
                let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
                try cli.configure(for: sandbox)
                try await withCleanup({ cli.remove() }) { try await body(proxy, sandbox, cli) }
            }
        }
    }

    @Test func aSyncGoesThroughTheProxyWithTheOriginsPins() async throws {
        try await withProxyAndSandbox { proxy, sandbox, cli in
            let result = await cli.invoke(["sync", "--quiet"], environment: ["https_proxy": proxy.url])
            #expect(result.status == 0, "\(result.stderr)")
            let targets = proxy.targets()
            #expect(!targets.isEmpty)
            #expect(Set(targets) == ["127.0.0.1:\(sandbox.info.port)"])
            let logged = try await sandbox.requests()
            #expect(logged.contains { $0.path == "/v1/me/playlists" })
        }
    }

    @Test func aWrongPinStillFailsThroughTheProxy() async throws {
        try await withProxyAndSandbox { proxy, sandbox, cli in
            try cli.configure(for: sandbox, pin: "sha256/" + Data(repeating: 9, count: 32).base64EncodedString())
            let result = await cli.invoke(["sync"], environment: ["HTTPS_PROXY": proxy.url])
            #expect(result.status == 5)
            #expect(result.stderr.contains("TLS trust failure for 127.0.0.1: no certificate (scope any) matches the 1 pinned key(s)"), "\(result.stderr)")
            // The pin saw the sandbox's chain (its leaf is named), not anything of the proxy's.
            #expect(result.stderr.contains(sandbox.info.pins.leaf), "\(result.stderr)")
            #expect(!proxy.targets().isEmpty)
            #expect(Set(proxy.targets()) == ["127.0.0.1:\(sandbox.info.port)"])
            let logged = try await sandbox.requests()
            #expect(logged.isEmpty)
        }
    }

    @Test func noProxyBypassesIt() async throws {
        try await withProxyAndSandbox { proxy, _, cli in
            let result = await cli.invoke(["sync", "--quiet"], environment: ["https_proxy": proxy.url, "NO_PROXY": "localhost,127.0.0.1"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(proxy.targets().isEmpty)
        }
    }

    /// Lower-case first, as libcurl does: an upper-case variable does not override it.
    @Test func lowerCaseHttpsProxyWins() async throws {
        try await withProxyAndSandbox { proxy, _, cli in
            let result = await cli.invoke(["sync", "--quiet"], environment: ["https_proxy": proxy.url, "HTTPS_PROXY": "http://127.0.0.1:9"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!proxy.targets().isEmpty)
        }
    }

    @Test func doctorNamesTheProxyWithoutItsPassword() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let none = await cli.invoke(["doctor"])
        #expect(
            none.stdout.split(separator: "\n").contains {
                $0.hasPrefix("ok") && $0.contains("proxy") && $0.hasSuffix("none (https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY unset): direct connections")
            },
            "\(none.stdout)")
        let set = await cli.invoke(["doctor"], environment: ["ALL_PROXY": "http://me:hunter2@proxy.example:3128", "no_proxy": "internal.example"])
        let line = set.stdout.split(separator: "\n").first { $0.contains("proxy") }.map(String.init) ?? ""
        #expect(line.contains("http://***@proxy.example:3128 (from ALL_PROXY); no_proxy=internal.example connect directly"), "\(line)")
        #expect(!set.stdout.contains("hunter2"))
    }

    /// A proxy password with a bare `/`, `?` or `#` never shows, in any output: the error of a
    /// command that needed the network (refused before anything was sent), the log, doctor, `paths`.
    @Test(arguments: ["hunter/2secret", "hunter?2secret", "hunter#2secret"])
    func aPasswordWithSlashQueryOrHashIsMaskedInEveryOutput(_ password: String) async throws {
        try await SandboxProcess.with(extraArguments: ["--refresh-rotation", "same"]) { sandbox in
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
            try cli.configure(for: sandbox)
            try await withCleanup({ cli.remove() }) {
                let proxy = ["https_proxy": "http://me:\(password)@127.0.0.1:9"]
                let pieces = password.split(whereSeparator: { "/?#".contains($0) }).map(String.init)
                func leaks(_ text: String) -> Bool { text.contains(password) || pieces.contains { text.contains($0) } }

                // The real binary, so its log file is written.
                let sync = try await cli.run(["sync"], environment: proxy)
                #expect(sync.status != 0)
                #expect(sync.stderr.contains("http://***@127.0.0.1:9"), "\(sync.stderr)")
                #expect(sync.stderr.contains("percent-encoded (%2F, %3F, %23)"), "\(sync.stderr)")
                #expect(!leaks(sync.stdout + sync.stderr), "\(sync.stderr)")
                #expect(try await sandbox.requests().isEmpty, "nothing was sent")

                let doctor = try await cli.run(["doctor"], environment: proxy)
                let line = doctor.stdout.split(separator: "\n").first { $0.contains("proxy") }.map(String.init) ?? ""
                #expect(line.contains("http://***@127.0.0.1:9"), "\(line)")
                #expect(!leaks(doctor.stdout + doctor.stderr), "\(doctor.stdout)")

                for arguments in [["paths"], ["paths", "--json"]] {
                    let paths = try await cli.run(arguments, environment: proxy)
                    #expect(paths.status == 0)
                    #expect(!leaks(paths.stdout + paths.stderr))
                }
                // Nothing under the test's home (the log, the cache, config) holds it.
                #expect(cli.filesContaining(password).isEmpty)
                for piece in pieces { #expect(cli.filesContaining(piece).isEmpty, "\(piece)") }
                let log = cli.home.appendingPathComponent("state/timbre/timbre.log").path
                #expect(FileManager.default.fileExists(atPath: log), "the log was written")
            }
        }
    }
}
