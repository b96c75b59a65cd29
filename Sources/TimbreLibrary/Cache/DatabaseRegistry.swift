import Foundation
import TimbreCore

/// One connection (the cache's `DatabasePool`, the user data's `DatabaseQueue`) per database file
/// per process, shared by everything in the process that opens that file: the interface's first
/// frame, its background sync, its editor and every `existingCache()` get the same pool.
///
/// Entries are keyed by the file's canonical path and remembered with the file's device and inode,
/// so a file replaced under the same name (the cache moved aside by another process, a test's
/// fresh folder) gets a connection of its own. The registry holds its connections weakly: a
/// connection lives while something in the process uses it (the interface holds its cache for its
/// whole run), and a test process that opens hundreds of temporary databases does not keep them
/// all open.
///
/// Opening the files before the first connection (`FilePermissions.createPrivate`, `makePrivate`)
/// happens under the registry's lock, only when no live connection of this process holds the file.
final class DatabaseRegistry<Connection: AnyObject & Sendable>: Sendable {
    private struct Entry {
        weak var connection: Connection?
        let file: FileID
    }

    /// Which file a path named when its connection was opened.
    struct FileID: Equatable {
        let device: UInt64
        let inode: UInt64

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private let entries = Locked<[String: Entry]>([:])

    init() {}

    /// The live connection of this process to the file at `path`, or a new one made by `open`
    /// (which runs under the registry's lock: two threads never open the same file twice). `reuse`
    /// is told about a connection found live, still under the lock, and may end it by returning
    /// false (the damaged cache moved aside): `open` then makes a new one.
    func connection(
        for path: String, reuse: (Connection) throws -> Bool = { _ in true }, open: (String) throws -> Connection
    ) throws -> Connection {
        let key = Self.canonical(path)
        return try entries.withLock { entries in
            if let entry = entries[key], let live = entry.connection, FileID(path: path) == entry.file {
                if try reuse(live) { return live }
                entries[key] = nil
            }
            let made = try open(path)
            if let file = FileID(path: path) { entries[key] = Entry(connection: made, file: file) } else { entries[key] = nil }
            // Entries of connections that are gone are dropped as new ones come.
            entries = entries.filter { $0.value.connection != nil }
            return made
        }
    }

    /// Whether this process holds a live connection to the file at `path` (tests).
    func isOpen(_ path: String) -> Bool {
        let key = Self.canonical(path)
        return entries.withLock { $0[key]?.connection != nil }
    }

    /// `path` with its folder's links resolved (the file itself may not exist yet).
    static func canonical(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard let resolved = realpath(folder.isEmpty ? "." : folder, nil) else { return (path as NSString).standardizingPath }
        defer { free(resolved) }
        let real = String(cString: resolved)
        return (real == "/" ? "" : real) + "/" + name
    }
}
