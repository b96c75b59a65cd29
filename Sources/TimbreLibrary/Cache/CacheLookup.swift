import Foundation
import GRDB
import GRDBSQLite
import TimbreCore

/// Tracks found anywhere in the cache: what an edit's derived cache gives an entry it adds.
extension LibraryCache {
    /// One cached row for each of `uris` found in any list (playlists or Liked Songs), keyed by URI.
    /// The item table has no index on URIs: one pass over the rows per 500 URIs asked.
    func anyEntries(uris: Set<String>) throws -> [String: CachedEntry] {
        guard !uris.isEmpty else { return [:] }
        let wanted = Array(uris)
        var found: [String: CachedEntry] = [:]
        try CacheError.wrap {
            try pool.read { db in
                for start in stride(from: 0, to: wanted.count, by: 500) {
                    let chunk = Array(wanted[start..<min(start + 500, wanted.count)])
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    let statement = try db.makeStatement(sql: Self.itemColumns + "FROM item WHERE uri IN (\(marks))")
                    try statement.setArguments(StatementArguments(chunk))
                    let raw = statement.sqliteStatement
                    while true {
                        let step = sqlite3_step(raw)
                        if step == SQLITE_DONE { break }
                        guard step == SQLITE_ROW else { throw SQLiteText.error(step, db, sql: statement.sql) }
                        let entry = Self.item(raw)
                        if found[entry.uri] == nil { found[entry.uri] = entry }
                    }
                }
            }
        }
        return found
    }
}
