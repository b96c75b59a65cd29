import Foundation
import TimbreCore

/// One change to the user's library, as both front ends ask for it: `timbre playlist …`,
/// `like`, `undo`… and the interface's keys and `:` verbs build this value, and
/// `Library.perform` runs it (through `PlaylistEditor` and the journal, or `Folders`). It names
/// its own operation and checks itself before anything is read or sent.
public enum LibraryChange: Sendable, Equatable {
    /// A change of a playlist's entries, in the positions of the cached list the user saw
    /// (Spotify's indices, from 0).
    case entries(SpotifyID, EntryChange, EntryOptions = EntryOptions())
    /// Liked Songs: save these tracks or episodes.
    case like([String])
    case unlike([String])
    /// Follow these playlists again (the undo of a delete).
    case follow([SpotifyID])
    /// Unfollow these playlists (Spotify's only delete).
    case delete([SpotifyID])
    case create(PlaylistDetails)
    /// A playlist's name, description, visibility or collaboration; nil leaves one as it is.
    case details(SpotifyID, PlaylistDetails)
    /// Local folders (the user-data database; nothing is sent).
    case folder(FolderEdit)
    /// The newest finished edit reverted; `force`: on a playlist that changed since.
    case undo(force: Bool = false)
    case redo(force: Bool = false)
    /// A playlist no longer in the library brought back with `entries` (a version of it): followed
    /// again when Spotify still has it — and, in the same run, its entries made equal to `entries`
    /// when they are not (a second journalled edit, undone first) — else created anew with
    /// `details` (name, description, visibility) and `entries` in order. The follow or creation is
    /// one journalled edit; its undo unfollows what it followed or created.
    case revive(SpotifyID, PlaylistDetails, entries: [String])

    /// A change of a playlist's entries, in the positions of the cached list the user saw.
    public enum EntryChange: Sendable, Equatable {
        /// At `position` (nil: the end).
        case add(uris: [String], position: Int?)
        /// Exactly these entries; other copies of the same tracks stay.
        case removePositions([Int])
        /// Every copy of these URIs.
        case removeURIs([String])
        /// Exactly these entries, and every copy of these URIs (`remove --position … --uri …`).
        case removeMixed(positions: [Int], uris: [String])
        /// `length` entries from `start`, so that the first ends at index `to` of the result.
        case move(start: Int, length: Int, to: Int)
        /// A random new order, saved.
        case shuffle
        /// A new order by `key`, saved (stable: equal keys keep their order).
        case sort(SortKey, reverse: Bool)
        /// Later copies removed, the first kept, the order otherwise unchanged.
        case dedupe(fuzzy: Bool)
        /// The playlist made equal to this list of URIs (a version of it): entries that stay keep
        /// their added dates; the missing ones are added (dated today), the extra ones removed.
        /// `addedAt`: the list's added dates, one per entry (nil: unknown) — copies of one track
        /// are matched to the playlist's by them, so each keeps its own date and place.
        case become(to: [String], addedAt: [String?]? = nil)
    }

    /// What `sort` orders by.
    public enum SortKey: String, Sendable, CaseIterable { case title, artist, album, year, duration, added }

    /// How an entry change is applied.
    public struct EntryOptions: Sendable, Equatable {
        /// On a conflict, apply the edit to the same entries, found by URI and occurrence.
        public var force: Bool
        /// Shuffle and sort: the ⌈n/100⌉-write rewrite (every added date reset) instead of range moves.
        public var rewrite: Bool
        /// Shuffle: the random order's seed; nil: any order.
        public var seed: UInt64?

        public init(force: Bool = false, rewrite: Bool = false, seed: UInt64? = nil) {
            self.force = force
            self.rewrite = rewrite
            self.seed = seed
        }
    }

    /// What a change is called in the journal, `history` and `--json`'s `op`. `restore` is a
    /// version restore: a playlist made equal to one of its versions (`EntryChange.become`) or a
    /// deleted one brought back from one (`revive`).
    public enum Operation: String, Sendable, CaseIterable {
        case add, remove, move, shuffle, sort, dedupe, like, unlike, follow, delete, create, edit, folder, undo, redo, restore
    }

    public var operation: Operation {
        switch self {
        case .entries(_, let what, _): return what.operation
        case .like: return .like
        case .unlike: return .unlike
        case .follow: return .follow
        case .delete: return .delete
        case .create: return .create
        case .details: return .edit
        case .folder: return .folder
        case .undo: return .undo
        case .redo: return .redo
        case .revive: return .restore
        }
    }

    /// The playlist whose entries or details the change concerns (nil: the library, Liked Songs,
    /// folders or the journal's newest edit).
    public var playlist: SpotifyID? {
        switch self {
        case .entries(let id, _, _), .details(let id, _), .revive(let id, _, _): return id
        default: return nil
        }
    }

    /// Spotify's limit on a playlist's name.
    public static let maxNameLength = 1_000

