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
                    ?? Int.fetchOne(db, sql: "SELECT sort_order FROM playlist WHERE id = ?", arguments: [meta.id])
                    ?? (Int.fetchOne(db, sql: "SELECT MAX(sort_order) FROM playlist WHERE id != 'liked'") ?? -1) + 1
                try db.execute(sql: """
                    INSERT INTO playlist (id, sort_order, name, owner_id, owner_name, snapshot_id, track_count, collaborative, is_public,
                                          synced_at, unavailable, fingerprint)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                    ON CONFLICT(id) DO UPDATE SET sort_order = excluded.sort_order, name = excluded.name, owner_id = excluded.owner_id,
                        owner_name = excluded.owner_name, snapshot_id = excluded.snapshot_id, track_count = excluded.track_count,
                        collaborative = excluded.collaborative, is_public = excluded.is_public, synced_at = excluded.synced_at,
                        unavailable = 0, fingerprint = excluded.fingerprint
                    """, arguments: [meta.id, order, meta.name, meta.ownerID, meta.ownerName, meta.snapshotID, trackCount,
                                     meta.collaborative, meta.isPublic, date, fingerprint])
                try db.execute(sql: "DELETE FROM item WHERE playlist_id = ?", arguments: [meta.id])
                let insert = ItemInsert(try db.cachedStatement(sql: """
                    INSERT INTO item (playlist_id, position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """), db)
                for item in items { try insert.run(playlistID: meta.id, item) }
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
                               arguments: [startedAt, Date(), report.status.rawValue, report.json.serialized()])
            }
        }
    }
}

/// The item INSERT with its columns bound straight to SQLite: GRDB's argument arrays box every
/// value, and a full sync writes ~200,000 rows (that boxing was a tenth of its CPU time). Used only
/// inside a GRDB write, on a statement GRDB prepared and caches.
private struct ItemInsert {
    let statement: Statement
    let db: Database

    init(_ statement: Statement, _ db: Database) {
        self.statement = statement
        self.db = db
    }

    func run(playlistID: String, _ item: CachedItem) throws {
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        try check(bind(1, playlistID))
        try check(sqlite3_bind_int64(raw, 2, Int64(item.position)))
        try check(bind(3, item.kind.rawValue))
        try check(bind(4, item.id))
        try check(bind(5, item.uri))
        try check(bind(6, item.name))
        try check(bind(7, JSONValue.array(item.artists.map(JSONValue.string)).serialized()))
        try check(bind(8, item.album))
        try check(sqlite3_bind_int64(raw, 9, Int64(item.durationMS)))
        try check(bind(10, item.addedAt))
        let step = sqlite3_step(raw)
        defer { sqlite3_reset(raw) }
        if step != SQLITE_DONE { try check(step) }
    }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw SQLiteText.error(code, db, sql: statement.sql)
    }

    private func bind(_ index: Int32, _ text: String?) -> Int32 {
        guard var text else { return sqlite3_bind_null(statement.sqliteStatement, index) }
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress, !chars.isEmpty else {
                    return sqlite3_bind_text(statement.sqliteStatement, index, "", 0, SQLiteText.transient)
                }
                return sqlite3_bind_text(statement.sqliteStatement, index, base, Int32(chars.count), SQLiteText.transient)
            }
        }
    }
}
