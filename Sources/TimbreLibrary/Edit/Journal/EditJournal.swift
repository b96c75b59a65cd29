import Foundation
import GRDB
import TimbreCore

/// The edit journal, in the user-data database (never the cache: it is not re-fetchable). Every
/// edit is written here — what was asked, and the list it was planned on — before its first
/// request, and the number of writes Spotify confirmed after each one. From that the plan and its
/// inverse can be made again at any time: an interrupted edit is finished, an edit is undone and
/// redone. The newest `keep` entries are kept.
public final class EditJournal: Sendable {
    public static let keep = 200

    /// One edit.
    public struct Entry: Sendable, Equatable {
        public enum State: String, Sendable, Codable {
            /// Being applied (or undone, or redone) — `interrupted` once the process that ran it is gone.
            case running
            case done
            case undone
            /// Ended without being finished: Spotify refused it (`reason` has its words and what
            /// was applied), the playlist changed in a way the edit cannot account for, or the user
            /// abandoned it. Never resent.
            case failed
        }

        /// Which way an edit in flight is going.
        public enum Direction: String, Sendable, Codable {
            case forward
            case backward
        }

        public var id: Int64
        public var at: Date
        public var op: LibraryChange.Operation
        /// What it edited: a playlist, Liked Songs, or nil for a creation Spotify has not answered
        /// (stored as the id, `liked` or empty).
        public var playlist: PlaylistRef?
        public var summary: String
        public var state: State
        /// Set while running: which way, and how many writes Spotify confirmed.
        public var direction: Direction?
        public var step: Int
        public var change: Change
        /// False once a newer edit was made after this one was undone.
        public var redoable: Bool
        /// Why a `failed` edit ended (nil for the others, and for edits of older versions).
        public var reason: String? = nil
        /// A running edit's newest write that Spotify has not confirmed: when it was sent, and the
        /// transport's deadline for it. Until `sentAt + sentDeadline` the server may still apply it.
        public var sentAt: Date? = nil
        public var sentDeadline: Duration? = nil
        /// What the user was told when a write of this edit failed in front of them (nil: not
        /// told — the process stopped). The next command reconciles such an edit and reports; it
        /// never sends again a write that did not reach Spotify.
        public var told: String? = nil

        /// Until when a write the edit's process sent may still land (nil: none is in flight).
        public var inFlightUntil: Date? {
            guard let sentAt, let sentDeadline else { return nil }
            return sentAt.addingTimeInterval(Double(sentDeadline.components.seconds) + Double(sentDeadline.components.attoseconds) / 1e18)
        }
    }

    /// What an edit changed, by kind.
    public enum Change: Sendable, Equatable {
        /// A playlist's entries: the edit, and the entries (URIs, position by position) it was planned on.
        case entries(EntryEdit, before: [String])
        /// The library: Liked Songs, followed playlists (and a created playlist, followed by creating it).
        case library(LibraryEdit)
        /// A playlist's name, description, visibility, collaboration.
        case details(DetailsEdit)

        var kind: String {
            switch self {
            case .entries: return "entries"
            case .library: return "library"
            case .details: return "details"
            }
        }
    }

    public let path: String
    private let queue: DatabaseQueue

    /// The journal in `data`, on its queue.
    public init(_ data: UserData) {
        path = data.path
        queue = data.queue
    }

    // MARK: Writing

    /// Records a new edit about to be applied; a new edit ends every undone edit's chance of a redo.
    public func begin(op: LibraryChange.Operation, playlist: PlaylistRef?, summary: String, change: Change, at date: Date = Date()) throws -> Int64 {
        let editJSON: String, beforeJSON: String
        switch change {
        case .entries(let edit, let before): (editJSON, beforeJSON) = (try Self.encode(edit), try Self.encode(before))
        case .library(let edit): (editJSON, beforeJSON) = (try Self.encode(edit), "[]")
        case .details(let edit): (editJSON, beforeJSON) = (try Self.encode(edit), "[]")
        }
        return try write { db in
            try db.execute(sql: "UPDATE edit SET redoable = 0 WHERE state = 'undone'")
            try db.execute(
                sql: """
                    INSERT INTO edit (at, op, playlist, summary, state, direction, step, kind, edit, before) VALUES (?, ?, ?, ?, 'running', 'forward', 0, ?, ?, ?)
                    """, arguments: [ClockText.sqlite(date), op.rawValue, playlist?.description ?? "", summary, change.kind, editJSON, beforeJSON])
            let id = db.lastInsertedRowID
            try db.execute(
                sql: """
                    DELETE FROM edit WHERE state != 'running' AND id NOT IN (SELECT id FROM edit ORDER BY id DESC LIMIT ?)
                    """, arguments: [Self.keep])
            return id
        }
    }

