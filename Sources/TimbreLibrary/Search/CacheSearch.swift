import Foundation
import GRDB
import GRDBSQLite
import TimbreCore

/// One item found by `LibraryCache.search`.
public struct SearchMatch: Sendable, Equatable {
    public var playlistID: String
    public var playlistName: String
    public var item: CachedEntry
}

extension LibraryCache {
    /// Items whose folded name, artists or album contain `needle` (folded by `SearchText`), in
    /// the order of the playlists (Liked Songs first) and of their positions; at most `limit`.
    ///
    /// Answered from the index (`SearchIndex`, a few milliseconds for 200,000 items); every hit is
    /// checked against its item. An index that cannot answer — missing, damaged, or contradicted
    /// by an item — is reported once through `warn` and the items are scanned instead
    /// (`searchByScan`): the answers are the same either way.
    public func search(_ needle: [UInt8], limit: Int) throws -> [SearchMatch] {
        do {
            return try indexedSearch(needle, limit: limit).matches
        } catch {
            warnOnce(
                "the search index of the cache could not be used (\(TerminalText.preview("\(error)"))); searching every item instead — `timbre sync` repairs it"
            )
            return try searchByScan(needle, limit: limit)
        }
    }

    /// `search` by streaming every item and folding it (no index): what `search` falls back to,
    /// and the benchmark's reference. Rows stream straight from SQLite and are folded into one
    /// reused buffer, so nothing but the hits stays in memory.
    public func searchByScan(_ needle: [UInt8], limit: Int) throws -> [SearchMatch] {
        guard !needle.isEmpty, limit > 0 else { return [] }
        return try CacheError.wrap {
            try pool.read { db in
                let lists = try Row.fetchAll(db, sql: "SELECT id, name FROM playlist" + Self.playlistOrder)
                var found: [(list: Int, key: Int64)] = []
                var folded: [UInt8] = []
                for (index, list) in lists.enumerated() where found.count < limit {
                    try Self.scan(db, list: list["id"], index: index, needle, limit: limit, folded: &folded, into: &found)
                }
                return try Self.matches(found, lists: lists.map { ($0["id"], $0["name"]) }, needle, db)
            }
        }
    }

    /// Drops every row of the search index and builds them again from the stored items, in one
    /// transaction; returns the number of items indexed. The benchmark's measure of what the
    /// index costs (a sync builds each list's row as it writes the list).
    public func rebuildSearchIndex() throws -> Int {
        try CacheError.wrap {
            try pool.write { db in
                try db.execute(sql: "DELETE FROM item_search")
                return try SearchIndex.refresh(db)
            }
        }
    }

    /// `search` through the index, and how many lists had no usable row and were scanned.
    /// Throws when the index cannot answer.
    func indexedSearch(_ needle: [UInt8], limit: Int) throws -> (matches: [SearchMatch], scannedLists: Int) {
        guard !needle.isEmpty, limit > 0 else { return ([], 0) }
        // Folded text holds no byte below 0x20 but the fields' 0x1F: such a needle matches nothing
        // (and 0x1E, which ends each item in the index, must not match across two items).
        if needle.contains(where: { $0 < 0x20 && $0 != 0x1F }) { return ([], 0) }
        return try pool.read { db in
            let current = try String.fetchOne(db, sql: "SELECT folding FROM item_search_state WHERE id = 0") == SearchIndex.foldingStamp
            // The playlists first, then each list's row by its number: one statement joining and
            // ordering them made SQLite sort every row, blobs included, before the first one.
            let playlists = try Row.fetchAll(db, sql: "SELECT id, name, items_key FROM playlist" + Self.playlistOrder)
            let lists = playlists.map { (id: $0["id"] as String, name: $0["name"] as String) }
            let statement = try db.cachedStatement(sql: "SELECT folded, positions FROM item_search WHERE list = ?")
            let raw = statement.sqliteStatement
            var found: [(list: Int, key: Int64)] = []
            var folded: [UInt8] = []
            var scanned = 0
            for (index, playlist) in playlists.enumerated() where found.count < limit {
                // A playlist whose items were never written has no items.
                guard let list = playlist["items_key"] as Int64? else { continue }
                sqlite3_reset(raw)
                defer { sqlite3_reset(raw) }
                sqlite3_bind_int64(raw, 1, list)
                let step = current ? sqlite3_step(raw) : SQLITE_DONE
                guard step == SQLITE_ROW else {
                    guard step == SQLITE_DONE else { throw SQLiteText.error(step, db, sql: statement.sql) }
                    // No row for this list (written by a timbre without the index): scanned.
                    scanned += 1
                    try Self.scan(db, list: lists[index].id, index: index, needle, limit: limit, folded: &folded, into: &found)
                    continue
                }
                let positions = sqlite3_column_type(raw, 1) == SQLITE_NULL ? nil : Self.blob(raw, 1)
                try SearchIndex.find(needle, in: Self.blob(raw, 0), positions: positions, list: list, listIndex: index, limit: limit, into: &found)
            }
            return (try Self.matches(found, lists: lists, needle, db), scanned)
        }
    }

