import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

/// Starts the test binary again with only `MPRISBridgeTests` and reads its verdict: the bridge's
/// tests pass in a process of their own (GLib's main loop thread and GIO's C callbacks apart from
/// the runner of every other test).
enum MPRISBridgeProcess {
    static let variable = "TIMBRE_MPRIS_BRIDGE_CHILD"
    static var isChild: Bool { ProcessInfo.processInfo.environment[variable] == "1" }
}

@Suite(.tags(.integration), .integrationTier, .enabled(if: !MPRISBridgeProcess.isChild))
struct MPRISBridgeProcessTests {
    @Test func theBridgeTestsPassInTheirOwnProcess() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-mpris-\(UUID().uuidString).log").path
        defer { unlink(output) }
        var environment = ProcessInfo.processInfo.environment
        environment[MPRISBridgeProcess.variable] = "1"
        // A session bus of its own: an interface another test runs at the same time owns
        // `org.mpris.MediaPlayer2.timbre` on the suite's bus, and the bridge would get `.instance<pid>`.
        let argv = ["/usr/bin/dbus-run-session", "--", CommandLine.arguments[0], "--testing-library", "swift-testing", "--filter", "MPRISBridgeTests"]
        let childEnvironment = environment
        let status = try await offThePool { () -> Int32 in
            let pid = try Spawn.start(argv, stdoutPath: output, mergeStderr: true, environment: childEnvironment)
            return Spawn.wait(pid)
        }
        let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let verdict = log.split(separator: "\n").filter { $0.contains("Test run with") || $0.contains("✘") }.joined(separator: "\n")
        #expect(status == 0, "the bridge's tests in their own process:\n\(verdict.isEmpty ? String(log.suffix(4000)) : verdict)")
        #expect(log.contains("Test run with") && log.contains("passed"), "\(String(log.suffix(2000)))")
        #expect(log.contains("Suite MPRISBridgeTests passed") && !log.contains("Test run with 0 tests"), "the child ran the bridge's tests")
    }
}
