import Foundation
import GRDB
import TimbreCore

/// `timbre restore`'s journal, in the user data (table `restore_playlist`): git rebase's
/// discipline for a restore. Before a playlist is created its intent is written (`creating`, with
/// the ids the account's playlists of that name had then); once Spotify names the new playlist it
/// is `created` with that id; every add that Spotify confirmed moves `added` on; `filled` when all
/// its entries are in. Keyed by account and the playlist's id in the backup, so a restore run
/// again — after a kill, or a second time — finds what an earlier one made instead of making it again.
public final class RestoreJournal: Sendable {
    public struct Row: Sendable, Equatable {
        public enum State: String, Sendable {
            /// The create may have been sent; its answer was not recorded.
            case creating
            /// The playlist exists (`target`); `added` of its entries are in.
            case created
            /// Every entry is in.
            case filled
        }

        public var source: String
        public var name: String
        public var state: State
        /// The account's playlists of the same name when the create was about to be sent.
        public var existing: [String]
        public var target: String?
        public var added: Int
    }

    private let queue: DatabaseQueue
    public let path: String

    public init(_ data: UserData) {
        path = data.path
        queue = data.queue
    }

    /// Every row of `account`, by backed-up playlist id.
    public func rows(account: String) throws -> [String: Row] {
        try wrap {
            try queue.read { db in
                let rows = try GRDB.Row.fetchAll(
                    db, sql: "SELECT source, name, state, existing, target, added FROM restore_playlist WHERE account = ?", arguments: [account])
                var result: [String: Row] = [:]
                for row in rows {
                    let existing: String = row["existing"]
                    let state = Row.State(rawValue: row["state"]) ?? .creating
                    result[row["source"]] = Row(
                        source: row["source"], name: row["name"], state: state,
                        existing: existing.split(separator: ",").map(String.init), target: row["target"], added: row["added"])
                }
                return result
            }
        }
    }

    /// The intent, written before the create is sent.
    public func creating(account: String, source: String, name: String, existing: [String]) throws {
        try write(
            """
            INSERT INTO restore_playlist (account, source, name, state, existing, target, added, at) VALUES (?, ?, ?, 'creating', ?, NULL, 0, ?)
            ON CONFLICT (account, source) DO UPDATE SET state = 'creating', existing = excluded.existing, target = NULL, added = 0, at = excluded.at
            """, [account, source, name, existing.joined(separator: ","), Self.now()])
    }

    /// Spotify named the new playlist (or it was found after a lost answer).
    public func created(account: String, source: String, target: String, added: Int = 0) throws {
        try write(
            "UPDATE restore_playlist SET state = 'created', target = ?, added = ?, at = ? WHERE account = ? AND source = ?",
            [target, added, Self.now(), account, source])
    }

    /// `added` entries are in the new playlist (Spotify confirmed them, or the live count says so).
    public func added(account: String, source: String, count: Int) throws {
        try write("UPDATE restore_playlist SET added = ?, at = ? WHERE account = ? AND source = ?", [count, Self.now(), account, source])
    }

    public func filled(account: String, source: String) throws {
        try write("UPDATE restore_playlist SET state = 'filled', at = ? WHERE account = ? AND source = ?", [Self.now(), account, source])
    }

    /// A create Spotify refused for good: nothing was made, the next restore tries again.
    public func forget(account: String, source: String) throws {
        try write("DELETE FROM restore_playlist WHERE account = ? AND source = ? AND state = 'creating'", [account, source])
    }

    private func write(_ sql: String, _ arguments: StatementArguments) throws {
        try wrap { try queue.write { db in try db.execute(sql: sql, arguments: arguments) } }
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw CacheError.database("the restore journal in \(path): \(error)") }
    }

    private static func now() -> String { ClockText.iso(Date()) }
}

extension UserData {
    public var restoreJournal: RestoreJournal { RestoreJournal(self) }
}
