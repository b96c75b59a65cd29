import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreAuth

/// An accounts service that rotates the refresh token on every refresh, as Spotify may: the old
/// token dies the moment the new one is issued.
private final class RotatingAccounts: HTTPTransport, Sendable {
    let state = Locked((valid: "r0", issued: 0, refreshes: 0, rejected: 0))

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // Long enough that a second caller reaches the lock while the first is out.
        try await Task.sleep(for: .milliseconds(30))
        let form = String(decoding: request.body ?? Data(), as: UTF8.self)
        let given = form.split(separator: "&").first { $0.hasPrefix("refresh_token=") }.map { String($0.dropFirst(14)) }
        return state.withLock { s in
            guard given == s.valid else {
                s.rejected += 1
                return HTTPResponse(status: 400, body: Data(#"{"error":"invalid_grant","error_description":"Invalid refresh token"}"#.utf8))
            }
            s.refreshes += 1
            s.issued += 1
            s.valid = "r\(s.issued)"
            let body = #"{"access_token":"a\#(s.issued)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(s.valid)","scope":"s"}"#
            return HTTPResponse(status: 200, body: Data(body.utf8))
        }
    }

    /// Another process's refresh: rotates and returns the new refresh token.
    func rotateElsewhere() -> String {
        state.withLock { s in
            s.issued += 1
            s.valid = "r\(s.issued)"
            return s.valid
        }
    }
}

/// A keyring both "processes" see, as the desktop keyring is.
private final class SharedKeyring: SecretStore, Sendable {
    let source: SecretSource = .keyring
    let values = Locked<[String: String]>([:])
    /// Runs after each read of the refresh token (a test rotates it there, as a process that
    /// does not take the lock could).
    let afterRefreshTokenRead = Locked<(@Sendable () -> Void)?>(nil)

    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        let value = values.current["\(profile)/\(kind.rawValue)"].map { SecretBytes($0) }
        if kind == .refreshToken,
            let hook = afterRefreshTokenRead.withLock({ hook in
                defer { hook = nil }
                return hook
            })
        {
            hook()
        }
        return value
    }
    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {
        let text = secret.withString { $0 }
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = text }
    }
    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = nil }
    }
}

