import Foundation
import GRDB
import GRDBSQLite
import TimbreCore

/// The SQLite cache of the user's library (`library.sqlite`, WAL).
///
/// A `DatabasePool`: the TUI reads while a `timbre sync` in another process writes, and WAL lets
/// readers see the last committed state without waiting. Each playlist's items are replaced in one
/// transaction together with its snapshot, count and sync time, so a reader sees the old complete
/// list or the new one.
public final class LibraryCache: Sendable {
    public let path: String
    let pool: DatabasePool
    /// Where problems that do not stop a read are told (the search index falling back to a scan).
    let warn: @Sendable (String) -> Void
    /// Whether the search has said its index could not be used (said once per open cache).
    let searchWarned = Locked(false)

    private init(path: String, pool: DatabasePool, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.pool = pool
        self.warn = warn
    }

    /// Creates the folder (0700), opens the pool, runs the migrations. A file that cannot be opened
    /// (or, with `verify`, fails `PRAGMA integrity_check`) is moved aside
    /// (`<path>.corrupt-<timestamp>`) and rebuilt; `warn` is told so in a sentence.
    ///
    /// One pool per file per process (`pools`): a second open while the first is still in use
    /// gets the same pool (with its own `warn`), so the interface, its background sync, its editor
    /// and every read share one set of connections.
    ///
    /// `verify` reads the whole file (~0.2 s for a 200,000-item cache): writers (`timbre sync`)
    /// verify before they write; readers that must answer at once (the interface's first frame,
    /// `playlists`, `tracks`) skip it, and a damaged page they meet is reported as an error that
    /// says to run `timbre sync`, which then rebuilds the cache.
    public static func open(path: String, verify: Bool = true, warn: @escaping @Sendable (String) -> Void) throws -> LibraryCache {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try CacheError.createFolder(directory) }
        try requireOwnFiles(path, sideFiles: ["-wal", "-shm"])
        var aside: String?
        let pool = try pools.connection(
            for: path,
            reuse: { live in
                // Damaged under a pool this process shares: closed, and the file moved aside below.
                // (A check that fails with an error — "database disk image is malformed" — is damage too.)
                guard !verify || (try? integrityOK(live)) == true else {
                    try? live.close()
                    aside = try moveAside(path)
                    return false
                }
                return true
            },
            open: { path in
                if aside != nil { return try reopenPool(path) }
                do {
                    let pool = try openPool(path)
                    if try !verify || integrityOK(pool) { return pool }
                    try? pool.close()
                } catch let error as CacheError {
                    throw error
                } catch {
                    // Falls through: the file is not a usable database.
                }
                aside = try moveAside(path)
                return try reopenPool(path)
            })
        if let aside {
            warn("the cache at \(path) was damaged; it was moved to \(aside) and a new one was created — run `timbre sync` to refill it")
        }
        return LibraryCache(path: path, pool: pool, warn: warn)
    }

    /// Every live pool of this process, by file.
    static let pools = DatabaseRegistry<DatabasePool>()

    private static func reopenPool(_ path: String) throws -> DatabasePool {
        do { return try openPool(path) } catch { throw CacheError.cannotOpen(path: path, detail: "\(error)") }
    }

    /// Called only when this process holds no connection to `path` (under the registry's lock):
    /// the files are made private *before* the first connection — a missing database created empty
    /// with mode 0600 (SQLite then gives its `-wal` and `-shm` the database's mode), existing ones
    /// `chmod`ed by path. Nothing here opens a descriptor of a file a connection may hold: closing
    /// one would drop this process's POSIX locks on it, and another process would take itself for
    /// the last connection and delete the `-wal` under this one.
    private static func openPool(_ path: String) throws -> DatabasePool {
        preparePrivate(path, sideFiles: ["-wal", "-shm"])
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Another process (sync or the TUI) may hold the write lock for a while.
        configuration.busyMode = .timeout(10)
        configuration.label = "timbre.cache"
        // A damaged page is an error, not the end of a list: a range of item keys ends where the
        // keys run past it, and without this check a scribbled leaf can read as that end (the
        // cost did not show in a full scan of 203,743 items). New caches get 8 KB pages: half the
        // pages, WAL frames and writes of 4 KB ones for the same rows, −3 % of a full sync's CPU
        // (an existing file keeps its page size).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cell_size_check = ON; PRAGMA page_size = 8192") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try CacheSchema.migrate(pool)
        return pool
    }

    /// The database made private before any connection of this process opens it: created empty
    /// (0600) when missing, it and its side files `chmod`ed by path when they exist.
    static func preparePrivate(_ path: String, sideFiles: [String]) {
        FilePermissions.createPrivate(path)
        for file in [path] + sideFiles.map({ path + $0 }) { FilePermissions.makePrivate(file) }
    }

    /// The database and its side files are this user's own regular files or absent: SQLite would
    /// follow a link and write its tables (and this chmod) into another file.
    static func requireOwnFiles(_ path: String, sideFiles: [String]) throws {
        for file in [path] + sideFiles.map({ path + $0 }) { try FilePermissions.requireOwnFile(file) }
    }

    private static func integrityOK(_ pool: DatabasePool) throws -> Bool {
        try pool.read { db in
            let rows = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return rows == ["ok"]
        }
    }

    private static func moveAside(_ path: String) throws -> String {
        let stamp = ClockText.iso(Date()).filter { $0 != "-" && $0 != ":" }
        var aside = "\(path).corrupt-\(stamp)"
        let files = FileManager.default
        if files.fileExists(atPath: aside) { aside += "-\(getpid())-\(Int.random(in: 1000...9999))" }
        do {
            if files.fileExists(atPath: path) { try files.moveItem(atPath: path, toPath: aside) }
            for suffix in ["-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
                if suffix == "-wal" { try files.moveItem(atPath: path + suffix, toPath: aside + suffix) } else { try files.removeItem(atPath: path + suffix) }
            }
        } catch {
            throw CacheError.cannotOpen(path: path, detail: "it is damaged and could not be moved aside (\(error.localizedDescription))")
        }
        return aside
    }

    // MARK: Reading

    /// Liked Songs first, then the order Spotify returned.
    static let playlistOrder = " ORDER BY id = 'liked' DESC, sort_order, id"

    public func playlists() throws -> [CachedPlaylist] {
        try CacheError.wrap { try pool.read { db in try Row.fetchAll(db, sql: Self.playlistSelect + Self.playlistOrder).map(Self.playlist) } }
    }

    /// When the most recently synced playlist was synced; nil for a cache no sync has filled.
    public func lastSyncedAt() throws -> Date? {
        try CacheError.wrap {
            try pool.read { db in try String.fetchOne(db, sql: "SELECT MAX(synced_at) FROM playlist").flatMap(ClockText.parseSQLite) }
        }
    }

    public func playlist(_ ref: PlaylistRef) throws -> CachedPlaylist? {
        try CacheError.wrap {
            try pool.read { db in
                try Row.fetchOne(db, sql: Self.playlistSelect + " WHERE id = ?", arguments: [Self.key(ref)]).map(Self.playlist)
            }
        }
    }

    /// The playlist's entries ordered by position; nil when the playlist is not in the cache.
    public func entries(of ref: PlaylistRef) throws -> [CachedEntry]? {
        try entries(of: ref) { $0 }
    }

    /// The playlist's entries ordered by position, each turned into what the caller keeps as it is
    /// read (no array of `CachedEntry` in between: the interface opens playlists of 10,000 entries);
    /// nil when the playlist is not in the cache.
    public func entries<T>(of ref: PlaylistRef, _ transform: (CachedEntry) throws -> T) throws -> [T]? {
        let key = Self.key(ref)
        return try CacheError.wrap {
            try pool.read { db in
                guard let count = try Int.fetchOne(db, sql: "SELECT track_count FROM playlist WHERE id = ?", arguments: [key]) else { return nil }
                return try Self.fetchEntries(db, key, expected: count, transform)
            }
        }
    }

    /// The playlist's entries as a list view shows them, ordered by position, each turned into
    /// what the caller keeps: only the columns shown, no `CachedEntry` (the interface opens
    /// playlists of 10,000 entries, and a key must be answered within a frame); nil when the
    /// playlist is not in the cache.
    /// `limit`: the first that many only (what a long list shows while the rest is read).
    public func listedEntries<T>(of ref: PlaylistRef, limit: Int? = nil, transform: (ListedEntry) throws -> T) throws -> [T]? {
        let key = Self.key(ref)
        return try CacheError.wrap {
            try pool.read { db in
                guard let count = try Int.fetchOne(db, sql: "SELECT track_count FROM playlist WHERE id = ?", arguments: [key]) else { return nil }
                var result: [T] = []
                result.reserveCapacity(min(max(limit ?? count, 0), 50_000))
                try Self.eachItem(db, of: key, sql: Self.listedSelect) { raw in
                    result.append(try transform(Self.listed(raw)))
                    return limit.map { result.count < $0 } ?? true
                }
                return result
            }
        }
    }

    /// How many entries of the playlist the cache holds (0 when it is not in the cache).
    public func entryCount(of ref: PlaylistRef) throws -> Int {
        let key = Self.key(ref)
        return try CacheError.wrap {
            try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) " + ItemKey.rowsOfPlaylist, arguments: [key]) ?? 0 }
        }
    }

    static let listedSelect = "SELECT position, uri, name, artists, album, duration_ms, added_at, release_date " + ItemKey.rowsOfPlaylist

    /// The current row of `raw` (columns as in `listedSelect`).
    static func listed(_ raw: OpaquePointer) -> ListedEntry {
        func text(_ column: Int32) -> String? {
            sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : String(decoding: SQLiteText.bytes(raw, column), as: UTF8.self)
        }
        return ListedEntry(
            position: Int(sqlite3_column_int64(raw, 0)), uri: text(1) ?? "", name: text(2) ?? "",
            artists: JSONValue.parseStringArray(text(3) ?? "[]") ?? [], album: text(4), durationMS: Int(sqlite3_column_int64(raw, 5)),
            addedAt: text(6), releaseDate: text(7))
    }

    /// A playlist and its items read in one transaction, so they belong to the same sync.
    public func playlistWithItems(_ ref: PlaylistRef) throws -> (playlist: CachedPlaylist, items: [CachedEntry])? {
        let key = Self.key(ref)
        return try CacheError.wrap {
            try pool.read { db in
                guard let playlist = try Row.fetchOne(db, sql: Self.playlistSelect + " WHERE id = ?", arguments: [key]).map(Self.playlist) else {
                    return nil
                }
                return (playlist, try Self.fetchEntries(db, key, expected: playlist.trackCount) { $0 })
            }
        }
    }

    public func integrityCheck() throws -> Bool {
        try CacheError.wrap { try Self.integrityOK(pool) }
    }

    /// The last `limit` sync reports, newest first, as stored JSON text.
    public func recentSyncRuns(limit: Int = 10) throws -> [String] {
        try CacheError.wrap {
            try pool.read { db in try String.fetchAll(db, sql: "SELECT report FROM sync_run ORDER BY id DESC LIMIT ?", arguments: [limit]) }
        }
    }

    static func key(_ ref: PlaylistRef) -> String {
        switch ref {
        case .liked: return CachedPlaylist.likedID
        case .playlist(let id): return id.rawValue
        }
    }

    private static let playlistSelect = """
        SELECT id, name, owner_id, owner_name, snapshot_id, track_count, collaborative, is_public, synced_at, unavailable FROM playlist
        """

    /// A playlist's items, read column by column from SQLite (no `Row` per item: the interface
    /// reads thousands of them before its first frame).
    private static func fetchEntries<T>(_ db: Database, _ key: String, expected: Int, _ transform: (CachedEntry) throws -> T) throws -> [T] {
        var result: [T] = []
        result.reserveCapacity(min(max(expected, 0), 50_000))  // a hint: the count Spotify reported
        try eachItem(db, of: key) { raw in
            result.append(try transform(item(raw)))
            return true
        }
        return result
    }

    static let itemSelect = itemColumns + ItemKey.rowsOfPlaylist

    /// The columns `item(_:)` reads, in its order.
    static let itemColumns =
        "SELECT position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at, album_id, release_date, "
        + "artist_ids, disc_number, track_number, explicit, isrc, added_by "

    /// Steps through a playlist's items in position order; `body` reads the current row of the
    /// statement (columns as in `sql`, `itemSelect` unless given) and returns false to stop.
    static func eachItem(_ db: Database, of key: String, sql: String = itemSelect, _ body: (OpaquePointer) throws -> Bool) throws {
        let statement = try db.cachedStatement(sql: sql)
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        defer { sqlite3_reset(raw) }
        _ = key.withCString { sqlite3_bind_text(raw, 1, $0, -1, SQLiteText.transient) }
        while true {
            let step = sqlite3_step(raw)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw SQLiteText.error(step, db, sql: statement.sql) }
            if try !body(raw) { return }
        }
    }

    private static func playlist(_ row: Row) -> CachedPlaylist {
        CachedPlaylist(
            id: row["id"], name: row["name"], ownerID: row["owner_id"], ownerName: row["owner_name"],
            snapshotID: row["snapshot_id"], trackCount: row["track_count"], collaborative: row["collaborative"],
            isPublic: row["is_public"], syncedAt: (row["synced_at"] as String?).flatMap(ClockText.parseSQLite), unavailable: row["unavailable"])
    }

    /// The current row of `raw` (columns as in `itemSelect`) as a `CachedEntry`.
    static func item(_ raw: OpaquePointer) -> CachedEntry {
        func text(_ column: Int32) -> String? {
            sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : String(decoding: SQLiteText.bytes(raw, column), as: UTF8.self)
        }
        // The cache wrote the artists text itself (a JSON array of strings).
        let artists = JSONValue.parseStringArray(text(5) ?? "[]") ?? []
        func number(_ column: Int32) -> Int? {
            sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(raw, column))
        }
        return CachedEntry(
            position: Int(sqlite3_column_int64(raw, 0)), kind: EntryKind(rawValue: text(1) ?? "") ?? .track, id: text(2),
            uri: text(3) ?? "", name: text(4) ?? "", artists: artists, album: text(6),
            durationMS: Int(sqlite3_column_int64(raw, 7)), addedAt: text(8), albumID: text(9), releaseDate: text(10),
            artistIDs: text(11).map(CachedEntry.artistIDs), discNumber: number(12), trackNumber: number(13),
            explicit: number(14).map { $0 != 0 }, isrc: text(15), addedBy: text(16))
    }
}

