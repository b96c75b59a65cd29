import Foundation
import GRDB
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreLibrary

/// SQLite used as SQLite requires (#40): one pool (cache) and one queue (user data) per file per
/// process, and no descriptor of a database file opened and closed beside a connection — on Linux
/// that close drops every POSIX lock the process holds on the file, and another process, taking
/// itself for the last connection, deletes the `-wal` under this one.
@Suite struct OneConnectionPerProcessTests {
    private func mode(_ path: String) -> UInt16? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value
    }

    /// An open cache holds its read lock on the database and on the `-shm` (WAL mode), and keeps
    /// them through a second open and a permissions fix of its files in the same process.
    @Test func anOpenCacheKeepsItsLocks() throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        let cache = try LibraryCache.open(path: path, verify: false, warn: { _ in })
        _ = try cache.playlists()
        let pid = getpid()
        #expect(!ProcessFiles.posixLocks(pid: pid, on: path).isEmpty, "no lock on the database after open")
        #expect(!ProcessFiles.posixLocks(pid: pid, on: path + "-shm").isEmpty, "no lock on the -shm after open")
        let again = try LibraryCache.open(path: path, verify: true, warn: { _ in })
        for file in [path, path + "-wal", path + "-shm"] { FilePermissions.makePrivate(file) }
        _ = try again.playlists()
        #expect(!ProcessFiles.posixLocks(pid: pid, on: path).isEmpty, "the database's lock was dropped")
        #expect(!ProcessFiles.posixLocks(pid: pid, on: path + "-shm").isEmpty, "the -shm's lock was dropped")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// A user-data transaction keeps its locks while another part of the process opens the same
    /// file (folders while the journal writes).
    @Test func aUserDataTransactionKeepsItsLocksWhileTheFileIsOpenedAgain() throws {
        let dir = try TempDir()
        let path = dir.path("data/timbre.sqlite")
        let data = try UserData(path: path)
        try data.queue.write { db in
            try db.execute(sql: "PRAGMA user_version = 41")
            let before = ProcessFiles.posixLocks(pid: getpid(), on: path)
            #expect(!before.isEmpty, "no lock inside a write transaction")
            let other = try UserData(path: path)
            #expect(other.queue === data.queue)
            FilePermissions.makePrivate(path)
            #expect(ProcessFiles.posixLocks(pid: getpid(), on: path) == before, "the transaction's locks changed")
        }
    }

    @Test func everyOpenInAProcessSharesOnePoolAndOneQueue() throws {
        let dir = try TempDir()
        let cachePath = dir.path("cache/library.sqlite"), dataPath = dir.path("data/timbre.sqlite")
        let first = try LibraryCache.open(path: cachePath, verify: false, warn: { _ in })
        let second = try LibraryCache.open(path: cachePath, verify: true, warn: { _ in })
        // The same file by another spelling of its path.
        let third = try LibraryCache.open(path: dir.path("cache/../cache/./library.sqlite"), verify: false, warn: { _ in })
        #expect(first.pool === second.pool && second.pool === third.pool)
        let shared = SharedUserData(path: dataPath)
        #expect(try shared.open().queue === UserData(path: dataPath).queue)
        #expect(try UserData.existing(path: dataPath)?.queue === UserData(path: dataPath).queue)
        // Another file, another pool.
        let other = try LibraryCache.open(path: dir.path("other/library.sqlite"), verify: false, warn: { _ in })
        #expect(other.pool !== first.pool)
    }

    /// A pool lives while something in the process uses it; the next open after that opens anew.
    @Test func aPoolNoOneHoldsIsClosed() throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        do {
            let cache = try LibraryCache.open(path: path, verify: false, warn: { _ in })
            _ = try cache.playlists()
            #expect(LibraryCache.pools.isOpen(path))
        }
        #expect(!LibraryCache.pools.isOpen(path))
        #expect(ProcessFiles.posixLocks(pid: getpid(), on: path).isEmpty)
    }

    /// A file replaced under the same name (moved aside by another process) gets a pool of its own.
    @Test func aReplacedFileGetsAPoolOfItsOwn() throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        let old = try LibraryCache.open(path: path, verify: false, warn: { _ in })
        try old.pool.write { db in try db.execute(sql: "PRAGMA user_version = 9") }
        try FileManager.default.moveItem(atPath: path, toPath: path + ".aside")
        let fresh = try LibraryCache.open(path: path, verify: false, warn: { _ in })
        #expect(fresh.pool !== old.pool)
        #expect(try fresh.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } != 9)
    }

    /// A damaged cache met by a verifying open while another part of the process holds it: moved
    /// aside, and the next open gets the new file.
    @Test func aDamagedSharedCacheIsMovedAsideAndReplaced() throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        do {
            let cache = try LibraryCache.open(path: path, verify: false, warn: { _ in })
            try cache.pool.write { db in
                try db.execute(sql: "CREATE TABLE filler(x)")
                for i in 0..<2_000 { try db.execute(sql: "INSERT INTO filler VALUES (?)", arguments: [String(repeating: "x", count: 100) + "\(i)"]) }
            }
        }
        // The pool is gone, so the WAL was checkpointed into the file; scribble over its middle pages.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 3)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size / 3)))
        try handle.close()
        let held = try LibraryCache.open(path: path, verify: false, warn: { _ in Issue.record("a reader moved the cache") })
        let warnings = WarningSink()
        let verified = try LibraryCache.open(path: path, verify: true, warn: warnings.handler)
        #expect(warnings.lines.current.first?.contains("was damaged") == true, "\(warnings.lines.current)")
        #expect(verified.pool !== held.pool)
        #expect(try verified.integrityCheck())
        #expect(try LibraryCache.open(path: path, verify: false, warn: { _ in }).pool === verified.pool)
    }

    /// A database left with a loose mode by an older timbre is private before it is opened.
    @Test func aLooseDatabaseIsMadePrivateBeforeItIsOpened() throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        do { _ = try LibraryCache.open(path: path, verify: false, warn: { _ in }) }
        chmod(path, 0o644)
        let cache = try LibraryCache.open(path: path, verify: false, warn: { _ in })
        _ = try cache.playlists()
        for file in [path, path + "-wal", path + "-shm"] { #expect(mode(file) == 0o600, "\(file): \(String(mode(file) ?? 0, radix: 8))") }
    }
}