    /// The change as it will run — names trimmed — or the error that says what is wrong with it
    /// (exit 2, before anything is read or sent). Spotify's rules that need no request are
    /// checked here: a name of 1 to 1,000 characters, collaborative only when private (for a new
    /// playlist), no local file in an add. Details only by their owner, and collaborative only when
    /// private for a playlist that exists, need Spotify's answer: `perform` checks them.
    public func validated() throws -> LibraryChange {
        switch self {
        case .entries(_, .add(let uris, _), _):
            try Self.checkAddable(uris)
        case .entries(_, .become(let target, let dates), _):
            try Self.checkTarget(target)
            if let dates, dates.count != target.count {
                throw InvalidEdit(
                    message: "the list to restore holds \(target.count) entries but \(dates.count) added dates; nothing was written",
                    hint: "please report this with the command you ran")
            }
        case .revive(let id, var details, let entries):
            let rule = "a playlist needs a name of 1 to 1,000 characters"
            details.name = try Self.name(details.name ?? "", nameless: rule, tooLong: rule)
            details.collaborative = nil
            try Self.checkTarget(entries)
            return .revive(id, details, entries: entries)
        case .like(let uris), .unlike(let uris):
            guard !uris.isEmpty else { throw InvalidEdit(message: "no tracks given", hint: nil) }
        case .follow(let ids), .delete(let ids):
            guard !ids.isEmpty else { throw InvalidEdit(message: "name at least one playlist", hint: nil) }
        case .create(var details):
            let rule = "a playlist needs a name of 1 to 1,000 characters"
            details.name = try Self.name(details.name ?? "", nameless: rule, tooLong: rule)
            if details.collaborative == true, details.isPublic != false {
                throw InvalidEdit(message: "a collaborative playlist must be private", hint: "add --private")
            }
            return .create(details)
        case .details(_, let details):
            guard !details.isEmpty else {
                throw InvalidEdit(message: "nothing to change", hint: "give --name, --description, --public/--private or --collaborative/--no-collaborative")
            }
            if let name = details.name { _ = try Self.name(name, nameless: "a playlist name cannot be empty") }
            // Collaborative only when private depends on what the playlist is now: `perform` checks it.
            return self
        case .entries, .folder, .undo, .redo:
            break
        }
        return self
    }

    /// A playlist's name, trimmed: 1 to 1,000 characters.
    static func name(_ text: String, nameless: String, tooLong: String? = nil) throws -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw InvalidEdit(message: nameless, hint: nil) }
        guard name.count <= maxNameLength else {
            throw InvalidEdit(message: tooLong ?? "a playlist name has at most 1,000 characters (this one has \(name.count))", hint: nil)
        }
        return name
    }

    /// A list a playlist is made equal to: at most 10,000 entries, each a track, an episode or a
    /// local file (which must already be in the playlist: the planner checks that).
    static func checkTarget(_ uris: [String]) throws {
        guard uris.count <= PlaylistEditor.maxEntries else {
            throw InvalidEdit(
                message: "the list to restore holds \(uris.count) entries; Spotify keeps at most \(PlaylistEditor.maxEntries) in a playlist", hint: nil)
        }
        let kinds = ["spotify:track:", "spotify:episode:", "spotify:local:"]
        if let bad = uris.first(where: { uri in !kinds.contains { uri.hasPrefix($0) && uri.count > $0.count } }) {
            throw InvalidEdit(
                message: "“\(TerminalText.preview(bad, limit: 80))” is not a track, episode or local file URI; nothing was written",
                hint: "entries are named spotify:track:ID, spotify:episode:ID or spotify:local:…")
        }
    }

    /// Spotify's API cannot add local files (nor an entry without a track) to a playlist.
    static func checkAddable(_ uris: [String]) throws {
        if let local = uris.first(where: { $0.hasPrefix("spotify:local:") || LivePlaylist.isUnusable($0) }) {
            throw InvalidEdit(
                message: "“\(TerminalText.preview(local, limit: 80))” is a local file: Spotify's API cannot add local files to a playlist; nothing was written",
                hint: "add local files in the Spotify desktop app")
        }
    }
}

extension LibraryChange.EntryChange {
    /// Edits that name positions: checked against the live snapshot before anything is written.
    var isPositional: Bool {
        switch self {
        case .add(_, let position): return position != nil
        case .removePositions, .removeMixed, .move, .shuffle, .sort, .dedupe: return true
        case .removeURIs, .become: return false
        }
    }

    /// Shuffle and sort: a new order of the same entries.
    public var isOrderChange: Bool {
        switch self {
        case .shuffle, .sort: return true
        default: return false
        }
    }

    public var operation: LibraryChange.Operation {
        switch self {
        case .add: return .add
        case .removePositions, .removeURIs, .removeMixed: return .remove
        case .move: return .move
        case .shuffle: return .shuffle
        case .sort: return .sort
        case .dedupe: return .dedupe
        case .become: return .restore
        }
    }
}

