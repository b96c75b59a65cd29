import Foundation
import Testing

@testable import TimbreLibrary

@Suite struct SyncLockSafetyTests {
    /// A symlink planted at `<cache>.lock` must not make timbre lock and truncate another file.
    @Test func aSymlinkedLockIsRefusedAndItsTargetKept() async throws {
        let dir = try TempDir()
        let victim = dir.path("victim")
        try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir.path("library.sqlite.lock"), withDestinationPath: victim)
        await #expect(throws: SyncLockError.self) {
            _ = try await SyncLock.acquire(cachePath: dir.path("library.sqlite"), wait: .zero)
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    /// Issue #31, item 2: another user's lock file is neither truncated nor written.
    @Test(.enabled(if: getuid() == 0, "needs root: only root can give a file to another uid"))
    func anotherUsersLockIsRefusedAndKept() async throws {
        let dir = try TempDir()
        let lock = dir.path("library.sqlite.lock")
        try "theirs\n".write(toFile: lock, atomically: true, encoding: .utf8)
        #expect(chown(lock, 65534, 65534) == 0)
        await #expect(throws: SyncLockError.self) {
            _ = try await SyncLock.acquire(cachePath: dir.path("library.sqlite"), wait: .zero)
        }
        #expect(try String(contentsOfFile: lock, encoding: .utf8) == "theirs\n")
    }
}
