import GRDB

/// Facts about the SQLite library GRDB runs on, for `timbre doctor`.
public enum SQLiteInfo {
    public static func version() throws -> String {
        try DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "unknown" }
    }
}
