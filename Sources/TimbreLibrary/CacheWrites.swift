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
                let rows = try Row.fetchAll(db, sql: """
                    SELECT p.id, p.snapshot_id, p.track_count, p.fingerprint, p.unavailable, p.sort_order,
                           (SELECT COUNT(*) FROM item i WHERE i.playlist_id = p.id) AS item_count
                    FROM playlist p
                    """)
                var result: [String: StoredState] = [:]
                for row in rows {
                    result[row["id"]] = StoredState(snapshotID: row["snapshot_id"], trackCount: row["track_count"], itemCount: row["item_count"],
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
                for (meta, sortOrder) in metas {
                    let order: Int
                    if let sortOrder {
                        order = sortOrder
                    } else if let existing = try Int.fetchOne(db, sql: "SELECT sort_order FROM playlist WHERE id = ?", arguments: [meta.id]) {
                        order = existing
                    } else {
                        order = next
                        next += 1
                    }
                    try db.execute(sql: """
                        INSERT INTO playlist (id, sort_order, name, owner_id, owner_name, snapshot_id, track_count, collaborative, is_public)
                        VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET sort_order = excluded.sort_order, name = excluded.name, owner_id = excluded.owner_id,
                            owner_name = excluded.owner_name, collaborative = excluded.collaborative, is_public = excluded.is_public
                        """, arguments: [meta.id, order, meta.name, meta.ownerID, meta.ownerName, meta.total, meta.collaborative, meta.isPublic])
                }
            }
        }
    }

    /// Replaces a playlist's items together with its snapshot, count and sync time: readers see the
    /// old complete list or the new one. Returns the number of items written.
    @discardableResult
    func replaceItems(of meta: PlaylistMeta, trackCount: Int, items: [CachedItem], fingerprint: String? = nil,
                      sortOrder: Int? = nil, at date: Date = Date()) async throws -> Int {
        try await CacheError.wrap {
            try await pool.write { db in
                let order = try sortOrder
                    ?? Int.fetchOne(db.cachedStatement(sql: "SELECT sort_order FROM playlist WHERE id = ?"), arguments: [meta.id])
                    ?? (Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(sort_order) FROM playlist WHERE id != 'liked'")) ?? -1) + 1
                try db.cachedStatement(sql: """
                    INSERT INTO playlist (id, sort_order, name, owner_id, owner_name, snapshot_id, track_count, collaborative, is_public,
                                          synced_at, unavailable, fingerprint)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                    ON CONFLICT(id) DO UPDATE SET sort_order = excluded.sort_order, name = excluded.name, owner_id = excluded.owner_id,
                        owner_name = excluded.owner_name, snapshot_id = excluded.snapshot_id, track_count = excluded.track_count,
                        collaborative = excluded.collaborative, is_public = excluded.is_public, synced_at = excluded.synced_at,
                        unavailable = 0, fingerprint = excluded.fingerprint
                    """).execute(arguments: [meta.id, order, meta.name, meta.ownerID, meta.ownerName, meta.snapshotID, trackCount,
                                             meta.collaborative, meta.isPublic, ClockText.sqlite(date), fingerprint])
                try db.cachedStatement(sql: "DELETE FROM item WHERE playlist_id = ?").execute(arguments: [meta.id])
                try ItemInsert.write(items, playlistID: meta.id, db)
                return items.count
            }
        }
    }

    /// Spotify refuses to show this playlist's items: keep whatever was stored, remember the snapshot
    /// so an unchanged playlist is not asked again.
    func markUnavailable(_ meta: PlaylistMeta) async throws {
        try await CacheError.wrap {
            try await pool.write { db in
                try db.execute(sql: "UPDATE playlist SET unavailable = 1, snapshot_id = ?, track_count = ? WHERE id = ?",
                               arguments: [meta.snapshotID, meta.total, meta.id])
            }
        }
    }

    func remove(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await CacheError.wrap {
            try await pool.write { db in
                for id in ids { try db.execute(sql: "DELETE FROM playlist WHERE id = ?", arguments: [id]) }
            }
        }
    }

    func recordRun(startedAt: Date, report: SyncReport) async throws {
        try await CacheError.wrap {
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO sync_run (started_at, finished_at, status, report) VALUES (?, ?, ?, ?)",
                               arguments: [ClockText.sqlite(startedAt), ClockText.sqlite(Date()), report.status.rawValue, report.json.serialized()])
            }
        }
    }
}

