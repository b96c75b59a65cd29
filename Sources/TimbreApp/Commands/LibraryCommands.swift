import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre playlists`: the cached playlists, offline.
public struct PlaylistsCommand: Sendable {
    public var json: Bool

    public init(json: Bool) { self.json = json }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = context.console
        guard let cache = try context.existingCache() else {
            if json { console.json(.array([])) }
            console.warning("the cache is empty — run `timbre sync` first")
            return .success
        }
        let playlists = try cache.playlists()
        if json {
            // Each with the local folder it is in (null: none).
            let folders = try context.userData.existing()?.folders.folderOfPlaylists() ?? [:]
            console.json(
                .array(
                    playlists.map { playlist in
                        guard case .object(let members) = playlist.json else { return playlist.json }
                        return .object(members + [("folder", .optional(folders[playlist.id]))])
                    }))
            return .success
        }
        console.lines(
            playlists.map { playlist in
                let count = String(playlist.trackCount).leftPadded(to: 6)
                var flags: [String] = []
                if let reason = playlist.unavailableReason { flags.append("unavailable: \(reason)") }
                if playlist.collaborative { flags.append("collaborative") }
                let suffix = flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"
                return "\(playlist.id.padding(toLength: 22, withPad: " ", startingAt: 0))  \(count)  \(TerminalText.sanitize(playlist.name))\(suffix)"
            })
        return .success
    }
}

/// `timbre tracks REF`: a cached playlist's entries, offline, as text, JSON or CSV.
public struct TracksCommand: Sendable {
    public enum Format: Sendable { case text, json, csv }

    public var ref: String
    public var format: Format

    public init(ref: String, format: Format) {
        self.ref = ref
        self.format = format
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let reference = try invocation.playlistRef(ref)
        let context = try invocation.context()
        let console = context.console
        guard let cache = try context.existingCache(), let items = try cache.entries(of: reference) else {
            throw NotCached(reference: reference)
        }
        // An empty list because Spotify would not show it (not because it is empty): say so.
        if items.isEmpty, let playlist = try cache.playlist(reference), let reason = playlist.unavailableReason {
            throw UnreadablePlaylist(name: playlist.name, reason: reason)
        }
        // Listed by a sync that stopped before its entries were all read: not an empty playlist.
        if items.isEmpty, let playlist = try cache.playlist(reference), playlist.syncedAt == nil {
            throw NotReadYet(name: playlist.name, read: try cache.partialEntryCount(of: reference), total: playlist.trackCount)
        }
        switch format {
        case .json:
            console.json(.array(items.map(\.json)))
        case .csv:
            console.lines([CachedEntry.csvHeader] + items.map(\.csvRow), terminator: "\r\n")
        case .text:
            console.lines(
                items.map { item in
                    let artists = item.artists.joined(separator: ", ")
                    let duration = ClockText.minutesSeconds(milliseconds: item.durationMS)
                    let album = item.album.map { " · \($0)" } ?? ""
                    return TerminalText.sanitize("\(String(item.number).leftPadded(to: 5))  \(item.name) — \(artists)\(album)  \(duration)")
                })
        }
        return .success
    }
}

extension AppContext {
    /// A playlist's cached entries (offline), with the cache they come from; `NotCached` when
    /// there is no cache or it lacks the playlist.
    func cachedEntries(of reference: PlaylistRef) throws -> (cache: LibraryCache, entries: [CachedEntry]) {
        guard let cache = try existingCache(), let entries = try cache.entries(of: reference) else { throw NotCached(reference: reference) }
        return (cache, entries)
    }
}

/// `tracks` of a playlist whose entries Spotify does not show this app (exit 7, nothing on stdout).
struct UnreadablePlaylist: UserFacingError {
    let name: String
    let reason: String
    var message: String { "not permitted: the entries of “\(TerminalText.preview(name, limit: 60))” cannot be listed: \(reason)" }
    var hint: String? { "open it in Spotify's own app; `timbre playlists` marks such playlists \"unavailable\"" }
    var exitStatus: ExitStatus { .notPermitted }
}

/// `tracks` of a playlist a sync listed but has not read whole yet (the daily quota,
/// `--max-requests`): its entries are not shown as an empty list.
struct NotReadYet: UserFacingError {
    let name: String
    let read: Int
    let total: Int
    var message: String {
        "the entries of “\(TerminalText.preview(name, limit: 60))” have not been read yet (\(read) of \(total) so far): the last sync stopped before it"
    }
    var hint: String? { "run `timbre sync`: it goes on where the last one stopped" }
    var exitStatus: ExitStatus { .failure }
}

struct NotCached: UserFacingError {
    let reference: PlaylistRef
    var message: String { reference == .liked ? "Liked Songs are not in the cache" : "playlist \(reference) is not in the cache" }
    var hint: String? { "run `timbre sync` (or `timbre sync --playlist \(reference)`) first; `timbre playlists` lists what is cached" }
    var exitStatus: ExitStatus { .failure }
}

/// `timbre like` and `timbre unlike`: Liked Songs, journalled and undoable.
public struct LikeCommand: Sendable {
    public var items: [String]
    public var like: Bool

    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(items: [String], like: Bool, flags: EditFlags) {
        self.flags = flags
        self.items = items
        self.like = like
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let refs = try PlaylistEditCommand.items(items, input: invocation.console.input)
        let context = try invocation.context()
        let editor = try await context.editor()
        let uris = try await PlaylistEditCommand.uris(of: refs, catalog: editor.catalog)
        let outcome = try await context.library(editor).perform(like ? .like(uris) : .unlike(uris), dryRun: flags.dryRun).edit
        if let outcome { EditReport.show(outcome, json: flags.json, console: context.console) }
        return .success
    }
}
