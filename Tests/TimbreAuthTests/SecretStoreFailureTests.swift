import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreAuth

/// No Secret Service, and one that never answers. GDBus picks the session bus address once per
/// process, so each case runs the store in a child process (this test binary, entering
/// `SecretStoreChildProbe`) with `DBUS_SESSION_BUS_ADDRESS` pointing elsewhere. They need no keyring.
/// No wall clock is read: "fails fast" means the store gave up with `serviceUnavailable` before its
/// deadline (a store that waited would end in `.timeout`), and the hung service's deadline is one
/// the test hands the store.
@Suite(.tags(.integration), .integrationTier) struct SecretStoreFailureTests {
    @Test(arguments: SecretTier.allCases)
    func noBusFailsFastWithOneClearMessage(tier: SecretTier) async throws {
        let outcome = try await ChildProbe.run(busAddress: "unix:path=/nonexistent/timbre-bus", operation: "write-\(tier.rawValue)")
        #expect(outcome.error == "serviceUnavailable", "\(outcome)")
        #expect(outcome.detail.contains("Could not connect"), "\(outcome.detail)")
        Self.expectTheOneMessage(outcome)
    }

    @Test func readAndDeleteWithoutABusAreTheSameMessage() async throws {
        for operation in ["read", "delete"] {
            let outcome = try await ChildProbe.run(busAddress: "unix:path=/nonexistent/timbre-bus", operation: operation)
            #expect(outcome.error == "serviceUnavailable", "\(outcome)")
            Self.expectTheOneMessage(outcome)
        }
    }

    @Test func busWithoutASecretServiceIsTheSameMessage() async throws {
        let bus = try await FakeBus.start("empty")
        let outcome = try await ChildProbe.run(busAddress: bus.address, operation: "read")
        #expect(outcome.error == "serviceUnavailable", "\(outcome)")
        #expect(outcome.detail.contains("org.freedesktop.secrets"), "\(outcome.detail)")
        Self.expectTheOneMessage(outcome)
    }

    @Test func aServiceThatNeverAnswersTimesOutAtTheStoresDeadline() async throws {
        let bus = try await FakeBus.start("hung")
        let outcome = try await ChildProbe.run(busAddress: bus.address, operation: "write-high", timeout: 0.25)
        #expect(outcome.error == "timeout", "\(outcome)")
        #expect(outcome.timeoutSeconds == 0.25, "\(outcome)")
        #expect(outcome.message == "The keyring (Secret Service) did not answer within 0.25 seconds.")
    }

    static func expectTheOneMessage(_ outcome: ChildProbe.Outcome) {
        #expect(outcome.message == "No keyring (Secret Service) is reachable to keep your Spotify credentials.")
        #expect(outcome.hint.contains("gnome-keyring") && outcome.hint.contains("KeePassXC"))
        #expect(outcome.hint.contains("TIMBRE_REFRESH_TOKEN"))
        #expect(outcome.hint.contains("timbre login --insecure-storage"))
        #expect(outcome.exitStatus == 1)
    }
}

/// The deadline a hung keyring gets when nobody chose one, and the sentence it ends with.
@Suite struct SecretStoreDeadlineTests {
    @Test func theDefaultDeadlineIsThreeSeconds() {
        #expect(LibSecretStore().timeout == 3)
        #expect(SecretStoreError.timeout(seconds: 3).message == "The keyring (Secret Service) did not answer within 3 seconds.")
    }
}

/// Runs one store operation in a child copy of this test binary and reads back what happened.
enum ChildProbe {
    static let operationVariable = "TIMBRE_SECRET_PROBE"
    static let outputVariable = "TIMBRE_SECRET_PROBE_OUT"
    static let timeoutVariable = "TIMBRE_SECRET_PROBE_TIMEOUT"

    /// True only in the child copy `run` starts.
    static var isChild: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment[operationVariable] != nil && environment[outputVariable] != nil
    }

    struct Outcome: Codable, CustomStringConvertible {
        var error: String = "none"
        var message: String = ""
        var hint: String = ""
        var detail: String = ""
        var exitStatus: Int32 = 0
        var timeoutSeconds: Double?
        var description: String { "\(error): \(message) [\(detail)]" }
    }

    /// `timeout`: the store's deadline in the child (nil: the store's default).
    static func run(busAddress: String, operation: String, timeout: Double? = nil) async throws -> Outcome {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-probe-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment[operationVariable] = operation
        environment[outputVariable] = output.path
        environment[timeoutVariable] = timeout.map { String($0) }
        let binary = CommandLine.arguments[0]
        let childEnvironment = environment
        try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "SecretStoreChildProbe"]
            process.environment = childEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            while !process.hasEnded { usleep(10_000) }
        }
        guard let data = try? Data(contentsOf: output) else {
            throw KeyringTestFailure("the child test process (\(binary)) wrote no result for \(operation)")
        }
        return try JSONDecoder().decode(Outcome.self, from: data)
    }
}

/// Entry point of the child process above; does nothing unless started by `ChildProbe.run`.
/// Skipped (not passed) in every other run: it asserts nothing of its own.
@Suite struct SecretStoreChildProbe {
    @Test(.enabled(if: ChildProbe.isChild, "runs only as the child of SecretStoreFailureTests"))
    func childProcessEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        let operation = try #require(environment[ChildProbe.operationVariable])
        let output = try #require(environment[ChildProbe.outputVariable])
        let store = environment[ChildProbe.timeoutVariable].flatMap(Double.init).map { LibSecretStore(timeout: $0) } ?? LibSecretStore()
        var outcome = ChildProbe.Outcome()
        do {
            switch operation {
            case "read": _ = try await store.read(.refreshToken, profile: "default")
            case "delete": try await store.delete(.refreshToken, profile: "default")
            default:
                let tier = SecretTier(rawValue: String(operation.dropFirst("write-".count))) ?? .high
                try await store.write(SecretBytes("x"), kind: .refreshToken, tier: tier, profile: "default")
            }
        } catch {
            outcome.message = error.message
            outcome.hint = error.hint ?? ""
            outcome.exitStatus = error.exitStatus.rawValue
            switch error {
            case .serviceUnavailable(let detail):
                outcome.error = "serviceUnavailable"
                outcome.detail = detail
            case .timeout(let seconds):
                outcome.error = "timeout"
                outcome.timeoutSeconds = seconds
            default:
                outcome.error = "other"
                outcome.detail = error.description
            }
        }
        try JSONEncoder().encode(outcome).write(to: URL(fileURLWithPath: output))
    }
}
