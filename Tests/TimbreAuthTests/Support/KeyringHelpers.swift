import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreAuth

/// Repository paths, from this file's location.
enum KeyringRepo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let helper = root.appendingPathComponent("Tests/Fixtures/keyring.py").path
    /// The system python has python3-dbus; a pyenv python first in PATH may not.
    static let python = "/usr/bin/python3"
}

struct KeyringTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a program to completion; returns stdout + stderr and the exit status.
func runTool(_ executable: String, _ arguments: [String]) async throws -> (output: String, status: Int32) {
    try await offThePool { try ChildProcess.run([executable] + arguments, mergeStderr: true) }
}

/// Tests/Fixtures/keyring.py: plays the user's part (create/unlock the sensitive collection with a
/// master password instead of a prompt) and inspects the keyring.
enum KeyringHelper {
    static let sensitivePassword = "timbre-sensitive-test"

    @discardableResult
    static func run(_ arguments: String...) async throws -> String {
        let result = try await runTool(KeyringRepo.python, [KeyringRepo.helper] + arguments)
        guard result.status == 0 else {
            throw KeyringTestFailure("keyring.py \(arguments.joined(separator: " ")) exited \(result.status): \(result.output)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func sensitiveIsLocked() async throws -> Bool {
        try await run("locked", LibSecretStore.sensitiveCollectionLabel) == "true"
    }

    struct ItemInfo: Decodable {
        let label: String
        let attributes: [String: String]
        let locked: Bool
    }

    static func items(in label: String) async throws -> [ItemInfo] {
        try await run("items", label).split(separator: "\n").map {
            try JSONDecoder().decode(ItemInfo.self, from: Data($0.utf8))
        }
    }
}

/// Fails the test with instructions when no Secret Service is reachable, instead of passing.
func requireSecretService() async throws {
    do {
        _ = try await LibSecretStore(timeout: 20).read(.clientID, profile: "timbre-probe-\(UUID().uuidString)")
    } catch .serviceUnavailable(let detail) {
        Issue.record(
            """
            No Secret Service is reachable (\(detail)). These tests need a real, unlocked gnome-keyring: run \
            scripts/test.sh, or: dbus-run-session -- bash -c 'export HOME=$(mktemp -d); printf pw | \
            gnome-keyring-daemon --unlock --components=secrets >/dev/null; swift test --filter SecretStore'
            """)
        throw KeyringTestFailure("no Secret Service")
    }
}

/// A private D-Bus daemon (keyring.py fake-bus): "hung" has a org.freedesktop.secrets owner that
/// never answers; "empty" has none and no service files to activate one.
final class FakeBus: @unchecked Sendable {
    let address: String
    private let process: Process

    static func start(_ mode: String) async throws -> FakeBus {
        try await offThePool { try FakeBus(mode: mode) }
    }

    private init(mode: String) throws {
        (process, address) = try ChildProcess.startAndReadFirstLine(
            KeyringRepo.python, [KeyringRepo.helper, "fake-bus", mode],
            name: "keyring.py fake-bus")
    }

    deinit { process.terminate() }
}

func uniqueProfile(_ name: String = #function) -> String {
    "test-\(name.prefix { $0 != "(" })-\(UUID().uuidString.prefix(8))"
}

extension SecretBytes {
    var string: String { withString { $0 } }
}
