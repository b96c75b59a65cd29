import Foundation
import GRDB
import GRDBSQLite
import TimbreCore

/// A playlist's description as Spotify reported it (from `/me/playlists` or `/playlists/{id}`).
struct PlaylistMeta: Sendable, Equatable {
    var id: String
    var name: String
    var ownerID: String
    var ownerName: String?
    var snapshotID: String?
    var total: Int
    var collaborative: Bool
    var isPublic: Bool
    /// Not stored: the playlist's object had the shape before 2026 (`tracks`), so its entries are
    /// read and written through `/tracks` (see `API.Playlist.legacyShape`).
    var legacyShape = false
}

/// What the cache holds for a playlist, as the sync engine needs it.
struct StoredState: Sendable, Equatable {
    /// The snapshot whose items are stored (or that was found unavailable); nil until then.
    var snapshotID: String?
    var trackCount: Int
    var itemCount: Int
    var fingerprint: String?
    var unavailable: Bool
    var sortOrder: Int
}

/// The write side, used by `SyncEngine`. Every method is one transaction.
extension LibraryCache {
    func storedState() async throws -> [String: StoredState] {
        try await CacheError.wrap {
            try await pool.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT p.id, p.snapshot_id, p.track_count, p.fingerprint, p.unavailable, p.sort_order,
                               (SELECT COUNT(*) FROM item i WHERE \(ItemKey.range("i.key", ofList: "p.items_key"))) AS item_count
                        FROM playlist p
                        """)
                var result: [String: StoredState] = [:]
                for row in rows {
                    result[row["id"]] = StoredState(
                        snapshotID: row["snapshot_id"], trackCount: row["track_count"], itemCount: row["item_count"],
                        fingerprint: row["fingerprint"], unavailable: row["unavailable"], sortOrder: row["sort_order"])
                }
                return result
            }
        }
    }

    /// Records names, owners and flags (and the order, when given) without touching items or
    /// snapshots; playlists not yet cached are added with no snapshot, so their items get fetched.
    func updateMetadata(_ metas: [(meta: PlaylistMeta, sortOrder: Int?)]) async throws {
        guard !metas.isEmpty else { return }
        try await CacheError.wrap {
            try await pool.write { db in
                var next = (try Int.fetchOne(db, sql: "SELECT MAX(sort_order) FROM playlist WHERE id != 'liked'") ?? -1) + 1
                // Prepared once for the whole list: compiling the upsert for each of 500 playlists
                // took ~15 ms, while every item request of the sync waited for this write.
                let existingOrder = try db.cachedStatement(sql: "SELECT sort_order FROM playlist WHERE id = ?")
                let upsert = try db.cachedStatement(
                    sql: """
                        INSERT INTO playlist (id, sort_order, name, owner_id, owner_name, snapshot_id, track_count, collaborative, is_public)
                        VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET sort_order = excluded.sort_order, name = excluded.name, owner_id = excluded.owner_id,
                            owner_name = excluded.owner_name, collaborative = excluded.collaborative, is_public = excluded.is_public
                        """)
                for (meta, sortOrder) in metas {
                    let order: Int
                    if let sortOrder {
                        order = sortOrder
                    } else if let existing = try Int.fetchOne(existingOrder, arguments: [meta.id]) {
                        order = existing
                    } else {
                        order = next
                        next += 1
                    }
                    try upsert.execute(arguments: [meta.id, order, meta.name, meta.ownerID, meta.ownerName, meta.total, meta.collaborative, meta.isPublic])
                }
            }
        }
    }

    /// `replaceEntries` for callers that hold values rather than decoded rows.
    @discardableResult
    func replaceEntries(
        of meta: PlaylistMeta, trackCount: Int, items: [CachedEntry], fingerprint: String? = nil,
        sortOrder: Int? = nil, at date: Date = Date()
    ) async throws -> Int {
        try await replaceEntries(of: meta, trackCount: trackCount, items: EntryList(EntryRows(items)), fingerprint: fingerprint, sortOrder: sortOrder, at: date)
    }

    /// Replaces a playlist's items together with its snapshot, count and sync time: readers see the
    /// old complete list or the new one. Returns the number of items written.
    @discardableResult
    func replaceEntries(
        of meta: PlaylistMeta, trackCount: Int, items: EntryList, fingerprint: String? = nil,
        sortOrder: Int? = nil, at date: Date = Date()
    ) async throws -> Int {
        try await CacheError.wrap {
            try await pool.write { db in
                try Self.write(meta, trackCount: trackCount, items: items, fingerprint: fingerprint, sortOrder: sortOrder, at: date, db)
            }
        }
    }

    /// Several playlists' `replaceEntries` in one transaction (see `ListWriteQueue`): all of them,
    /// or, when one fails, none. Returns the number of items written.
    func replaceEntries(_ lists: [ListWrite], at date: Date = Date()) async throws -> Int {
        try await CacheError.wrap {
            try await pool.write { db in
                try lists.reduce(0) { written, list in
                    try written + Self.write(list.meta, trackCount: list.trackCount, items: list.items, fingerprint: nil, sortOrder: nil, at: date, db)
                }
            }
        }
    }

    private static func write(
        _ meta: PlaylistMeta, trackCount: Int, items: EntryList, fingerprint: String?, sortOrder: Int?,
        at date: Date, _ db: Database
    ) throws -> Int {
        let order =
            try sortOrder
            ?? Int.fetchOne(db.cachedStatement(sql: "SELECT sort_order FROM playlist WHERE id = ?"), arguments: [meta.id])
            ?? (Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(sort_order) FROM playlist WHERE id != 'liked'")) ?? -1) + 1
        try db.cachedStatement(
            sql: """
                INSERT INTO playlist (id, sort_order, name, owner_id, owner_name, snapshot_id, track_count, collaborative, is_public,
                                      synced_at, unavailable, fingerprint)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                ON CONFLICT(id) DO UPDATE SET sort_order = excluded.sort_order, name = excluded.name, owner_id = excluded.owner_id,
                    owner_name = excluded.owner_name, snapshot_id = excluded.snapshot_id, track_count = excluded.track_count,
                    collaborative = excluded.collaborative, is_public = excluded.is_public, synced_at = excluded.synced_at,
                    unavailable = 0, fingerprint = excluded.fingerprint
                """
        ).execute(arguments: [
            meta.id, order, meta.name, meta.ownerID, meta.ownerName, meta.snapshotID, trackCount,
            meta.collaborative, meta.isPublic, ClockText.sqlite(date), fingerprint,
        ])
        // The new rows are appended under a list number larger than any so far (see
        // migrations v3 and v4); moving the playlist to it deletes the old rows (trigger).
        let list = try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(items_key), 0) + 1 FROM playlist")) ?? 1
        try db.cachedStatement(sql: "UPDATE playlist SET items_key = ? WHERE id = ?").execute(arguments: [list, meta.id])
        // Nothing can own the new range yet; a stray row there (a file edited by hand) would
        // otherwise fail every later write of a list.
        try db.cachedStatement(sql: "DELETE FROM item WHERE \(ItemKey.range("key", ofList: "?1"))").execute(arguments: [list])
        for chunk in items.chunks {
            try ItemInsert.write(chunk.rows, positionOffset: chunk.positionOffset, list: list, db)
        }
        try SearchIndex.store(items, list: list, db)
        try dropPartialPages(of: meta.id, db)
        return items.count
    }

    /// Spotify refuses to show this playlist's items: keep whatever was stored, remember the snapshot
    /// so an unchanged playlist is not asked again.
    func markUnavailable(_ meta: PlaylistMeta) async throws {
        try await CacheError.wrap {
            try await pool.write { db in
                try db.execute(
                    sql: "UPDATE playlist SET unavailable = 1, snapshot_id = ?, track_count = ? WHERE id = ?",
                    arguments: [meta.snapshotID, meta.total, meta.id])
                try Self.dropPartialPages(of: meta.id, db)
            }
        }
    }

    func remove(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await CacheError.wrap {
            try await pool.write { db in
                for id in ids {
                    try db.execute(sql: "DELETE FROM playlist WHERE id = ?", arguments: [id])
                    try Self.dropPartialPages(of: id, db)
                }
            }
        }
    }

    /// Also indexes, for search, the lists that have no index row (`SearchIndex.refresh`): lists an
    /// older timbre wrote, or all of them after Foundation's folding changed.
    func recordRun(startedAt: Date, report: SyncReport) async throws {
        try await CacheError.wrap {
            try await pool.write { db in
                try SearchIndex.refresh(db)
                try db.execute(
                    sql: "INSERT INTO sync_run (started_at, finished_at, status, report) VALUES (?, ?, ?, ?)",
                    arguments: [ClockText.sqlite(startedAt), ClockText.sqlite(Date()), report.status.rawValue, report.json.serialized()])
            }
        }
    }
}

/// The item INSERT with its columns bound straight to SQLite from `EntryRows`' buffer: GRDB's
/// argument arrays box every value, and a full sync writes ~200,000 rows. Rows go in 64 per
/// statement: each execution of an INSERT opens and closes cursors, checks the foreign key's
/// parent and finishes the statement, and per row that was a third of the sync's CPU time. Used
/// only inside a GRDB write, on statements GRDB prepared and caches.
///
/// `OR FAIL`: a row that breaks a constraint stops the statement without undoing the rows before
/// it, which is safe only because every failure here fails the whole transaction (GRDB rolls it
/// back). The default, `ABORT`, undoes just the statement, so SQLite kept a statement journal of
/// every page each multi-row INSERT touched that the transaction had touched before; once one
/// statement's journal passed 64 KB it went to a temporary file for good, and some full syncs
/// wrote 10–34 MB to `/var/tmp` besides the 35 MB of WAL.
private struct ItemInsert {
    static let batchSize = 64
    private static let columns: Int32 = 17
    private static func sql(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: Int(columns)).joined(separator: ", ") + ")"
        return "INSERT OR FAIL INTO item (key, kind, spotify_id, uri, name, artists, album, duration_ms, added_at, album_id, release_date, "
            + "artist_ids, disc_number, track_number, explicit, isrc, added_by) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }
    /// `sqlFor[n]` inserts n rows (n in 1...batchSize).
    private static let sqlFor: [String] = (0...batchSize).map { $0 == 0 ? "" : sql(rows: $0) }

    let statement: Statement
    let db: Database

    /// One page's rows (positions moved by `positionOffset`): full batches through one
    /// statement, the rest through one statement of its size (a page of 50: one statement of 50,
    /// not 50 single-row inserts). Texts are bound without a copy (SQLite's static binding): the
    /// buffers outlive every step, and the statement is reset and unbound before they go.
    static func write(_ items: EntryRows, positionOffset: Int, list: Int64, _ db: Database) throws {
        try items.bytes.withUnsafeBufferPointer { texts in
            var start = 0
            let rows = items.rows
            if rows.count >= batchSize {
                let batch = ItemInsert(statement: try db.cachedStatement(sql: sqlFor[batchSize]), db: db)
                while rows.count - start >= batchSize {
                    try batch.run(rows[start..<(start + batchSize)], texts: texts, positionOffset: positionOffset, list: list)
                    start += batchSize
                }
            }
            guard start < rows.count else { return }
            let rest = ItemInsert(statement: try db.cachedStatement(sql: sqlFor[rows.count - start]), db: db)
            try rest.run(rows[start...], texts: texts, positionOffset: positionOffset, list: list)
        }
    }

    private func run(_ rows: ArraySlice<EntryRows.Row>, texts: UnsafeBufferPointer<UInt8>, positionOffset: Int, list: Int64) throws {
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        // Reset and unbound whatever happens: the text pointers belong to the caller.
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
        }
        func bind(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) throws {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return try check(sqlite3_bind_text(raw, index, "", 0, SQLiteText.transient)) }
            try check(sqlite3_bind_text(raw, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil))
        }
        func bind(_ index: Int32, _ text: EntryRows.Text) throws {
            guard !text.isNull else { return try check(sqlite3_bind_null(raw, index)) }
            try bind(index, UnsafeBufferPointer(rebasing: texts[text.start..<(text.start + text.count)]))
        }
        /// A negative number is unknown: NULL.
        func bind(_ index: Int32, number: Int32) throws {
            try check(number < 0 ? sqlite3_bind_null(raw, index) : sqlite3_bind_int64(raw, index, Int64(number)))
        }
        var column: Int32 = 0
        for row in rows {
            let position = row.position + positionOffset
            guard let key = ItemKey.key(list: list, position: position) else { throw CacheError.positionOutOfRange(position) }
            try check(sqlite3_bind_int64(raw, column + 1, key))
            let kind = Self.kindText(row.kind)
            try bind(column + 2, UnsafeBufferPointer(start: kind.utf8Start, count: kind.utf8CodeUnitCount))
            try bind(column + 3, row.id)
            try bind(column + 4, row.uri)
            try bind(column + 5, row.name)
            try bind(column + 6, row.artists)
            try bind(column + 7, row.album)
            try check(sqlite3_bind_int64(raw, column + 8, Int64(row.durationMS)))
            try bind(column + 9, row.addedAt)
            try bind(column + 10, row.albumID)
            try bind(column + 11, row.releaseDate)
            try bind(column + 12, row.artistIDs)
            try bind(column + 13, number: row.discNumber)
            try bind(column + 14, number: row.trackNumber)
            try bind(column + 15, number: Int32(row.explicit))
            try bind(column + 16, row.isrc)
            try bind(column + 17, row.addedBy)
            column += Self.columns
        }
        let step = sqlite3_step(raw)
        if step != SQLITE_DONE { try check(step) }
    }

    /// Static text: the binding may point at it.
    private static func kindText(_ kind: EntryKind) -> StaticString {
        switch kind {
        case .track: "track"
        case .local: "local"
        case .episode: "episode"
        }
    }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw SQLiteText.error(code, db, sql: Self.sqlFor[1])
    }
}

/// An item's key: its list number in the high bits, its position in the low 24 (migration v4).
/// A list's rows are the keys from `list << 24` up to the next list's first key.
enum ItemKey {
    static let positionBits: Int64 = 24
    /// Positions a list can hold: 16,777,216 (Spotify caps a playlist at 10,000 items).
    static let positions = 1 << Int(positionBits)

    /// SQL: `key` lies in the range of list `list` (both SQL expressions).
    static func range(_ key: String, ofList list: String) -> String {
        "\(key) >= (\(list) << \(positionBits)) AND \(key) < ((\(list) + 1) << \(positionBits))"
    }

    /// SQL: `FROM … WHERE … ORDER BY` for the rows of the playlist whose id is bound to `?`, in
    /// position order; SQLite reads them as one range of rowids.
    static let rowsOfPlaylist = """
        FROM item, (SELECT items_key << \(positionBits) AS low FROM playlist WHERE id = ?) AS list
        WHERE key >= list.low AND key < list.low + \(positions) ORDER BY key
        """

    /// Nil for a position the low bits cannot hold.
    static func key(list: Int64, position: Int) -> Int64? {
        guard (0..<positions).contains(position) else { return nil }
        return list << positionBits | Int64(position)
    }

    /// The first position of `items` that no key can hold, if any: checked before a list is handed
    /// to the batched writer, where a refused row would fail the whole batch.
    static func firstUnkeyable(_ items: EntryList) -> Int? {
        for chunk in items.chunks {
            for row in chunk.rows.rows where key(list: 0, position: row.position + chunk.positionOffset) == nil {
                return row.position + chunk.positionOffset
            }
        }
        return nil
    }
}
