import Foundation
import Testing
import TimbreCore

@testable import TimbreAuth

/// The credentials file decides which refresh token timbre uses: a symlink or a file that others
/// could have written is refused, not read.
@Suite struct CredentialsFileSafetyTests {
    private func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-cred-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private let json = #"{"profiles": {"default": {"refresh_token": "planted-token"}}}"#

    @Test func aSymlinkedCredentialsFileIsRefused() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/elsewhere.json"
        try json.write(toFile: target, atomically: true, encoding: .utf8)
        chmod(target, 0o600)
        try FileManager.default.createSymbolicLink(atPath: dir + "/credentials.json", withDestinationPath: target)
        let store = FileSecretStore(path: dir + "/credentials.json") { _ in }
        do {
            let value = try await store.read(.refreshToken, profile: "default")
            Issue.record("read through a symlink: \(value == nil ? "nothing" : "a token")")
        } catch {
            #expect(error.message.contains("symbolic link"))
        }
    }

    @Test func aGroupWritableCredentialsFileIsRefused() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try json.write(toFile: dir + "/credentials.json", atomically: true, encoding: .utf8)
        chmod(dir + "/credentials.json", 0o620)
        let store = FileSecretStore(path: dir + "/credentials.json") { _ in }
        await #expect(throws: SecretStoreError.self) { _ = try await store.read(.refreshToken, profile: "default") }
    }

    /// Only root can give a file away, so only a root test run can plant one.
    @Test(.enabled(if: geteuid() == 0)) func aCredentialsFileOfAnotherUserIsRefused() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try json.write(toFile: dir + "/credentials.json", atomically: true, encoding: .utf8)
        chmod(dir + "/credentials.json", 0o600)
        chown(dir + "/credentials.json", 12_345, 12_345)
        let store = FileSecretStore(path: dir + "/credentials.json") { _ in }
        do {
            _ = try await store.read(.refreshToken, profile: "default")
            Issue.record("read a credentials file that belongs to another user")
        } catch {
            #expect(error.message.contains("belongs to another user"))
        }
    }
}