/// The item INSERT with its columns bound straight to SQLite: GRDB's argument arrays box every
/// value, and a full sync writes ~200,000 rows (that boxing was a tenth of its CPU time). Rows go
/// in 64 per statement: each execution of an INSERT opens and closes cursors, checks the
/// foreign key's parent and finishes the statement, and per row that was a third of the sync's CPU
/// time. Used only inside a GRDB write, on statements GRDB prepared and caches.
private struct ItemInsert {
    static let batchSize = 64
    private static let columns = 10
    private static func sql(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return "INSERT INTO item (playlist_id, position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }
    private static let batchSQL = sql(rows: batchSize)
    private static let singleSQL = sql(rows: 1)

    let statement: Statement
    let db: Database

    /// Full batches through one statement, the rest row by row.
    static func write(_ items: [CachedItem], playlistID: String, _ db: Database) throws {
        var start = items.startIndex
        if items.count >= batchSize {
            let batch = ItemInsert(statement: try db.cachedStatement(sql: batchSQL), db: db)
            while items.endIndex - start >= batchSize {
                try batch.run(playlistID: playlistID, items[start..<(start + batchSize)])
                start += batchSize
            }
        }
        guard start < items.endIndex else { return }
        let single = ItemInsert(statement: try db.cachedStatement(sql: singleSQL), db: db)
        for index in start..<items.endIndex {
            try single.run(playlistID: playlistID, items[index...index])
        }
    }

    /// Binds every text of the batch from one buffer (SQLite's static binding: no copy per value,
    /// the buffer outlives the step) and runs the statement once.
    private func run(playlistID: String, _ rows: ArraySlice<CachedItem>) throws {
        let raw = statement.sqliteStatement
        var arena: [UInt8] = []
        arena.reserveCapacity(rows.count * 192)
        // Per row: playlist id, kind, id, uri, name, artists, album, added at — (start, count), or
        // start -1 for NULL.
        var spans: [(start: Int, count: Int)] = []
        spans.reserveCapacity(rows.count * 8)
        func add(_ text: String?) {
            guard let text else { return spans.append((-1, 0)) }
            let start = arena.count
            arena.append(contentsOf: text.utf8)
            spans.append((start, arena.count - start))
        }
        for item in rows {
            add(playlistID)
            add(item.kind.rawValue)
            add(item.id)
            add(item.uri)
            add(item.name)
            add(JSONValue.array(item.artists.map(JSONValue.string)).serialized())
            add(item.album)
            add(item.addedAt)
        }
        sqlite3_reset(raw)
        try arena.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            func bind(_ index: Int32, _ span: (start: Int, count: Int)) -> Int32 {
                guard span.start >= 0 else { return sqlite3_bind_null(raw, index) }
                guard let base, span.count > 0 else { return sqlite3_bind_text(raw, index, "", 0, SQLiteText.transient) }
                return sqlite3_bind_text(raw, index, base + span.start, Int32(span.count), nil)
            }
            // Reset and unbound whatever happens: the text pointers die with the buffer.
            defer {
                sqlite3_reset(raw)
                sqlite3_clear_bindings(raw)
            }
            var column: Int32 = 0
            var span = 0
            for item in rows {
                for (offset, textColumn) in Self.textColumns.enumerated() {
                    try check(bind(column + textColumn, spans[span + offset]))
                }
                try check(sqlite3_bind_int64(raw, column + 2, Int64(item.position)))
                try check(sqlite3_bind_int64(raw, column + 9, Int64(item.durationMS)))
                column += Int32(Self.columns)
                span += Self.textColumns.count
            }
            let step = sqlite3_step(raw)
            if step != SQLITE_DONE { try check(step) }
        }
    }

    /// The 1-based columns that take text, in the order `run` lays them out.
    private static let textColumns: [Int32] = [1, 3, 4, 5, 6, 7, 8, 10]

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw SQLiteText.error(code, db, sql: Self.singleSQL)
    }
}
