import Foundation
import Testing

@testable import TimbreLibrary

@Suite struct CacheFileModeTests {
    private func mode(_ path: String) -> UInt16? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value
    }

    /// Under a permissive umask (022, as this test process has), the open cache's side files are
    /// still the user's alone: they hold the same library as the main file.
    @Test func walAndShmAreUserOnlyWhileTheCacheIsOpen() throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        let old = umask(0o022)
        defer { umask(old) }
        let cache = try LibraryCache.open(path: path, warn: { _ in })
        #expect(try cache.integrityCheck())
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file) missing")
            #expect(mode(file) == 0o600, "\(file): \(String(mode(file) ?? 0, radix: 8))")
        }
        #expect(mode(dir.path("cache")) == 0o700)
    }
}
