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
    /// Rows stream straight from SQLite and are folded into one reused buffer: nothing but the hits
    /// stays in memory, so searching 200,000 items costs tens of milliseconds and no resident
    /// memory (loading them all, as the interface once did, cost ~0.8 s and ~100 MB).
    public func search(_ needle: [UInt8], limit: Int) throws -> [SearchMatch] {
        guard !needle.isEmpty, limit > 0 else { return [] }
        return try CacheError.wrap {
            try pool.read { db in
                let lists = try Row.fetchAll(db, sql: "SELECT id, name FROM playlist" + Self.playlistOrder)
                var folded: [UInt8] = []
                var found: [(list: Int, key: Int64)] = []
                for (index, list) in lists.enumerated() where found.count < limit {
                    // Only the three searched columns are read while scanning; hits are read whole afterwards.
                    try Self.eachItem(db, of: list["id"], sql: Self.searchSelect) { raw in
                        folded.removeAll(keepingCapacity: true)
                        SearchText.append(bytes: SQLiteText.bytes(raw, 1), to: &folded)
                        folded.append(0x1F)
                        Self.appendArtists(SQLiteText.bytes(raw, 2), to: &folded)
                        folded.append(0x1F)
                        SearchText.append(bytes: SQLiteText.bytes(raw, 3), to: &folded)
                        if SearchText.contains(folded, needle) { found.append((index, sqlite3_column_int64(raw, 0))) }
                        return found.count < limit
                    }
                }
                let whole = try db.cachedStatement(sql: Self.itemByKey)
                return try found.map { hit in
                    try whole.withItem(key: hit.key, db) { raw in
                        SearchMatch(playlistID: lists[hit.list]["id"], playlistName: lists[hit.list]["name"], item: Self.item(raw))
                    }
                }
            }
        }
    }

    /// A list's keys and searched columns, in position order (bound like `itemSelect`).
    static let searchSelect = "SELECT key, name, artists, album " + ItemKey.rowsOfPlaylist

    /// One item by key, columns as in `itemSelect`.
    static let itemByKey = itemColumns + "FROM item WHERE key = ?"

    /// The artists column (a JSON array of names) folded as the interface shows it: "A, B".
    private static func appendArtists(_ json: UnsafeBufferPointer<UInt8>, to folded: inout [UInt8]) {
        if json.contains(UInt8(ascii: "\\")) {
            // Escapes: decode properly (rare).
            let names = JSONValue.parseStringArray(String(decoding: json, as: UTF8.self)) ?? []
            SearchText.append(names.joined(separator: ", "), to: &folded)
            return
        }
        // ["A","B"] without escapes: the names are the bytes between quotes. ASCII names are folded
        // straight into `folded`; a name with anything else folds the whole "A, B" through
        // Foundation, as the interface does.
        let mark = folded.count
        var nameStart: Int?
        var first = true
        for index in json.indices where json[index] == UInt8(ascii: "\"") {
            guard let start = nameStart else {
                nameStart = index + 1
                continue
            }
            nameStart = nil
            if !first { folded += [UInt8(ascii: ","), UInt8(ascii: " ")] }
            first = false
            if !SearchText.appendASCII(UnsafeBufferPointer(rebasing: json[start..<index]), to: &folded) {
                folded.removeSubrange(mark...)
                return appendJoined(json, to: &folded)
            }
        }
    }

    private static func appendJoined(_ json: UnsafeBufferPointer<UInt8>, to folded: inout [UInt8]) {
        var text: [UInt8] = []
        var inString = false
        var first = true
        for byte in json {
            if byte == UInt8(ascii: "\"") {
                inString.toggle()
                if inString {
                    if !first { text += [UInt8(ascii: ","), UInt8(ascii: " ")] }
                    first = false
                }
            } else if inString {
                text.append(byte)
            }
        }
        text.withUnsafeBufferPointer { SearchText.append(bytes: $0, to: &folded) }
    }
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
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed (an item the search found is missing)",
                                sql: LibraryCache.itemByKey)
        }
        return try body(raw)
    }
}
