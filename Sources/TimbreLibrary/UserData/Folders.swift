import Foundation
import GRDB
import TimbreCore

/// Timor's local folders of playlists, in the user-data database: a name, an order, expanded or
/// not, and the playlists in each (one folder per playlist). Spotify's API has no folders.
public final class Folders: Sendable {
    public struct Folder: Sendable, Equatable {
        public var name: String
        public var expanded: Bool
        /// Playlist ids, in order.
        public var playlists: [String]
    }

    public struct Problem: UserFacingError, Equatable {
        public var message: String
        public var hint: String?
        public var exitStatus: ExitStatus { .usage }
    }

    private let queue: DatabaseQueue
    public let path: String

    /// The folders in `data`, on its queue.
    public init(_ data: UserData) {
        path = data.path
        queue = data.queue
    }

    public func list() throws -> [Folder] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, expanded FROM folder ORDER BY position").map { row in
                let id: Int64 = row["id"]
                let playlists = try String.fetchAll(db, sql: "SELECT playlist FROM folder_playlist WHERE folder = ? ORDER BY position", arguments: [id])
                return Folder(name: row["name"], expanded: row["expanded"], playlists: playlists)
            }
        }
    }

    /// playlist id → folder name.
    public func folderOfPlaylists() throws -> [String: String] {
        try read { db in
            Dictionary(
                try Row.fetchAll(db, sql: "SELECT fp.playlist, f.name FROM folder_playlist fp JOIN folder f ON f.id = fp.folder")
                    .map { ($0["playlist"] as String, $0["name"] as String) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public func create(_ name: String) throws {
        let name = try Self.valid(name)
        try write { db in
            if let existing = try Self.match(name, db) {
                throw Problem(
                    message: "a folder “\(TerminalText.preview(existing.name, limit: 60))” exists already",
                    hint: "folder names are matched ignoring case: `timbre folder add NAME REF` puts playlists in it")
            }
            try db.execute(sql: "INSERT INTO folder (name, position) VALUES (?, COALESCE((SELECT MAX(position) + 1 FROM folder), 0))", arguments: [name])
        }
    }

    public func rename(_ name: String, to new: String) throws {
        let new = try Self.valid(new)
        try write { db in
            let id = try Self.id(of: name, db)
            if let existing = try Self.match(new, db), existing.id != id {
                throw Problem(message: "a folder “\(TerminalText.preview(existing.name, limit: 60))” exists already", hint: nil)
            }
            try db.execute(sql: "UPDATE folder SET name = ? WHERE id = ?", arguments: [new, id])
        }
    }

    /// The folder goes; its playlists stay in the library, in no folder.
    public func delete(_ name: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM folder WHERE id = ?", arguments: [try Self.id(of: name, db)]) }
    }

    /// Playlists into a folder, at its end (out of any other folder).
    public func add(_ playlists: [String], to name: String) throws {
        try write { db in
            let id = try Self.id(of: name, db)
            for playlist in playlists {
                try db.execute(sql: "DELETE FROM folder_playlist WHERE playlist = ?", arguments: [playlist])
                try db.execute(
                    sql: """
                        INSERT INTO folder_playlist (playlist, folder, position)
                        VALUES (?, ?, COALESCE((SELECT MAX(position) + 1 FROM folder_playlist WHERE folder = ?), 0))
                        """, arguments: [playlist, id, id])
            }
        }
    }

    public func remove(_ playlists: [String], from name: String) throws {
        try write { db in
            let id = try Self.id(of: name, db)
            for playlist in playlists {
                try db.execute(sql: "DELETE FROM folder_playlist WHERE playlist = ? AND folder = ?", arguments: [playlist, id])
            }
        }
    }

    public func setExpanded(_ name: String, _ expanded: Bool) throws {
        try write { db in try db.execute(sql: "UPDATE folder SET expanded = ? WHERE id = ?", arguments: [expanded, try Self.id(of: name, db)]) }
    }

    /// The name of the folder `name` means, ignoring case ("chill out" is "Chill Out"); nil: none.
    public func named(_ name: String) throws -> String? {
        try read { db in try Self.match(name, db)?.name }
    }

    private static func id(of name: String, _ db: Database) throws -> Int64 {
        guard let id = try match(name, db)?.id else {
            throw Problem(
                message: "there is no folder “\(TerminalText.preview(name, limit: 60))”",
                hint: "`timbre folder list` shows the folders; `timbre folder create NAME` makes one")
        }
        return id
    }

    /// The folder of that name: the one spelt exactly so, else the one equal ignoring case and
    /// surrounding spaces (names are unique that way, so there is at most one).
    private static func match(_ name: String, _ db: Database) throws -> (id: Int64, name: String)? {
        let rows = try Row.fetchAll(db, sql: "SELECT id, name FROM folder ORDER BY position").map { (id: $0["id"] as Int64, name: $0["name"] as String) }
        if let exact = rows.first(where: { $0.name == name }) { return exact }
        let key = fold(name)
        return rows.first { fold($0.name) == key }
    }

    static func fold(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).folding(options: [.caseInsensitive], locale: nil)
    }

    private static func valid(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else { throw Problem(message: "a folder needs a name of 1 to 200 characters", hint: nil) }
        return trimmed
    }

    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.write(body) } catch let problem as Problem { throw problem } catch {
            throw CacheError.database("the folders in \(path): \(error)")
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch { throw CacheError.database("the folders in \(path): \(error)") }
    }
}
