import Foundation
import GRDB
import TimbreCore

/// Pages a sync read of a list it did not finish (stopped by the daily quota, `--max-requests`,
/// a lost network): kept in `partial_page` (migration v8) as Spotify sent them, so the next sync
/// reads only the rest of a list whose version has not changed. They are never shown: the list's
/// entries in the cache stay what they were (none, for a list never read) until it is read whole.
struct PartialList: Sendable, Equatable {
    /// The list's version the pages belong to: a playlist's snapshot id, Liked Songs' fingerprint.
    var version: String
    /// The page size they were read with (the offsets are multiples of it).
    var limit: Int
    /// Response bodies by offset.
    var bodies: [Int: Data] = [:]
}

/// Where a reader puts the body of each page it reads, and the page size, so that a read that
/// stops part-way can keep what it has.
final class PageSink: Sendable {
    private let state = Locked<(limit: Int, bodies: [Int: Data])>((0, [:]))

    func begin(limit: Int) { state.withLock { $0.limit = limit } }
    func put(_ body: Data, at offset: Int) { state.withLock { $0.bodies[offset] = body } }
    var current: (limit: Int, bodies: [Int: Data]) { state.current }
}

extension LibraryCache {
    /// Each list with kept pages: their version and page size (no bodies).
    func partialVersions() async throws -> [String: PartialList] {
        try await CacheError.wrap {
            try await pool.read { db in
                var result: [String: PartialList] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT DISTINCT list_id, version, page_limit FROM partial_page") {
                    // Rows of one list always share a version and a size (`keepPartialPages`).
                    result[row["list_id"]] = PartialList(version: row["version"], limit: row["page_limit"])
                }
                return result
            }
        }
    }

    /// The kept bodies of `list` at `version` and page size `limit`, by offset.
    func partialPages(of list: String, version: String, limit: Int) async throws -> [Int: Data] {
        try await CacheError.wrap {
            try await pool.read { db in
                var result: [Int: Data] = [:]
                let rows = try Row.fetchAll(
                    db, sql: "SELECT page_offset, body FROM partial_page WHERE list_id = ? AND version = ? AND page_limit = ?",
                    arguments: [list, version, limit])
                for row in rows { result[row["page_offset"]] = row["body"] }
                return result
            }
        }
    }

    /// Adds the pages read of each list to those kept; pages kept of another version or page
    /// size of that list are dropped first. One transaction.
    func keepPartialPages(_ lists: [String: PartialList]) async throws {
        let lists = lists.filter { !$0.value.bodies.isEmpty }
        guard !lists.isEmpty else { return }
        try await CacheError.wrap {
            try await pool.write { db in
                let drop = try db.cachedStatement(sql: "DELETE FROM partial_page WHERE list_id = ? AND (version != ? OR page_limit != ?)")
                let insert = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO partial_page (list_id, version, page_limit, page_offset, body) VALUES (?, ?, ?, ?, ?)")
                for (id, list) in lists {
                    try drop.execute(arguments: [id, list.version, list.limit])
                    for (offset, body) in list.bodies { try insert.execute(arguments: [id, list.version, list.limit, offset, body]) }
                }
            }
        }
    }

    /// Entries read so far of a list not yet stored whole (0 when none are kept), for what
    /// `tracks` and the interface say about it.
    public func partialEntryCount(of ref: PlaylistRef) throws -> Int {
        try CacheError.wrap {
            try pool.read { db in
                let bodies = try Data.fetchAll(db, sql: "SELECT body FROM partial_page WHERE list_id = ?", arguments: [Self.key(ref)])
                return bodies.reduce(0) { $0 + ((try? EntryPage.decode($1).entries) ?? 0) }
            }
        }
    }

    /// Inside a write: `list` is stored whole (or gone), its kept pages are of no more use.
    static func dropPartialPages(of list: String, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM partial_page WHERE list_id = ?").execute(arguments: [list])
    }
}
