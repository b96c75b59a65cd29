import Foundation
import Testing
import TimbreTestSupport

@testable import TimbreCore

@Suite(.tags(.integration), .integrationTier) struct SpawnTests {
    /// `Name: value` lines of /proc/PID/status.
    private func statusFields(_ status: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// From the task pool (whose threads block SIGINT, SIGTERM, SIGHUP…), a child still starts with
    /// no signal blocked or ignored, and its exit status comes back.
    @Test func childrenStartWithACleanSignalState() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-test-\(UUID().uuidString)").path
        defer { unlink(output) }
        let pid = try Spawn.start(["/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status; exit 3"], stdoutPath: output)
        #expect(Spawn.wait(pid) == 3)
        let fields = statusFields((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        #expect(fields["SigBlk"] == "0000000000000000", "\(fields)")
        // Signals 1–31; glibc keeps two real-time signals of its own (32, 33) out of reach.
        let ignored = UInt64(fields["SigIgn"] ?? "", radix: 16)
        #expect(ignored.map { $0 & 0x7FFF_FFFF } == 0, "\(fields)")
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: Spawn.Failure.self) { _ = try Spawn.start(["/nonexistent/program"]) }
    }

    @Test func aSignalShowsInTheStatus() throws {
        let pid = try Spawn.start(["/bin/sh", "-c", "kill -TERM $$; sleep 5"])
        #expect(Spawn.wait(pid) == 128 + SIGTERM)
    }
}
