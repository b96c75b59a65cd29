import Foundation
import TimbreCore
import TimbreLibrary

/// An edit the interface asks for: a change of the library — the same `LibraryChange`
/// `timbre playlist …`, `like`, `undo` and `folder` build, which `TUIServices.run` carries out
/// through the same `Library`, editor and journal (the interface never writes on its own) — or a
/// file transfer around one, or a version restore.
public enum TUIEdit: Sendable, Equatable {
    case change(LibraryChange)
    /// `:export`, `:import`.
    case transfer(FileTransfer)
    /// `H`, `r`: the playlist made equal to one of its versions (`timbre playlist restore --to`),
    /// found among the versions the app keeps.
    case restoreVersion(SpotifyID, version: Int)

    /// A change of a playlist's entries, in the positions the interface showed (the cache's).
    public static func entries(_ playlist: SpotifyID, _ what: LibraryChange.EntryChange) -> TUIEdit {
        .change(.entries(playlist, what))
    }

    public static func folder(_ edit: FolderEdit) -> TUIEdit { .change(.folder(edit)) }
    public static var undo: TUIEdit { .change(.undo()) }
    public static var redo: TUIEdit { .change(.redo()) }

    /// The entry change this edit is, if it is one.
    public var entryChange: (playlist: SpotifyID, what: LibraryChange.EntryChange)? {
        if case .change(.entries(let playlist, let what, _)) = self { return (playlist, what) }
        return nil
    }

    /// The playlist whose view must show Spotify's state after the edit, even a failed one.
    public var playlistID: String? {
        switch self {
        case .change(let change):
            switch change {
            case .like, .unlike: return PlaylistRef.liked.description
            default: return change.playlist?.rawValue
            }
        case .transfer(.importFile(_, let into)): return into.rawValue
        case .transfer(.export): return nil
        case .restoreVersion(let id, _): return id.rawValue
        }
    }

    /// What the status line says while it runs.
    public var label: String {
        switch self {
        case .change(let change): return Self.label(change)
        case .transfer(.export): return "exporting"
        case .transfer(.importFile): return "importing"
        case .restoreVersion(_, let version): return "restoring version \(version)"
        }
    }

    static func label(_ change: LibraryChange) -> String {
        switch change {
        case .entries(_, let what, _):
            switch what {
            case .add(let uris, _): return "adding \(Self.count(uris.count))"
            case .removePositions(let positions): return "removing \(Self.count(positions.count))"
            case .removeURIs(let uris): return "removing every copy of \(uris.count) \(uris.count == 1 ? "track" : "tracks")"
            case .removeMixed(let positions, let uris):
                return "removing \(Self.count(positions.count)) and every copy of \(uris.count) \(uris.count == 1 ? "track" : "tracks")"
            case .move(_, let length, _): return "moving \(Self.count(length))"
            case .shuffle: return "shuffling"
            case .sort(let key, _): return "sorting by \(key.rawValue)"
            case .dedupe(let fuzzy): return fuzzy ? "removing duplicates (fuzzy)" : "removing duplicates"
            case .become(let uris, _): return "restoring a list of \(Self.count(uris.count))"
            }
        case .like(let uris): return "liking \(uris.count) \(uris.count == 1 ? "item" : "items")"
        case .unlike(let uris): return "unliking \(uris.count) \(uris.count == 1 ? "item" : "items")"
        case .undo: return "undoing"
        case .redo: return "redoing"
        case .create(let details): return "creating “\(TerminalText.preview(details.name ?? "", limit: 40))”"
        case .details: return "renaming"
        case .delete: return "deleting"
        case .follow: return "following"
        case .folder: return "saving folders"
        case .revive: return "restoring"
        }
    }

    static func count(_ n: Int) -> String { "\(n) \(n == 1 ? "entry" : "entries")" }
}

extension FolderEdit {
    /// The interface's `:folder add NAME`: the selected playlist into the folder, made when missing.
    public static func add(playlistID: String, to name: String) -> FolderEdit {
        .add(playlistIDs: [playlistID], to: name, createMissing: true)
    }

    public static func remove(playlistID: String, from name: String) -> FolderEdit {
        .remove(playlistIDs: [playlistID], from: name)
    }
}

/// What an edit did, for the status line and `:messages`.
public struct TUIEditReport: Sendable, Equatable {
    public var message: String
    public var warnings: [String]
    /// A playlist the edit created (`:new`, `:import`), to select.
    public var createdPlaylistID: String?
    /// A question before the edit does anything (`:export` onto an existing file): y runs `edit`.
    public var ask: FollowUp?

    public struct FollowUp: Sendable, Equatable {
        public var question: String
        public var edit: TUIEdit

        public init(question: String, edit: TUIEdit) {
            self.question = question
            self.edit = edit
        }
    }

    public init(message: String, warnings: [String] = [], createdPlaylistID: String? = nil, ask: FollowUp? = nil) {
        self.message = message
        self.warnings = warnings
        self.createdPlaylistID = createdPlaylistID
        self.ask = ask
    }
}

/// A track from Spotify's catalogue (`a`).
public struct CatalogHit: Sendable, Equatable {
    public var uri: String
    public var title: String
    public var artist: String
    public var album: String
    public var durationMS: Int

    public init(uri: String, title: String, artist: String, album: String, durationMS: Int) {
        self.uri = uri
        self.title = title
        self.artist = artist
        self.album = album
        self.durationMS = durationMS
    }
}

/// What the interface needs of the app beyond reading the cache. The app builds it over its
/// editor (TimbreApp); tests pass their own.
public struct TUIServices: Sendable {
    /// Runs one edit to its end (journalled, written through to the cache), or throws the error
    /// the CLI would show; tells `progress` (writes done, writes planned) as it goes, and before a
    /// shuffle or sort saves, asks `choose` (moves, rewrite or nothing) with what each costs.
    public var run:
        @Sendable (
            TUIEdit, _ progress: @escaping @Sendable (Int, Int) -> Void,
            _ choose: @escaping @Sendable (OrderCost) async -> OrderChoice
        ) async throws -> TUIEditReport
    /// Re-reads one playlist from Spotify into the cache, after a failed edit; a sentence when it could not.
    public var reread: @Sendable (String) async -> String?
    public var searchCatalog: @Sendable (String) async throws -> [CatalogHit]
    /// The statistics of a cached playlist, as lines (`timbre stats`'s text).
    public var statistics: @Sendable (String) throws -> [String]
    /// What Esc sets to stop the shuffle or sort under way between two of its range moves (the
    /// one `run` passes to the editor).
    public var stop: EditStop
    /// Spotify's player (Player/TUIPlayer.swift); nil: no playback (signed out, or not given yet),
    /// and the playback keys say it needs sign-in.
    public var player: TUIPlayer?

    /// Every service is required: a feature wired in the interface but not given here does not
    /// compile, rather than silently doing nothing.
    public init(
        run:
            @escaping @Sendable (
                TUIEdit, _ progress: @escaping @Sendable (Int, Int) -> Void,
                _ choose: @escaping @Sendable (OrderCost) async -> OrderChoice
            ) async throws -> TUIEditReport,
        reread: @escaping @Sendable (String) async -> String?,
        searchCatalog: @escaping @Sendable (String) async throws -> [CatalogHit],
        statistics: @escaping @Sendable (String) throws -> [String], stop: EditStop, player: TUIPlayer?
    ) {
        self.run = run
        self.reread = reread
        self.searchCatalog = searchCatalog
        self.statistics = statistics
        self.stop = stop
        self.player = player
    }
}
