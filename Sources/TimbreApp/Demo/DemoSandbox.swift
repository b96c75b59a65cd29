import Foundation
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

/// The sandbox process the demo runs: found next to the `timbre` binary.
struct DemoSandbox {
    let process: Process
    let baseURL: String
    let caFile: String
    let clientID: String
    let rootPin: String
    let leafPin: String
    /// The sandbox's owner secret (its state folder's `control-secret`, 0600): sent as
    /// `X-Sandbox-Secret` by the demo's stand-in browser, so only this user's demo signs in.
    let secret: String

    struct Missing: UserFacingError {
        let paths: [String]
        var message: String { "the sandbox binary is missing (looked for \(paths.joined(separator: " and ")))" }
        var hint: String? {
            "the timbre package ships it as lib/timbre/timbre-sandbox beside bin/ (reinstall it); in a checkout, `swift build` builds it next to timbre"
        }
        var exitStatus: ExitStatus { .failure }
    }

    /// Where the sandbox may be, relative to the running `timbre`: beside it (a `swift build`
    /// folder), or `../lib/timbre/` (the .deb's /usr/lib/timbre, the tarball's lib/timbre).
    static func candidates(besides executable: URL) -> [URL] {
        let folder = executable.deletingLastPathComponent()
        return [
            folder.appendingPathComponent("timbre-sandbox"),
            folder.deletingLastPathComponent().appendingPathComponent("lib/timbre/timbre-sandbox").standardizedFileURL,
        ]
    }

    static func start(stateDirectory: URL, library: String, environment: [String: String], timeout: Duration = announcementTimeout) throws -> DemoSandbox {
        let own = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let candidates = candidates(besides: own)
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(paths: candidates.map(\.path))
        }
        let process = Process()
        process.executableURL = binary
        // Refresh tokens stay as they are: the demo and `timbre --profile demo …` in another
        // terminal share one session file, and a rotation by one would sign the other out. The
        // demo's speaker is the active device: Enter in the demo plays there, no device to pick.
        process.arguments = [
            "serve", "--state-dir", stateDirectory.path, "--port", "0", "--library", library, "--refresh-rotation", "same", "--active-device",
            speaker,
        ]
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
            let pins = info["pins"] as? [String: String], let root = pins["root"], let leaf = pins["leaf"],
            let secretFile = info["secret_file"] as? String,
            let secret = (try? String(contentsOfFile: secretFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines),
            !secret.isEmpty
        else {
            process.terminate()
            throw NoAnnouncement()
        }
        return DemoSandbox(process: process, baseURL: base, caFile: ca, clientID: client, rootPin: root, leafPin: leaf, secret: secret)
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

    /// The sandbox's device the demo plays on.
    static let speaker = "timbre demo speaker"

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
