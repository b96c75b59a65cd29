import Foundation
import GRDB
import TimbreCore

extension PlaylistVersions {
    /// Removes the versions seen before `cutoff`, keeping each playlist's newest `minimum` whatever
    /// their age. `collectTexts`: also drops the interned URIs and users no kept version uses
    /// (reads every version; `timbre history --prune` does it, the prune after each sync does not).
    @discardableResult
    public func prune(before cutoff: Date, minimum: Int = PlaylistVersions.minimumKept, collectTexts: Bool = false) throws -> VersionPruneReport {
        try write { db in
            var report = VersionPruneReport()
            let condition = """
                seen_at < ? AND version NOT IN (
                    SELECT p.version FROM playlist_version p WHERE p.playlist = playlist_version.playlist ORDER BY p.version DESC LIMIT ?)
                """
            let arguments: StatementArguments = [ClockText.sqlite(cutoff), max(1, minimum)]
            if let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*) AS n, COUNT(DISTINCT playlist) AS p FROM playlist_version WHERE " + condition, arguments: arguments)
            {
                report.versions = row["n"]
                report.playlists = row["p"]
            }
            if report.versions > 0 { try db.execute(sql: "DELETE FROM playlist_version WHERE " + condition, arguments: arguments) }
            if collectTexts { report.texts = try Self.collectTexts(db) }
            return report
        }
    }

    /// The cutoff of a retention of `keep` from `now`.
    public static func cutoff(keep: Duration, now: Date = Date()) -> Date {
        now.addingTimeInterval(-Double(keep.components.seconds))
    }

    /// Drops interned texts no version refers to; returns how many.
    static func collectTexts(_ db: Database) throws -> Int {
        var used = Set<Int64>()
        let rows = try Row.fetchCursor(db, sql: "SELECT entries FROM playlist_version")
        while let row = try rows.next() {
            let blob: Data = row["entries"]
            guard let coded = VersionCoding.decode(Array(blob)) else {
                throw CacheError.database("a playlist version in the user data is damaged (unreadable entries); nothing was collected")
            }
            for entry in coded {
                used.insert(entry.uri)
                if entry.user != 0 { used.insert(entry.user) }
                if case .text(let id) = entry.date { used.insert(id) }
            }
        }
        let unused = try Int64.fetchAll(db, sql: "SELECT id FROM history_text").filter { !used.contains($0) }
        let delete = try db.cachedStatement(sql: "DELETE FROM history_text WHERE id = ?")
        for id in unused { try delete.execute(arguments: [id]) }
        return unused.count
    }

    /// Bytes the versions' rows take in the file (`dbstat` when SQLite has it, else nil).
    public func storedBytes() throws -> Int? {
        try read { db in
            try? Int.fetchOne(
                db,
                sql: """
                    SELECT SUM(pgsize) FROM dbstat WHERE name IN ('history_text', 'playlist_version', 'playlist_deleted')
                        OR name LIKE 'sqlite_autoindex_history_text%' OR name LIKE 'sqlite_autoindex_playlist_version%'
                        OR name LIKE 'sqlite_autoindex_playlist_deleted%'
                    """)
        }
    }
}
