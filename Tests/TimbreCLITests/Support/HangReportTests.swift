import Foundation
import Testing
import TimbreTestSupport

/// The guard against a hung command: when it fires, the failure says what the process was doing
/// (its threads, what it wrote), so a hang seen once under load can be found, not guessed at.
@Suite(.tags(.integration), .integrationTier) struct HangReportTests {
    @Test func aCommandPastItsGuardIsEndedAndReportedWithWhatItWrote() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let script = "printf 'said before the hang'; printf 'complained' >&2; exec sleep 600"
        do {
            _ = try await cli.run(["-c", script], timeout: .seconds(2), executable: "/bin/sh")
            Issue.record("a command that never ends was reported as finished")
        } catch let error as CLIError {
            let report = error.description
            #expect(report.hasPrefix("timbre -c \(script) did not finish in time"))
            #expect(report.contains("--- stdout so far ---\nsaid before the hang"))
            #expect(report.contains("--- stderr so far ---\ncomplained"))
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
                // `sleep`'s one thread, stopped in the kernel's wait.
                #expect(report.contains("Thread 1"), "\(report)")
                #expect(report.contains("#0"), "\(report)")
            } else {
                #expect(report.contains("(no gdb on this machine)"))
            }
        }
    }
}
