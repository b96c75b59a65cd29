import Foundation
import Testing
import TimbreCore

@testable import TimbreAuth

/// `--insecure-storage`: the plain-text credentials file.
@Suite struct SecretStoreFileTests {
    let folder: String
    let path: String
    let warnings = Locked<[String]>([])

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-file-\(UUID().uuidString)").path
        path = folder + "/timbre/credentials.json"
    }

    func makeStore() -> FileSecretStore {
        let warnings = self.warnings
        return FileSecretStore(path: path) { line in warnings.withLock { $0.append(line) } }
    }

    func mode(_ path: String) throws -> UInt16 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw KeyringTestFailure("stat \(path) failed") }
        return UInt16(info.st_mode & 0o7777)
    }

    func inode(_ path: String) throws -> UInt {
        var info = stat()
        guard stat(path, &info) == 0 else { throw KeyringTestFailure("stat \(path) failed") }
        return UInt(info.st_ino)
    }

    @Test func writeCreatesA0600FileIn0700FolderWithTheDocumentedJSON() async throws {
        let store = makeStore()
        try await store.write(SecretBytes("r-token"), kind: .refreshToken, tier: .high, profile: "default")
        try await store.write(SecretBytes("{\"a\":1}"), kind: .session, tier: .standard, profile: "default")
        try await store.write(SecretBytes("cid"), kind: .clientID, tier: .standard, profile: "work")

        #expect(try mode(path) == 0o600)
        #expect(try mode((path as NSString).deletingLastPathComponent) == 0o700)
        // Beside the file only its lock (kept: deleting a lock file another process may hold is a
        // race), private, holding the last holder's pid and nothing else: no temporary file left,
        // no secret outside credentials.json.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(leftovers.sorted() == ["credentials.json", "credentials.json.lock"])
        #expect(try mode(path + ".lock") == 0o600)
        #expect(try String(contentsOfFile: path + ".lock", encoding: .utf8) == "\(getpid())\n")

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let profiles = json?["profiles"] as? [String: [String: String]]
        #expect(profiles?["default"] == ["refresh_token": "r-token", "session": "{\"a\":1}"])
        #expect(profiles?["work"] == ["client_id": "cid"])
        #expect(try await store.read(.refreshToken, profile: "default")?.string == "r-token")
        #expect(try await store.read(.refreshToken, profile: "work") == nil)
    }

    /// A sign-in stores several secrets (the refresh token, the session): the warning, with the
    /// path, is said once.
    @Test func theFirstWriteWarnsWithThePathOnce() async throws {
        let store = makeStore()
        try await store.write(SecretBytes("a"), kind: .refreshToken, tier: .high, profile: "default")
        try await store.write(SecretBytes("b"), kind: .session, tier: .high, profile: "default")
        let copy = store
        try await copy.write(SecretBytes("c"), kind: .refreshToken, tier: .high, profile: "default")
        let expected = "timbre: warning: storing secrets in plain text at \(path) (--insecure-storage); anyone with your user account can read them"
        #expect(warnings.current == [expected])
    }

    @Test func overwriteReplacesTheFileAtomically() async throws {
        let store = makeStore()
        try await store.write(SecretBytes("first"), kind: .refreshToken, tier: .high, profile: "default")
        let before = try inode(path)
        try await store.write(SecretBytes("second ✓ 日本"), kind: .refreshToken, tier: .high, profile: "default")
        // A new inode: the content arrived by rename(), not by rewriting the old file in place.
        #expect(try inode(path) != before)
        #expect(try mode(path) == 0o600)
        #expect(try await store.read(.refreshToken, profile: "default")?.string == "second ✓ 日本")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/timbre").sorted() == ["credentials.json", "credentials.json.lock"])
    }

    @Test func refusesAFileOthersCanRead() async throws {
        let store = makeStore()
        try await store.write(SecretBytes("t"), kind: .refreshToken, tier: .high, profile: "default")
        #expect(chmod(path, 0o644) == 0)
        let error = await #expect(throws: SecretStoreError.self) { try await store.read(.refreshToken, profile: "default") }
        #expect(error == .unsafePermissions(path: path, mode: 0o644))
        #expect(error?.description.contains("chmod 600 \(path)") == true)
        #expect(error?.exitStatus == .failure)
        // Logout can still clean it up.
        try await store.delete(.refreshToken, profile: "default")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func deletingTheLastSecretRemovesTheFile() async throws {
        let store = makeStore()
        try await store.delete(.session, profile: "default")  // missing file: fine
        try await store.write(SecretBytes("t"), kind: .refreshToken, tier: .high, profile: "default")
        try await store.write(SecretBytes("c"), kind: .clientID, tier: .standard, profile: "default")
        try await store.delete(.refreshToken, profile: "default")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try await store.read(.refreshToken, profile: "default") == nil)
        #expect(try await store.read(.clientID, profile: "default")?.string == "c")
        try await store.delete(.clientID, profile: "default")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func malformedFileIsAClearError() async throws {
        try FileManager.default.createDirectory(atPath: folder + "/timbre", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("[1,2]".utf8), attributes: [.posixPermissions: 0o600]))
        let error = await #expect(throws: SecretStoreError.self) { try await makeStore().read(.refreshToken, profile: "default") }
        guard case .malformedFile = error else {
            Issue.record("expected .malformedFile, got \(String(describing: error))")
            return
        }
    }
}

