import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreNet

/// Repository paths, from this file's location.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/Fixtures")
}

/// Runs blocking work on a thread of its own, so tests running in parallel never starve Swift's
/// cooperative pool (two threads on a 2-core machine).
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await offThePool(work))
    } catch {
        return .failure(error)
    }
}

/// Runs a program to completion, returning its stdout.
@discardableResult
func runProcess(_ executable: String, _ arguments: [String]) throws -> String {
    let result = try ChildProcess.run([executable] + arguments)
    guard result.status == 0 else {
        throw TestFailure("\(executable) \(arguments.joined(separator: " ")) exited \(result.status)")
    }
    return result.output
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A PKI made by the openssl CLI (Tests/Fixtures/make-test-pki.sh): root → intermediate → leaf for
/// 127.0.0.1, and an unrelated root. Pins come from openssl, not from timbre's code.
struct TestPKI: Sendable {
    let directory: URL
    let leaf: SPKIPin
    let intermediate: SPKIPin
    let root: SPKIPin
    let other: SPKIPin

    var rootFile: String { directory.appendingPathComponent("root.pem").path }

    /// One PKI per test process, made off the cooperative thread pool.
    static func shared() async throws -> TestPKI {
        try await cache.value.get()
    }

    private static let cache = Task<Result<TestPKI, any Error>, Never> {
        await offPool { try make() }
    }

    static func make() throws -> TestPKI {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-pki-\(UUID().uuidString)")
        try runProcess("/bin/bash", [Repo.fixtures.appendingPathComponent("make-test-pki.sh").path, dir.path])
        let env = try String(contentsOf: dir.appendingPathComponent("pins.env"), encoding: .utf8)
        var pins: [String: SPKIPin] = [:]
        for line in env.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, let pin = SPKIPin(parts[1]) { pins[parts[0]] = pin }
        }
        guard let leaf = pins["LEAF"], let intermediate = pins["INTERMEDIATE"], let root = pins["ROOT"], let other = pins["OTHER"] else {
            throw TestFailure("pins.env incomplete: \(env)")
        }
        return TestPKI(directory: dir, leaf: leaf, intermediate: intermediate, root: root, other: other)
    }
}

/// The independent Python HTTPS server (Tests/Fixtures/tls_server.py), one per test.
final class TestTLSServer: @unchecked Sendable {
    struct LoggedRequest: Decodable {
        let t: Double
        let method: String
        let path: String
        let client_port: Int
        let phase: String
    }

    let port: Int
    let logFile: URL
    private let process: Process

    /// Starts a server; the blocking start-up runs on its own thread, not the cooperative pool.
    static func start(pki: TestPKI, tls: String = "1.2+") async throws -> TestTLSServer {
        try await offPool { try TestTLSServer(pki: pki, tls: tls) }.get()
    }

    private init(pki: TestPKI, tls: String) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-tls-\(UUID().uuidString).log")
        let line: String
        (process, line) = try ChildProcess.startAndReadFirstLine(
            "/usr/bin/env",
            [
                "python3", Repo.fixtures.appendingPathComponent("tls_server.py").path,
                "--cert", pki.directory.appendingPathComponent("chain.pem").path,
                "--key", pki.directory.appendingPathComponent("leaf.key").path,
                "--log", logFile.path, "--tls", tls,
            ], name: "test TLS server")
        // The first line is {"port": N}.
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let port = object["port"] as? Int else {
            throw TestFailure("unexpected first line from test TLS server: \(line)")
        }
        self.port = port
    }

    deinit {
        // SIGTERM and move on: Foundation reaps the child. Waiting here would block a thread of
        // the cooperative pool (and waitUntilExit() can hang off the main thread on Linux).
        process.terminate()
        try? FileManager.default.removeItem(at: logFile)
    }

    func url(_ pathAndQuery: String, host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)\(pathAndQuery)")!
    }

    /// Requests the server began handling.
    func requests() throws -> [LoggedRequest] {
        try events().filter { $0.phase == "start" }
    }

    /// Start and end of every request, in log order.
    func events() throws -> [LoggedRequest] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try JSONDecoder().decode(LoggedRequest.self, from: Data($0.utf8)) }
    }
}

/// Transport settings trusting the test PKI, with one pin rule for 127.0.0.1.
func settings(
    _ pki: TestPKI, pins: [SPKIPin], scope: PinScope = .any, mode: PinMode = .strict,
    host: String = "127.0.0.1", minimumTLS: TLSVersion = .tls12
) -> TransportSettings {
    TransportSettings(
        pins: PinPolicySet(configured: [PinRule(host: HostPattern(host)!, pins: pins, scope: scope, mode: mode)]),
        caFile: pki.rootFile, minimumTLS: minimumTLS, connectTimeout: .seconds(5), totalTimeout: .seconds(20))
}
