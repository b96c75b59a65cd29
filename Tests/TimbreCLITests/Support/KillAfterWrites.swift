import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

extension SyncCLITests {
    /// Writes to the playlist's items answered 15 ms late: an edit of dozens of writes spans the
    /// window in which a test kills it.
    func slowItemWrites(_ s: Setup, playlist id: String) async throws {
        var slow = Fault(kind: .latency, pathContains: "/v1/playlists/\(id)/items", count: 1_000_000, ms: 15)
        slow.method = "POST"
        try await s.sandbox.addFaults([slow])
    }

    /// Runs the real binary with `arguments` and SIGKILLs it once the sandbox has seen `k` of its
    /// writes (at once for 0, or when it ends by itself first). True when the newest journal
    /// entry is left `interrupted`.
    func runKilledAfter(_ s: Setup, writes k: Int, _ arguments: [String]) async throws -> Bool {
        try await runTimbreKilled(afterWrites: k, on: s.sandbox, environment: s.cli.environment, arguments)
        let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
        return history.first?["state"] as? String == "interrupted"
    }
}

/// Runs the real binary with `arguments` in `environment` and SIGKILLs it once `sandbox` has seen
/// `k` more writes (at once for 0, or when it ends by itself first); returns when it is gone.
func runTimbreKilled(afterWrites k: Int, on sandbox: SandboxProcess, environment: [String: String], _ arguments: [String]) async throws {
    let process = Process()
    process.executableURL = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre")
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let sentBefore = try await sandbox.writeRequests().count
    try process.run()
    while !process.hasEnded, try await sandbox.writeRequests().count - sentBefore < k {
        try await Task.sleep(for: .milliseconds(3))
    }
    kill(process.processIdentifier, SIGKILL)
    while !process.hasEnded { try await Task.sleep(for: .milliseconds(10)) }
}