@Suite struct SecretStoreEnvironmentAndResolverTests {
    let paths: Paths = {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-resolve-\(UUID().uuidString)").path
        return Paths.resolve(environment: ["HOME": home])
    }()

    @Test func environmentTokenIsReadOnlyAndOnlyTheRefreshToken() async throws {
        let store = try #require(EnvironmentSecretStore(environment: ["TIMBRE_REFRESH_TOKEN": " env-token\n"]))
        #expect(store.source == .env)
        #expect(try await store.read(.refreshToken, profile: "any")?.string == "env-token")
        #expect(try await store.read(.session, profile: "any") == nil)
        try await store.write(SecretBytes("other"), kind: .refreshToken, tier: .high, profile: "any")
        try await store.delete(.refreshToken, profile: "any")
        #expect(try await store.read(.refreshToken, profile: "any")?.string == "env-token")
        #expect(EnvironmentSecretStore(environment: ["TIMBRE_REFRESH_TOKEN": ""]) == nil)
        #expect(EnvironmentSecretStore(environment: [:]) == nil)
    }

    private func vault(environment: [String: String] = [:], keyring: MemorySecretStore = MemorySecretStore(), insecureStorage: Bool) -> CredentialVault {
        CredentialVault(
            profile: "default", refreshTier: .high, environment: EnvironmentSecretStore(environment: environment), keyring: keyring,
            file: FileSecretStore(path: paths.credentials, warn: { _ in }), insecureStorage: insecureStorage, warnings: { _ in })
    }

    @Test func readOrderIsEnvThenKeyringThenTheFile() async throws {
        let keyring = MemorySecretStore()
        let plain = vault(keyring: keyring, insecureStorage: false)
        #expect(try await plain.refreshToken() == nil)
        #expect(plain.loginDestination == .keyring)

        // The file is read without the flag once it exists.
        let insecure = vault(keyring: keyring, insecureStorage: true)
        #expect(insecure.loginDestination == .file)
        try await insecure.storeRefreshToken(SecretBytes("in-file"), to: .file)
        #expect(try await plain.refreshToken().map { [$0.0.string, $0.1.rawValue] } == ["in-file", "file"])

        // The keyring comes before the file, the environment before both.
        try await plain.storeRefreshToken(SecretBytes("in-keyring"), to: .keyring)
        #expect(try await plain.refreshToken().map { [$0.0.string, $0.1.rawValue] } == ["in-keyring", "keyring"])
        let withEnv = vault(environment: ["TIMBRE_REFRESH_TOKEN": "from-env"], keyring: keyring, insecureStorage: false)
        #expect(try await withEnv.refreshToken().map { [$0.0.string, $0.1.rawValue] } == ["from-env", "env"])
        _ = try await plain.removeAll()
        #expect(try await plain.refreshToken() == nil, "logout clears the keyring and the file")
    }

    @Test func environmentTokenWinsAndIsNeverWritten() async throws {
        let vault = vault(environment: ["TIMBRE_REFRESH_TOKEN": "from-env"], insecureStorage: true)
        let found = try await vault.refreshToken()
        #expect(found?.0.string == "from-env")
        #expect(found?.1 == .env)
        // A rotated token goes back where the old one came from: for the environment, nowhere.
        try await vault.storeRefreshToken(SecretBytes("rotated"), to: .env)
        #expect(!FileManager.default.fileExists(atPath: paths.credentials))
    }
}

@Suite struct SecretStoreBytesTests {
    @Test func bytesAreZeroedWhenReleased() {
        let seen = Locked<[UInt8]?>(nil)
        do {
            let secret = SecretBytes(bytes: Array("hunter2-☃".utf8)) { buffer in seen.withLock { $0 = Array(buffer) } }
            #expect(secret.string == "hunter2-☃")
            #expect(seen.current == nil)
        }
        let bytes = seen.current
        #expect(bytes?.count == "hunter2-☃".utf8.count + 1)
        #expect(bytes?.allSatisfy { $0 == 0 } == true)
    }

    @Test func roundTripsUnicodeAndCString() {
        let text = "токен ✓ 🎵 \u{202E}rtl"
        let secret = SecretBytes(text)
        #expect(secret.string == text)
        #expect(secret.count == text.utf8.count)
        #expect(secret.withCString { String(cString: $0) } == text)
        #expect(!secret.isEmpty)
        #expect(SecretBytes("").isEmpty)
        #expect(SecretBytes(copying: UnsafeRawBufferPointer(start: nil, count: 0)).isEmpty)
    }
}