    /// Starts undoing (`backward`) or redoing (`forward`) a finished edit.
    public func start(_ id: Int64, _ direction: Entry.Direction) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE edit SET state = 'running', direction = ?, step = 0, sent_at = NULL, told = NULL WHERE id = ?",
                arguments: [direction.rawValue, id])
        }
    }

    /// Spotify confirmed `step` writes of the plan in flight (nothing of it is in flight now).
    public func confirm(_ id: Int64, step: Int) throws {
        try write { db in try db.execute(sql: "UPDATE edit SET step = ?, sent_at = NULL WHERE id = ?", arguments: [step, id]) }
    }

    /// A write of the edit is about to go out, at `date`, with the transport's `deadline`:
    /// recorded before the request leaves, so that a process finishing the edit after a crash
    /// knows how long that write may still land.
    public func sending(_ id: Int64, at date: Date, deadline: Duration) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE edit SET sent_at = ?, sent_deadline_ms = ? WHERE id = ?",
                arguments: [ClockText.sqlite(date), Int(deadline.components.seconds) * 1000 + Int(deadline.components.attoseconds / 1_000_000_000_000_000), id])
        }
    }

    /// A write of the running edit failed in front of the user, who was told `message`; the edit
    /// stays running (its outcome could not be settled), marked so. `answered`: the server
    /// answered the last write (a 5xx), so nothing of it is in flight any more.
    public func tell(_ id: Int64, _ message: String, answered: Bool = true) throws {
        try write { db in
            try db.execute(sql: "UPDATE edit SET told = ? WHERE id = ?", arguments: [message, id])
            if answered { try db.execute(sql: "UPDATE edit SET sent_at = NULL WHERE id = ?", arguments: [id]) }
        }
    }

    /// What an edit in flight turned out to be (a created playlist's id, known once Spotify answered;
    /// the moves a stopped order change made, with `summary` saying so).
    public func update(_ id: Int64, change: Change, playlist: PlaylistRef, summary: String? = nil) throws {
        let json: String
        switch change {
        case .entries(let edit, _): json = try Self.encode(edit)
        case .library(let edit): json = try Self.encode(edit)
        case .details(let edit): json = try Self.encode(edit)
        }
        try write { db in
            try db.execute(sql: "UPDATE edit SET edit = ?, playlist = ? WHERE id = ?", arguments: [json, playlist.description, id])
            if let summary { try db.execute(sql: "UPDATE edit SET summary = ? WHERE id = ?", arguments: [summary, id]) }
        }
    }

    /// `reason`: why a `failed` edit ended, shown by `timbre history`.
    public func finish(_ id: Int64, _ state: Entry.State, reason: String? = nil) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE edit SET state = ?, direction = NULL, step = 0, reason = ?, sent_at = NULL, told = NULL WHERE id = ?",
                arguments: [state.rawValue, reason, id])
        }
    }

    // MARK: Reading

    /// Newest first.
    public func history(limit: Int = keep) throws -> [Entry] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM edit ORDER BY id DESC LIMIT ?", arguments: [limit]).map(Self.entry) }
    }

    public func entry(_ id: Int64) throws -> Entry? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM edit WHERE id = ?", arguments: [id]).map(Self.entry) }
    }

    /// Edits whose process stopped before they were finished.
    public func running() throws -> [Entry] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM edit WHERE state = 'running' ORDER BY id").map(Self.entry) }
    }

    /// What `undo` undoes: the newest finished edit.
    public func lastDone() throws -> Entry? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM edit WHERE state = 'done' ORDER BY id DESC LIMIT 1").map(Self.entry) }
    }

    /// What `redo` redoes: the oldest of the undone edits after the newest finished one.
    public func nextRedo() throws -> Entry? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM edit WHERE state = 'undone' AND redoable = 1
                      AND id > COALESCE((SELECT MAX(id) FROM edit WHERE state = 'done'), 0)
                    ORDER BY id ASC LIMIT 1
                    """
            ).map(Self.entry)
        }
    }

    // MARK: Rows

    private static func entry(_ row: Row) throws -> Entry {
        let kind: String = row["kind"]
        let change: Change
        switch kind {
        case "library": change = .library(try decode(row["edit"]))
        case "details": change = .details(try decode(row["edit"]))
        default: change = .entries(try decode(row["edit"]), before: try decode(row["before"]))
        }
        let at: String = row["at"]
        let state: String = row["state"]
        let direction: String? = row["direction"]
        let playlist: String = row["playlist"]
        let sentAt: String? = row["sent_at"]
        let deadline: Int? = row["sent_deadline_ms"]
        return Entry(
            id: row["id"], at: ClockText.parseSQLite(at) ?? Date(timeIntervalSince1970: 0), op: Self.operation(row["op"]),
            playlist: PlaylistRef(stored: playlist),
            summary: row["summary"], state: Entry.State(rawValue: state) ?? .failed, direction: direction.flatMap(Entry.Direction.init),
            step: row["step"], change: change, redoable: (row["redoable"] as Int) != 0, reason: row["reason"],
            sentAt: sentAt.flatMap(ClockText.parseSQLite), sentDeadline: deadline.map { .milliseconds($0) }, told: row["told"])
    }

    /// A stored operation's name: every one timbre has written is a `LibraryChange.Operation`;
    /// anything else (a newer timbre's, say) is shown as an edit, its summary saying which.
    private static func operation(_ name: String) -> LibraryChange.Operation {
        LibraryChange.Operation(rawValue: name) ?? .edit
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    private static func decode<T: Decodable>(_ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.write(body) } catch { throw CacheError.database("the edit journal at \(path): \(error)") }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch { throw CacheError.database("the edit journal at \(path): \(error)") }
    }
}
