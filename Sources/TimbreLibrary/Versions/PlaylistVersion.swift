import Foundation
import TimbreCore

/// One state of a playlist that timbre saw: its details and how many entries, where it was seen
/// (a sync, or one of timbre's edits) and what changed since the version before it.
public struct PlaylistVersion: Sendable, Equatable {
    public enum Source: String, Sendable, Equatable {
        /// A sync found it (changed outside timbre, or the first time timbre looked).
        case sync
        /// One of timbre's edits made it (`edit` holds the journal's id).
        case edit
    }

    /// Which journal step made a version of source `edit`: the edit itself (nil), or an undo or
    /// a redo of it (`edit` is then the id of the edit undone or redone).
    public enum Step: String, Sendable, Equatable {
        case undo, redo
    }

    public var playlist: String
    /// Counted from 1 per playlist; numbers stay when older versions are pruned.
    public var version: Int
    public var seenAt: Date
    public var source: Source
    /// The journal's edit id, for `source == .edit`.
    public var edit: Int64?
    public var details: PlaylistDetailsState
    public var entryCount: Int
    /// Compared with the version before it (all zero for the first one kept).
    public var added: Int
    public var removed: Int
    public var moved: Int
    /// Whether its name differs from the version before it.
    public var renamed: Bool
    /// For `source == .edit`: made by an undo or a redo of edit `edit` (nil: by the edit itself).
    public var step: Step? = nil

    /// One element of `timbre playlist log --json` (docs/CLI.md's keys, in order).
    public var json: JSONValue {
        .object([
            ("version", .int(version)),
            ("seen_at", .string(ClockText.iso(seenAt))),
            ("source", .string(source.rawValue)),
            ("edit", edit.map { .int(Int($0)) } ?? .null),
            ("snapshot_id", .optional(details.snapshotID)),
            ("entries", .int(entryCount)),
            ("added", .int(added)),
            ("removed", .int(removed)),
            ("moved", .int(moved)),
            ("name", .string(details.name)),
            ("step", .optional(step?.rawValue)),
        ])
    }
}

extension PlaylistVersion {
    /// One line for a person (`playlist log`, the interface's `H`):
    /// `v3     2026-11-26 12:00  edit 12       148 entries  +0 −2 ~0  renamed “Road”` (`undo 12`,
    /// `redo 12` for a version an undo or a redo of edit 12 made).
    public var line: String {
        let source = source == .edit ? "\(step?.rawValue ?? "edit") \(edit.map(String.init) ?? "?")" : "sync"
        let entries = "\(entryCount) " + (entryCount == 1 ? "entry" : "entries")
        var text =
            "v\(version)".padding(toLength: 5, withPad: " ", startingAt: 0) + "  " + ClockText.localDateTime(seenAt) + "  "
            + source.padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + entries.leftPadded(to: 13)
            + "  +\(added) −\(removed) ~\(moved)"
        if renamed { text += "  renamed “\(TerminalText.sanitize(TerminalText.preview(details.name, limit: 80)))”" }
        return text
    }
}

/// A playlist's details as a version keeps them.
public struct PlaylistDetailsState: Sendable, Equatable {
    public var name: String
    /// nil: not known (the cache does not keep descriptions).
    public var description: String?
    public var isPublic: Bool
    public var collaborative: Bool
    public var snapshotID: String?

    public init(name: String, description: String? = nil, isPublic: Bool, collaborative: Bool, snapshotID: String?) {
        self.name = name
        self.description = description
        self.isPublic = isPublic
        self.collaborative = collaborative
        self.snapshotID = snapshotID
    }

    /// The same details, whatever the snapshot.
    func sameContent(as other: PlaylistDetailsState) -> Bool {
        name == other.name && description == other.description && isPublic == other.isPublic && collaborative == other.collaborative
    }
}

/// One entry of a version: what `restore` needs to put it back (the date added is kept as Spotify
/// sent it).
public struct VersionEntry: Sendable, Equatable {
    public var uri: String
    public var addedAt: String?
    public var addedBy: String?

    public init(uri: String, addedAt: String?, addedBy: String?) {
        self.uri = uri
        self.addedAt = addedAt
        self.addedBy = addedBy
    }
}

/// A whole state to record: details and entries in order.
public struct PlaylistState: Sendable, Equatable {
    public var playlist: String
    public var details: PlaylistDetailsState
    public var entries: [VersionEntry]
    /// When it was seen (the cache's sync time for a state recorded before a sync replaces it).
    public var seenAt: Date

    public init(playlist: String, details: PlaylistDetailsState, entries: [VersionEntry], seenAt: Date) {
        self.playlist = playlist
        self.details = details
        self.entries = entries
        self.seenAt = seenAt
    }
}

/// A playlist that left the library, with its last version.
public struct DeletedPlaylist: Sendable, Equatable {
    public var id: String
    public var deletedAt: Date
    public var last: PlaylistVersion

    /// One element of `timbre playlists --deleted --json`.
    public var json: JSONValue {
        .object([
            ("id", .string(id)),
            ("name", .string(last.details.name)),
            ("entries", .int(last.entryCount)),
            ("deleted_at", .string(ClockText.iso(deletedAt))),
            ("last_version", .int(last.version)),
        ])
    }
}

/// What a prune removed.
public struct VersionPruneReport: Sendable, Equatable {
    public var versions = 0
    public var playlists = 0
    /// Interned URIs and users no version uses any more (only a prune by hand looks for them).
    public var texts = 0
}

/// A version number that the playlist does not have (exit 2).
public struct UnknownVersion: UserFacingError, Equatable {
    public var playlist: String
    public var version: Int
    public var known: [Int]

    public init(playlist: String, version: Int, known: [Int]) {
        self.playlist = playlist
        self.version = version
        self.known = known
    }

    public var message: String {
        known.isEmpty
            ? "timbre has no versions of playlist \(playlist)"
            : "playlist \(playlist) has no version \(version) (versions kept: \(Self.ranges(known)))"
    }
    public var hint: String? { "`timbre playlist log \(playlist)` lists the versions" }
    public var exitStatus: ExitStatus { .usage }

    /// `1-4, 7, 9-12`.
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        let sorted = numbers.sorted()
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            parts.append(end == index ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }
}