/// Local folders (the user-data database; nothing is sent).
public enum FolderEdit: Sendable, Equatable {
    case create(String)
    case rename(String, to: String)
    case delete(String)
    /// Playlists into a folder, out of any other; `createMissing`: the folder is made when there
    /// is none of that name (the interface's `:folder add`).
    case add(playlistIDs: [String], to: String, createMissing: Bool)
    case remove(playlistIDs: [String], from: String)
    case setExpanded(String, Bool)
}

extension Folders {
    /// Carries out one folder change.
    public func perform(_ change: FolderEdit) throws {
        switch change {
        case .create(let name): try create(name)
        case .rename(let name, let new): try rename(name, to: new)
        case .delete(let name): try delete(name)
        case .add(let ids, let name, let createMissing):
            if createMissing, try named(name) == nil { try create(name) }
            try add(ids, to: name)
        case .remove(let ids, let name): try remove(ids, from: name)
        case .setExpanded(let name, let expanded): try setExpanded(name, expanded)
        }
    }
}

/// What `Library.perform` did: a change on Spotify (entries, likes, follows, details, an undo),
/// or a local folder change.
public enum LibraryOutcome: Sendable {
    case edit(EditOutcome)
    case folder(FolderEdit)

    /// The edit's outcome (nil for a folder change).
    public var edit: EditOutcome? {
        if case .edit(let outcome) = self { return outcome }
        return nil
    }
}

/// The one door to changing the library: folders on this machine, and everything else through
/// the editor (built only when a change needs Spotify, so a folder change needs no sign-in).
public struct Library: Sendable {
    private let folders: @Sendable () throws -> Folders
    private let editor: @Sendable () async throws -> PlaylistEditor
    /// Where each changed playlist's new state is kept as a version (nil: nowhere).
    private let versions: @Sendable () throws -> PlaylistVersions?

    public init(
        folders: @escaping @Sendable () throws -> Folders, editor: @escaping @Sendable () async throws -> PlaylistEditor,
        versions: @escaping @Sendable () throws -> PlaylistVersions? = { nil }
    ) {
        self.folders = folders
        self.editor = editor
        self.versions = versions
    }

    /// Checks `change` (`LibraryChange.validated`) and runs it: journalled, written through to
    /// the cache. `dryRun`: planned and priced, nothing journalled or sent. `choose`: before a
    /// shuffle or sort saves, what the person asked picks (moves, rewrite, nothing); nil: as the
    /// change's options say. `stop`: asked while a shuffle or sort runs by range moves, they stop
    /// between two writes (`EditOutcome.Ending.stopped`).
    public func perform(
        _ change: LibraryChange, dryRun: Bool = false,
        choose: (@Sendable (OrderCost) async -> OrderChoice)? = nil, stop: EditStop? = nil
    ) async throws -> LibraryOutcome {
        let change = try change.validated()
        if case .folder(let edit) = change {
            if !dryRun { try folders().perform(edit) }
            return .folder(edit)
        }
        let versions = dryRun ? nil : try? versions()
        return .edit(
            try await performRecorded(change, editor: try await editor(), versions: versions, dryRun: dryRun, choose: choose, stop: stop))
    }
}

extension PlaylistEditor {
    /// Runs a checked change that goes to Spotify (every case but `.folder`).
    func perform(
        _ change: LibraryChange, dryRun: Bool, choose: (@Sendable (OrderCost) async -> OrderChoice)?, stop: EditStop? = nil
    ) async throws -> EditOutcome {
        switch change {
        case .entries(let playlist, let what, let options):
            return try await apply(what, to: playlist, options: options, dryRun: dryRun, choose: choose, stop: stop)
        case .like(let uris): return try await library(uris, save: true, as: .like, dryRun: dryRun)
        case .unlike(let uris): return try await library(uris, save: false, as: .unlike, dryRun: dryRun)
        case .follow(let ids): return try await library(ids.map(\.playlistURI), save: true, as: .follow, dryRun: dryRun)
        case .delete(let ids): return try await library(ids.map(\.playlistURI), save: false, as: .delete, dryRun: dryRun)
        case .create(let details): return try await create(details, dryRun: dryRun)
        case .details(let playlist, let details): return try await self.details(of: playlist, to: details, dryRun: dryRun)
        case .undo(let force): return try await undo(force: force)
        case .redo(let force): return try await redo(force: force)
        case .revive(let playlist, let details, let entries): return try await revive(playlist, details: details, entries: entries, dryRun: dryRun)
        case .folder:
            throw InvalidEdit(message: "a folder change is not sent to Spotify", hint: nil)
        }
    }
}

extension SpotifyID {
    /// `spotify:playlist:ID`.
    var playlistURI: String { "spotify:playlist:" + rawValue }
}