/// Problems with the cache file itself.
public enum CacheError: UserFacingError, Equatable {
    case cannotCreateFolder(path: String, detail: String)
    case cannotOpen(path: String, detail: String)
    case database(String)
    /// Found damaged while in use (the interface does not move a file it is showing).
    case damaged(path: String)
    /// An item position an item key cannot hold (nothing of the list was stored).
    case positionOutOfRange(Int)

    public var message: String {
        switch self {
        case .cannotCreateFolder(let path, let detail): return "cannot create the cache folder \(path): \(detail)"
        case .cannotOpen(let path, let detail): return "cannot open the cache \(path): \(TerminalText.preview(detail))"
        case .database(let detail): return "the cache could not be read or written: \(TerminalText.preview(detail))"
        case .damaged(let path): return "the cache at \(path) is damaged, so it was not synced"
        case .positionOutOfRange(let position): return "item position \(position) is outside what the cache can hold (0…\(ItemKey.positions - 1))"
        }
    }

    public var hint: String? {
        switch self {
        case .cannotCreateFolder: return "check the permissions of that folder, or set XDG_CACHE_HOME"
        case .cannotOpen: return "the cache can be rebuilt: delete it and run `timbre sync`"
        case .database(let detail) where detail.contains("malformed") || detail.contains("not a database"):
            return "the cache file is damaged: run `timbre sync`, which moves it aside and rebuilds it"
        case .database: return "the cache can be rebuilt: delete it and run `timbre sync`"
        case .damaged: return "quit and run `timbre sync`: it moves the damaged file aside and rebuilds the cache"
        case .positionOutOfRange: return "nothing of that list was changed in the cache; please report the list's size"
        }
    }

    public var exitStatus: ExitStatus { .failure }

    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CacheError { throw error } catch { throw CacheError.database("\(error)") }
    }

    /// A write cancelled with its task stays a `CancellationError`: it says nothing about the cache.
    static func wrap<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CacheError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw CacheError.database("\(error)")
        }
    }

    /// mkdir -p with 0700 for every folder it creates.
    static func createFolder(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw CacheError.cannotCreateFolder(path: path, detail: "a file with that name exists")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CacheError.cannotCreateFolder(path: path, detail: error.localizedDescription)
        }
    }
}
