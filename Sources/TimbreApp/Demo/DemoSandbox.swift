import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TimbreCore

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

    static func start(stateDirectory: URL, library: String, environment: [String: String], timeout: Duration = announcementTimeout) throws -> DemoSandbox {
        let own = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let binary = own.deletingLastPathComponent().appendingPathComponent("timbre-sandbox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw Missing(path: binary.path) }
                let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--state-dir", stateDirectory.path, "--port", "0", "--library", library]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        // The sandbox is not a browser but still none of timbre's secrets' business.
        process.environment = Spawn.childEnvironment(environment)
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
            throw NoAnnouncement()
        }
        return DemoSandbox(process: process, baseURL: base, caFile: ca, clientID: client, rootPin: root, leafPin: leaf)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }

    struct NoAnnouncement: UserFacingError {
        var message: String { "the sandbox did not start (no announcement on its stdout)" }
        var hint: String? { "run `timbre-sandbox serve` by hand to see what it says" }
        var exitStatus: ExitStatus { .failure }
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