/// The refresh of a rotating token shared by several processes: one at a time under the
/// profile's lock, a session renewed by another process adopted, `invalid_grant` checked against
/// the store once before the user is told to sign in again.
@Suite struct SessionRaceTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-session-\(UUID().uuidString)").path

    /// One "process": its own vault (its own memory of the session) and manager, over the shared
    /// keyring and accounts service.
    private func process(
        _ accounts: RotatingAccounts, _ keyring: SharedKeyring, locked: Bool = true, session: Session? = nil,
        environment: [String: String] = [:]
    ) throws -> TokenManager {
        let vault = CredentialVault(
            profile: "p", refreshTier: .high, environment: EnvironmentSecretStore(environment: environment), keyring: keyring,
            file: EmptyStore(), insecureStorage: false, warnings: { _ in })
        let executor = RequestExecutor(transport: accounts, policy: RetryPolicy(maxRetries: 0))
        let client = AccountsClient(executor: executor, accountsURL: try #require(URL(string: "https://accounts.test")), clientID: "c")
        return TokenManager(accounts: client, vault: vault, session: session, lockPath: locked ? folder + "/session.lock" : nil)
    }

    private func signedIn() -> SharedKeyring {
        let keyring = SharedKeyring()
        keyring.values.withLock { $0["p/refresh_token"] = "r0" }
        return keyring
    }

    private var expired: Session { Session(accessToken: "old", expiresAt: Date().addingTimeInterval(-60), scopes: ["s"]) }

    @Test func fourProcessesNeedingATokenAtOnceRefreshOnceAndAdoptIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        let keyring = signedIn()
        let processes = try (0..<4).map { _ in try process(accounts, keyring, session: expired) }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for manager in processes { group.addTask { try await manager.accessToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        let state = accounts.state.current
        #expect(state.rejected == 0, "no process spent a refresh token another one had rotated")
        #expect(state.refreshes == 1, "one refreshed, three adopted: \(state.refreshes) refreshes")
        #expect(tokens == ["a1"])
        #expect(keyring.values.current["p/refresh_token"] == "r1")
        var adopted = 0
        for manager in processes { adopted += await manager.adoptedCount }
        #expect(adopted == 3)
    }

    @Test func aSessionAnotherProcessRenewedIsAdoptedWithoutARefresh() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        let keyring = signedIn()
        let other = try process(accounts, keyring)
        let mine = try process(accounts, keyring, session: expired)
        #expect(try await other.accessToken() == "a1")
        #expect(try await mine.accessToken() == "a1", "the stored session, not a second refresh")
        #expect(accounts.state.current.refreshes == 1)
        #expect(await mine.refreshCount == 0)
    }

    /// The profile's keyring holds account A's fresh session; a run given account B's refresh
    /// token in TIMBRE_REFRESH_TOKEN must neither start with it nor take it over at its refresh —
    /// it refreshes with B's token (which this accounts service refuses: the run fails, it does
    /// not act on A's library). Seen in the suite: tests sharing one keyring profile picked up
    /// one another's sessions and got 401 from their own sandbox.
    @Test func anotherAccountsStoredSessionIsNeitherUsedNorAdopted() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        let keyring = signedIn()
        #expect(try await process(accounts, keyring).accessToken() == "a1")
        let other = try process(accounts, keyring, environment: ["TIMBRE_REFRESH_TOKEN": "account-b"])
        #expect(await other.currentSession() == nil, "A's session is not B's")
        await #expect(throws: (any Error).self) { try await other.accessToken() }
        #expect(await other.adoptedCount == 0)
        #expect(accounts.state.current.rejected == 1, "B's own token was the one tried")
    }

    @Test func aStoredSessionThatHasExpiredIsNotAdopted() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        let keyring = signedIn()
        let stale = Session(accessToken: "stale", expiresAt: Date().addingTimeInterval(-5), scopes: ["s"])
        keyring.values.withLock { $0["p/session"] = try? stale.encoded() }
        let mine = try process(accounts, keyring, session: expired)
        #expect(try await mine.accessToken() == "a1")
        #expect(accounts.state.current.refreshes == 1)
    }

    /// A 401 for the token in use: the stored session is that same token, so it is refreshed.
    @Test func theRejectedTokenIsNeverAdoptedBack() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        let keyring = signedIn()
        let mine = try process(accounts, keyring)
        #expect(try await mine.accessToken() == "a1")
        #expect(try await mine.accessToken(afterRejecting: "a1") == "a2")
        #expect(accounts.state.current.refreshes == 2)
    }

    @Test func invalidGrantReadsTheStoreOnceAndTriesTheNewerToken() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        let keyring = signedIn()
        // Right after this process read r0, another one (not taking the lock: an older timbre)
        // rotates it and stores the new token — but no session.
        keyring.afterRefreshTokenRead.withLock {
            $0 = {
                let newer = accounts.rotateElsewhere()
                keyring.values.withLock { $0["p/refresh_token"] = newer }
            }
        }
        let mine = try process(accounts, keyring, session: expired)
        #expect(try await mine.accessToken() == "a2")
        let state = accounts.state.current
        #expect(state.rejected == 1, "r0 was refused once")
        #expect(state.refreshes == 1, "then r1 worked")
        #expect(keyring.values.current["p/refresh_token"] == "r2")
    }

    @Test func invalidGrantWithNothingNewerStoredSaysTheSessionHasEnded() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let accounts = RotatingAccounts()
        _ = accounts.rotateElsewhere()  // r0, the stored token, is dead and nothing replaced it
        let mine = try process(accounts, signedIn(), session: expired)
        let error = await #expect(throws: SpotifyError.self) { try await mine.accessToken() }
        #expect(error?.exitStatus == .authenticationRequired)
        #expect(accounts.state.current.rejected == 1, "asked once: the store had nothing newer")
    }
}

/// The lock itself: exclusive across descriptors, waited for with a deadline, named when busy.
@Suite struct FileLockTests {
    private let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-lock-\(UUID().uuidString)/x.lock").path

    @Test func aHeldLockIsRefusedAfterTheWaitWithTheHoldersPID() async throws {
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let held = try await FileLock.acquire(path: path, wait: .zero)
        let error = await #expect(throws: FileLockError.self) { try await FileLock.acquire(path: path, wait: .milliseconds(50)) }
        #expect(error == .busy(path: path, pid: getpid(), waited: .milliseconds(50)))
        held.release()
        try await FileLock.acquire(path: path, wait: .zero).release()
    }

    @Test func aWaiterGetsTheLockOnceItIsReleased() async throws {
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let held = try await FileLock.acquire(path: path, wait: .zero)
        let busySeen = Locked(0)
        // Released while the other waits: no timing involved, the wait is an hour.
        let second = try await FileLock.acquire(path: path, wait: .seconds(3_600)) {
            busySeen.withLock { $0 += 1 }
            held.release()
        }
        #expect(busySeen.current >= 1)
        second.release()
        var info = stat()
        let found = stat(path, &info)
        #expect(found == 0 && info.st_mode & 0o777 == 0o600, "the lock file is 0600")
    }
}
