import Foundation
import GRDB
import TimbreCore

/// The user's own data (`$XDG_DATA_HOME/timbre/timbre.sqlite`: the edit journal and local folders)
/// and its one owner, as GRDB's AppDatabase owns a database: one `DatabaseQueue` with a busy
/// timeout — so a folder toggle in the interface waits for a `timbre playlist …` in another
/// process to finish its journal write instead of failing —, the file safety checks, and the
/// schema history (`UserDataSchema`) migrated once when it opens. `journal` and `folders` are
/// views on that queue: neither opens a connection of its own.
public final class UserData: Sendable {
    public let path: String
    let queue: DatabaseQueue

    /// Opens the file, creating it and its folder when missing (the first edit or folder does).
    /// One queue per file per process (`queues`): every `UserData` of the same file opened while
    /// another is in use shares its queue, so this process's journal, folder and history writes
    /// are serialized by one queue and never by two connections racing each other.
    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try CacheError.createFolder(directory) }
        try LibraryCache.requireOwnFiles(path, sideFiles: Self.sideFiles)
        do {
            queue = try Self.queues.connection(for: path) { path in
                // Made private before the first connection: see `LibraryCache.openPool`.
                LibraryCache.preparePrivate(path, sideFiles: Self.sideFiles)
                var configuration = Configuration()
                configuration.busyMode = .timeout(10)
                configuration.label = "timbre.userdata"
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try UserDataSchema.migrator.migrate(queue)
                return queue
            }
        } catch {
            throw CacheError.cannotOpen(path: path, detail: "\(error)")
        }
    }

    /// Every live queue of this process, by file.
    static let queues = DatabaseRegistry<DatabaseQueue>()

    /// The user data if a file exists already; what only reads never creates one.
    public static func existing(path: String) throws -> UserData? {
        FileManager.default.fileExists(atPath: path) ? try UserData(path: path) : nil
    }

    static let sideFiles = ["-wal", "-shm", "-journal"]

    public var journal: EditJournal { EditJournal(self) }
    public var folders: Folders { Folders(self) }
    public var versions: PlaylistVersions { PlaylistVersions(self) }
}

/// A run's user data, opened on first use and then shared: the interface's folder list, its
/// folder edits and its editor's journal all go through one `UserData` (one queue), opened when
/// the first of them needs it.
public final class SharedUserData: Sendable {
    public let path: String
    private let opened = Locked<UserData?>(nil)

    public init(path: String) { self.path = path }

    /// Opens (creating the file when missing) once; later calls get the same `UserData`.
    public func open() throws -> UserData {
        try opened.withLock { opened in
            if let opened { return opened }
            let data = try UserData(path: path)
            opened = data
            return data
        }
    }

    /// The user data if it is open or a file exists; nil otherwise (nothing is created).
    public func existing() throws -> UserData? {
        try opened.withLock { opened in
            if let opened { return opened }
            guard let data = try UserData.existing(path: path) else { return nil }
            opened = data
            return data
        }
    }
}