    private static func blob(_ raw: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_blob(raw, column)
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(raw, column)))
    }

    private func warnOnce(_ text: String) {
        let first = searchWarned.withLock { warned in
            defer { warned = true }
            return !warned
        }
        if first { warn(text) }
    }

    /// Appends the keys of `list`'s items whose folded text contains `needle`, until `found` holds `limit`.
    private static func scan(
        _ db: Database, list: String, index: Int, _ needle: [UInt8], limit: Int, folded: inout [UInt8],
        into found: inout [(list: Int, key: Int64)]
    ) throws {
        // Only the three searched columns are read while scanning; hits are read whole afterwards.
        try eachItem(db, of: list, sql: searchSelect) { raw in
            folded.removeAll(keepingCapacity: true)
            SearchIndex.appendFolded(name: SQLiteText.bytes(raw, 1), artists: SQLiteText.bytes(raw, 2), album: SQLiteText.bytes(raw, 3), to: &folded)
            if SearchText.contains(folded, needle) { found.append((index, sqlite3_column_int64(raw, 0))) }
            return found.count < limit
        }
    }

    /// The hits read whole, each checked against `needle` again: an index that named an item that
    /// does not match (or no longer exists) throws, so a wrong answer is never shown.
    private static func matches(
        _ found: [(list: Int, key: Int64)], lists: [(id: String, name: String)], _ needle: [UInt8],
        _ db: Database
    ) throws -> [SearchMatch] {
        let whole = try db.cachedStatement(sql: itemByKey)
        var folded: [UInt8] = []
        return try found.map { hit in
            try whole.withItem(key: hit.key, db) { raw in
                folded.removeAll(keepingCapacity: true)
                SearchIndex.appendFolded(name: SQLiteText.bytes(raw, 4), artists: SQLiteText.bytes(raw, 5), album: SQLiteText.bytes(raw, 6), to: &folded)
                guard SearchText.contains(folded, needle) else {
                    throw SearchIndex.Unusable(reason: "it named an item that does not match")
                }
                return SearchMatch(playlistID: lists[hit.list].id, playlistName: lists[hit.list].name, item: item(raw))
            }
        }
    }

    /// A list's keys and searched columns, in position order (bound like `itemSelect`).
    static let searchSelect = "SELECT key, name, artists, album " + ItemKey.rowsOfPlaylist

    /// One item by key, columns as in `itemSelect`.
    static let itemByKey = itemColumns + "FROM item WHERE key = ?"
}

/// Text columns and bindings without `String` round trips.
enum SQLiteText {
    /// SQLite copies the bytes before the call returns.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The error SQLite reports for `code` on `db`'s connection, as GRDB's error type.
    static func error(_ code: Int32, _ db: Database, sql: String) -> DatabaseError {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(code)"
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// A text column's UTF-8, valid until the next step or reset; empty for NULL.
    static func bytes(_ raw: OpaquePointer, _ column: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let pointer = sqlite3_column_text(raw, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(raw, column)))
    }
}

private extension Statement {
    /// Steps this one-row statement for `key` and hands `body` the row. The key was read in the
    /// same transaction, so no row means a damaged file, reported as SQLite words it.
    func withItem<T>(key: Int64, _ db: Database, _ body: (OpaquePointer) throws -> T) throws -> T {
        let raw = sqliteStatement
        sqlite3_reset(raw)
        defer { sqlite3_reset(raw) }
        sqlite3_bind_int64(raw, 1, key)
        let step = sqlite3_step(raw)
        guard step == SQLITE_ROW else {
            guard step == SQLITE_DONE else { throw SQLiteText.error(step, db, sql: LibraryCache.itemByKey) }
            throw DatabaseError(
                resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed (an item the search found is missing)",
                sql: LibraryCache.itemByKey)
        }
        return try body(raw)
    }
}
