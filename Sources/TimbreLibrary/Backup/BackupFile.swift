import Foundation
import TimbreCore

/// A whole library in one self-describing, versioned JSON file (docs/BACKUP.md): the playlists the
/// account owns with their details and entries in order, the ones it follows by id, the local
/// folders, and Liked Songs. `timbre backup` writes it, `timbre restore` reads it.
public struct Backup: Sendable, Equatable {
    /// The `format` member every backup carries.
    public static let formatName = "timbre-backup"
    /// The version this timbre writes and the newest it reads.
    public static let currentVersion = 1

    public struct Account: Sendable, Equatable {
        public var id: String
        public var name: String?
        public init(id: String, name: String?) {
            self.id = id
            self.name = name
        }
    }

    /// One entry of an owned playlist, in order.
    public struct Entry: Sendable, Equatable {
        public var uri: String
        public var addedAt: String?
        public var addedBy: String?
        public init(uri: String, addedAt: String?, addedBy: String? = nil) {
            self.uri = uri
            self.addedAt = addedAt
            self.addedBy = addedBy
        }

        /// A local file: kept in the file for the record, but Spotify's API cannot add one back.
        public var isLocal: Bool { uri.hasPrefix("spotify:local:") }
    }

    /// A playlist the account owns: restored by creating it and adding its entries.
    public struct OwnedPlaylist: Sendable, Equatable {
        public var id: String
        public var name: String
        public var description: String?
        public var isPublic: Bool
        public var collaborative: Bool
        public var entries: [Entry]
        public init(id: String, name: String, description: String?, isPublic: Bool, collaborative: Bool, entries: [Entry]) {
            self.id = id
            self.name = name
            self.description = description
            self.isPublic = isPublic
            self.collaborative = collaborative
            self.entries = entries
        }

        /// The URIs a restore adds, in order (local files left out).
        public var addableURIs: [String] { entries.filter { !$0.isLocal }.map(\.uri) }
    }

    /// A playlist someone else owns that the account follows: restored by following its id.
    public struct FollowedPlaylist: Sendable, Equatable {
        public var id: String
        public var name: String
        public var owner: String?
        public init(id: String, name: String, owner: String?) {
            self.id = id
            self.name = name
            self.owner = owner
        }
    }

    public struct Folder: Sendable, Equatable {
        public var name: String
        /// Playlist ids as they were in the backed-up account, in order.
        public var playlists: [String]
        public init(name: String, playlists: [String]) {
            self.name = name
            self.playlists = playlists
        }
    }

    public var version: Int
    public var createdAt: String
    public var account: Account
    public var playlists: [OwnedPlaylist]
    public var followed: [FollowedPlaylist]
    public var folders: [Folder]
    /// Liked Songs, most recently liked first (as Spotify lists them).
    public var liked: [Entry]

    public init(
        createdAt: String, account: Account, playlists: [OwnedPlaylist], followed: [FollowedPlaylist], folders: [Folder], liked: [Entry],
        version: Int = Backup.currentVersion
    ) {
        self.version = version
        self.createdAt = createdAt
        self.account = account
        self.playlists = playlists
        self.followed = followed
        self.folders = folders
        self.liked = liked
    }

    /// The file's JSON, members in docs/BACKUP.md's order.
    public var json: JSONValue {
        .object([
            ("format", .string(Self.formatName)),
            ("version", .int(version)),
            ("created_at", .string(createdAt)),
            ("account", .object([("id", .string(account.id)), ("name", .optional(account.name))])),
            (
                "playlists",
                .array(
                    playlists.map { playlist in
                        .object([
                            ("id", .string(playlist.id)), ("name", .string(playlist.name)), ("description", .optional(playlist.description)),
                            ("public", .bool(playlist.isPublic)), ("collaborative", .bool(playlist.collaborative)),
                            ("entries", .array(playlist.entries.map(Self.entryJSON))),
                        ])
                    })
            ),
            (
                "followed",
                .array(followed.map { .object([("id", .string($0.id)), ("name", .string($0.name)), ("owner", .optional($0.owner))]) })
            ),
            ("folders", .array(folders.map { .object([("name", .string($0.name)), ("playlists", .array($0.playlists.map(JSONValue.string)))]) })),
            ("liked", .array(liked.map { .object([("uri", .string($0.uri)), ("added_at", .optional($0.addedAt))]) })),
        ])
    }

    private static func entryJSON(_ entry: Entry) -> JSONValue {
        .object([("uri", .string(entry.uri)), ("added_at", .optional(entry.addedAt)), ("added_by", .optional(entry.addedBy))])
    }

    /// The file's bytes: the JSON and a final newline.
    public var data: Data { Data((json.serialized() + "\n").utf8) }

    /// The own playlists' entries, for the summary of a file.
    public var entryCount: Int { playlists.reduce(0) { $0 + $1.entries.count } }
}

/// A file `timbre restore` will not read: not a backup, from a newer timbre, or damaged. Nothing
/// was sent (exit 2).
public struct BackupFileError: UserFacingError, Equatable {
    public var message: String
    public var hint: String?
    public var exitStatus: ExitStatus { .usage }

    public init(message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}
