import Foundation
import GRDB
import TimbreCore

/// The versions of each playlist timbre has seen, in the user's data (`timbre.sqlite`, not the
/// disposable cache): a view on `UserData`'s queue like `journal` and `folders`. A version is
/// recorded when a sync or an edit leaves a playlist different from its last version; a playlist
/// that leaves the library keeps its versions and gets a deleted marker. Storage: `VersionCoding`.
public final class PlaylistVersions: Sendable {
    /// However old, this many versions of each playlist are kept.
    public static let minimumKept = 20
    /// `history_keep`'s default: a year.
    public static let defaultKeep: Duration = .seconds(365 * 86_400)

    public let path: String
    let queue: DatabaseQueue

    public init(_ data: UserData) {
        path = data.path
        queue = data.queue
    }

    // MARK: Reading

    /// Newest first.
    public func versions(of playlist: String) throws -> [PlaylistVersion] {
        try read { db in
            try Row.fetchAll(db, sql: Self.versionSelect + " WHERE playlist = ? ORDER BY version DESC", arguments: [playlist]).map(Self.version)
        }
    }

    public func latest(of playlist: String) throws -> PlaylistVersion? {
        try read { db in try Self.latest(playlist, db) }
    }

    /// Version `number` (nil when the playlist has none by that number).
    public func version(_ number: Int, of playlist: String) throws -> PlaylistVersion? {
        try read { db in
            try Row.fetchOne(db, sql: Self.versionSelect + " WHERE playlist = ? AND version = ?", arguments: [playlist, number]).map(Self.version)
        }
    }

    /// Version `number`'s details and entries, or `UnknownVersion` (exit 2).
    public func state(_ number: Int, of playlist: String) throws -> (version: PlaylistVersion, entries: [VersionEntry]) {
        let found: (PlaylistVersion, [VersionEntry])? = try read { db in
            guard let row = try Row.fetchOne(db, sql: Self.withEntries + " WHERE playlist = ? AND version = ?", arguments: [playlist, number]) else {
                return nil
            }
            return (Self.version(row), try Self.entries(row["entries"], db))
        }
        guard let found else {
            throw UnknownVersion(playlist: playlist, version: number, known: try versions(of: playlist).map(\.version))
        }
        return found
    }

    /// Whether any version of the playlist is kept.
    public func knows(_ playlist: String) throws -> Bool {
        try read { db in try Int.fetchOne(db, sql: "SELECT 1 FROM playlist_version WHERE playlist = ? LIMIT 1", arguments: [playlist]) != nil }
    }

