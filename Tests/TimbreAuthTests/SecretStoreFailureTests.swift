import Foundation
import Testing
import TimbreCore
@testable import TimbreAuth

/// No Secret Service, and one that never answers. GDBus picks the session bus address once per
/// process, so each case runs the store in a child process (this test binary, entering
/// `SecretStoreChildProbe`) with `DBUS_SESSION_BUS_ADDRESS` pointing elsewhere. They need no keyring.
@Suite struct SecretStoreFailureTests {
    @Test(arguments: SecretTier.allCases)
    func noBusFailsFastWithOneClearMessage(tier: SecretTier) async throws {
        let outcome = try await ChildProbe.run(busAddress: "unix:path=/nonexistent/timbre-bus", operation: "write-\(tier.rawValue)")
        #expect(outcome.error == "serviceUnavailable", "\(outcome)")
        #expect(outcome.detail.contains("Could not connect"), "\(outcome.detail)")
        #expect(outcome.elapsedMS < 1000, "took \(outcome.elapsedMS) ms")
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
        #expect(outcome.elapsedMS < 1000, "took \(outcome.elapsedMS) ms")
        Self.expectTheOneMessage(outcome)
    }

    @Test func aServiceThatNeverAnswersTimesOutAfterThreeSeconds() async throws {
        let bus = try await FakeBus.start("hung")
        let outcome = try await ChildProbe.run(busAddress: bus.address, operation: "write-high")
        #expect(outcome.error == "timeout", "\(outcome)")
        #expect(outcome.elapsedMS >= 2900 && outcome.elapsedMS < 4000, "took \(outcome.elapsedMS) ms")
        #expect(outcome.message == "The keyring (Secret Service) did not answer within 3 seconds.")
    }

    static func expectTheOneMessage(_ outcome: ChildProbe.Outcome) {
        #expect(outcome.message == "No keyring (Secret Service) is reachable to keep your Spotify credentials.")
        #expect(outcome.hint.contains("gnome-keyring") && outcome.hint.contains("KeePassXC"))
        #expect(outcome.hint.contains("TIMBRE_REFRESH_TOKEN"))
        #expect(outcome.hint.contains("timbre login --insecure-storage"))
        #expect(outcome.exitStatus == 1)
    }
}

/// Runs one store operation in a child copy of this test binary and reads back what happened.
enum ChildProbe {
    static let operationVariable = "TIMBRE_SECRET_PROBE"
    static let outputVariable = "TIMBRE_SECRET_PROBE_OUT"

    struct Outcome: Codable, CustomStringConvertible {
        var error: String = "none"
        var message: String = ""
        var hint: String = ""
        var detail: String = ""
        var exitStatus: Int32 = 0
        var elapsedMS: Int = 0
        var description: String { "\(error) after \(elapsedMS) ms: \(message) [\(detail)]" }
    }

    static func run(busAddress: String, operation: String) async throws -> Outcome {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-probe-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment[operationVariable] = operation
        environment[outputVariable] = output.path
        let binary = CommandLine.arguments[0]
        let childEnvironment = environment
        try await keyringOffPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "SecretStoreChildProbe"]
            process.environment = childEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            while process.isRunning { usleep(10_000) }
        }
        guard let data = try? Data(contentsOf: output) else {
            throw KeyringTestFailure("the child test process (\(binary)) wrote no result for \(operation)")
        }
        return try JSONDecoder().decode(Outcome.self, from: data)
    }
}

/// Entry point of the child process above; does nothing unless started by `ChildProbe.run`.
@Suite struct SecretStoreChildProbe {
    @Test func childProcessEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let operation = environment[ChildProbe.operationVariable], let output = environment[ChildProbe.outputVariable] else {
            return
        }
        let store = LibSecretStore()
        var outcome = ChildProbe.Outcome()
        let start = ContinuousClock.now
        do {
            switch operation {
            case "read": _ = try await store.read(.refreshToken, profile: "default")
            case "delete": try await store.delete(.refreshToken, profile: "default")
            default:
                let tier = SecretTier(rawValue: String(operation.dropFirst("write-".count))) ?? .high
                try await store.write(SecretBytes("x"), kind: .refreshToken, tier: tier, profile: "default")
            }
        } catch {
            let elapsed = ContinuousClock.now - start
            outcome.elapsedMS = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
            outcome.message = error.message
            outcome.hint = error.hint ?? ""
            outcome.exitStatus = error.exitStatus.rawValue
            switch error {
            case .serviceUnavailable(let detail): outcome.error = "serviceUnavailable"; outcome.detail = detail
            case .timeout: outcome.error = "timeout"
            default: outcome.error = "other"; outcome.detail = error.description
            }
        }
        try JSONEncoder().encode(outcome).write(to: URL(fileURLWithPath: output))
    }
}