    /// Playlists no longer in the library, most recently deleted first.
    public func deleted() throws -> [DeletedPlaylist] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT playlist, deleted_at FROM playlist_deleted ORDER BY deleted_at DESC, playlist").compactMap { row in
                let id: String = row["playlist"]
                guard let last = try Self.latest(id, db) else { return nil }
                return DeletedPlaylist(id: id, deletedAt: Self.date(row["deleted_at"]), last: last)
            }
        }
    }

    /// Deleted playlists whose id or last name matches `text` exactly (names: case-insensitive).
    public func deletedMatching(_ text: String) throws -> [DeletedPlaylist] {
        try deleted().filter { $0.id == text || $0.last.details.name.lowercased() == text.lowercased() }
    }

    // MARK: Recording

    /// Records `state` as the playlist's next version unless it equals the last one (entries in
    /// order and details; the snapshot alone does not count). Returns the new version, or nil.
    @discardableResult
    public func record(_ state: PlaylistState, source: PlaylistVersion.Source, edit: Int64? = nil) throws -> PlaylistVersion? {
        try write { db in try Self.record(state, source: source, edit: edit, db) }
    }

    /// `record` of several states in one transaction (one commit, as a sync records). Returns the
    /// versions made.
    @discardableResult
    public func record(_ states: [PlaylistState], source: PlaylistVersion.Source, edit: Int64? = nil) throws -> [PlaylistVersion] {
        try write { db in try states.compactMap { try Self.record($0, source: source, edit: edit, db) } }
    }

    /// Marks a playlist as gone from the library (its versions stay); nothing when it has none.
    public func markDeleted(_ playlist: String, at date: Date = Date()) throws {
        try write { db in
            guard let last = try Self.latest(playlist, db) else { return }
            try db.execute(
                sql: "INSERT OR REPLACE INTO playlist_deleted (playlist, deleted_at, last_version) VALUES (?, ?, ?)",
                arguments: [playlist, ClockText.sqlite(date), last.version])
        }
    }

    /// A playlist back in the library is no longer deleted.
    public func markPresent(_ playlists: [String]) throws {
        guard !playlists.isEmpty else { return }
        try write { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM playlist_deleted") ?? 0 > 0 else { return }
            for playlist in playlists { try db.execute(sql: "DELETE FROM playlist_deleted WHERE playlist = ?", arguments: [playlist]) }
        }
    }

    static func record(
        _ state: PlaylistState, source: PlaylistVersion.Source, edit: Int64?, step: PlaylistVersion.Step? = nil, _ db: Database
    ) throws -> PlaylistVersion? {
        // Compared as interned ids: the last version's texts are never read.
        let coded = try intern(state.entries, db)
        var counts = (added: 0, removed: 0, moved: 0)
        var renamed = false
        let latest = withEntries + " WHERE playlist = ? ORDER BY version DESC LIMIT 1"
        if let last = try Row.fetchOne(db, sql: latest, arguments: [state.playlist]) {
            let previous = version(last)
            guard let before = VersionCoding.decode(Array(last["entries"] as Data)) else { throw damaged }
            if before == coded, previous.details.sameContent(as: state.details) { return nil }
            let diff = VersionDiff.compare(before.map(\.uri), coded.map(\.uri))
            counts = (diff.added.count, diff.removed.count, diff.moved.count)
            renamed = previous.details.name != state.details.name
        }
        let number = (try Int.fetchOne(db, sql: "SELECT MAX(version) FROM playlist_version WHERE playlist = ?", arguments: [state.playlist]) ?? 0) + 1
        let blob = VersionCoding.encode(coded)
        let details = state.details
        try db.execute(
            sql: """
                INSERT INTO playlist_version (playlist, version, seen_at, source, edit, snapshot_id, name, description, public,
                    collaborative, entry_count, added, removed, moved, entries, step)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                state.playlist, number, ClockText.sqlite(state.seenAt), source.rawValue, edit, details.snapshotID, details.name,
                details.description, details.isPublic, details.collaborative, state.entries.count, counts.added, counts.removed,
                counts.moved, Data(blob), step?.rawValue,
            ])
        return PlaylistVersion(
            playlist: state.playlist, version: number, seenAt: state.seenAt, source: source, edit: edit, details: details,
            entryCount: state.entries.count, added: counts.added, removed: counts.removed, moved: counts.moved, renamed: renamed,
            step: step)
    }

    // MARK: Rows

    static let versionSelect = versionColumns + " FROM playlist_version"
    static let withEntries = versionColumns + ", entries FROM playlist_version"

    static let versionColumns = """
        SELECT playlist, version, seen_at, source, edit, snapshot_id, name, description, public, collaborative, entry_count,
            added, removed, moved, step,
            (SELECT p.name FROM playlist_version p WHERE p.playlist = playlist_version.playlist AND p.version < playlist_version.version
             ORDER BY p.version DESC LIMIT 1) AS previous_name
        """

    static func latest(_ playlist: String, _ db: Database) throws -> PlaylistVersion? {
        try Row.fetchOne(db, sql: versionSelect + " WHERE playlist = ? ORDER BY version DESC LIMIT 1", arguments: [playlist]).map(version)
    }

    static func version(_ row: Row) -> PlaylistVersion {
        let name: String = row["name"]
        let previousName: String? = row["previous_name"]
        return PlaylistVersion(
            playlist: row["playlist"], version: row["version"], seenAt: date(row["seen_at"]),
            source: PlaylistVersion.Source(rawValue: row["source"] as String) ?? .sync, edit: row["edit"],
            details: PlaylistDetailsState(
                name: name, description: row["description"], isPublic: row["public"], collaborative: row["collaborative"],
                snapshotID: row["snapshot_id"]),
            entryCount: row["entry_count"], added: row["added"], removed: row["removed"], moved: row["moved"],
            renamed: previousName.map { $0 != name } ?? false, step: (row["step"] as String?).flatMap(PlaylistVersion.Step.init))
    }

    static func date(_ text: String) -> Date { ClockText.parseSQLite(text) ?? Date(timeIntervalSince1970: 0) }

    // MARK: Interned text

    /// The ids of the entries' texts, adding the ones not yet known (looked up 500 at a time).
    static func intern(_ entries: [VersionEntry], _ db: Database) throws -> [VersionCoding.Coded] {
        var texts = Set<String>()
        let seconds = entries.map { $0.addedAt.flatMap(VersionCoding.seconds) }
        for (entry, seconds) in zip(entries, seconds) {
            texts.insert(entry.uri)
            if let user = entry.addedBy { texts.insert(user) }
            if let date = entry.addedAt, seconds == nil { texts.insert(date) }
        }
        var known: [String: Int64] = [:]
        known.reserveCapacity(texts.count)
        let all = Array(texts)
        for start in stride(from: 0, to: all.count, by: 500) {
            let chunk = Array(all[start..<min(all.count, start + 500)])
            let sql = "SELECT id, text FROM history_text WHERE text IN (" + repeatElement("?", count: chunk.count).joined(separator: ",") + ")"
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk)) { known[row["text"]] = row["id"] }
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO history_text (text) VALUES (?)")
        for text in all where known[text] == nil {
            try insert.execute(arguments: [text])
            known[text] = db.lastInsertedRowID
        }
        return zip(entries, seconds).map { entry, seconds in
            let date: VersionCoding.DateField
            if let seconds {
                date = .seconds(seconds)
            } else if let text = entry.addedAt {
                date = .text(known[text] ?? 0)
            } else {
                date = .none
            }
            return VersionCoding.Coded(uri: known[entry.uri] ?? 0, user: entry.addedBy.flatMap { known[$0] } ?? 0, date: date)
        }
    }

    static let damaged = CacheError.database("a playlist version in the user data is damaged (unreadable entries)")

    /// A blob's entries with their texts.
    static func entries(_ blob: Data, _ db: Database) throws -> [VersionEntry] {
        guard let coded = VersionCoding.decode(Array(blob)) else { throw damaged }
        let select = try db.cachedStatement(sql: "SELECT text FROM history_text WHERE id = ?")
        var known: [Int64: String] = [:]
        func text(_ id: Int64) throws -> String {
            if let text = known[id] { return text }
            guard let text = try String.fetchOne(select, arguments: [id]) else {
                throw CacheError.database("a playlist version in the user data refers to text \(id), which is missing")
            }
            known[id] = text
            return text
        }
        return try coded.map { entry in
            let addedAt: String?
            switch entry.date {
            case .none: addedAt = nil
            case .seconds(let seconds): addedAt = VersionCoding.text(seconds)
            case .text(let id): addedAt = try text(id)
            }
            return VersionEntry(uri: try text(entry.uri), addedAt: addedAt, addedBy: entry.user == 0 ? nil : try text(entry.user))
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.write(body) } catch let error as CacheError { throw error } catch {
            throw CacheError.database("the playlist versions in \(path): \(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch let error as CacheError { throw error } catch {
            throw CacheError.database("the playlist versions in \(path): \(error)")
        }
    }
}
