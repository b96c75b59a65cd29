import Foundation
import TimbreCore
import TimbreLibrary

/// Reads the TUI's data from the SQLite cache.
public struct CacheLibrarySource: LibrarySource {
    let cache: LibraryCache
    /// The signed-in user's id: their playlists and collaborative ones are editable (nil: none is).
    let userID: String?
    /// The user-data database (folders), shared with the interface's edits: read once it exists
    /// (the first edit or folder creates it).
    let userData: SharedUserData?

    public init(cache: LibraryCache, userID: String? = nil, userData: SharedUserData? = nil) {
        self.cache = cache
        self.userID = userID
        self.userData = userData
    }

    /// A playlist is locked when it is known to be someone else's and not collaborative. Who the
    /// user is: the session's id, else the owner the sync recorded for Liked Songs (`GET /me`);
    /// when neither is known nothing shows a lock, and the editor still refuses another user's
    /// playlist before writing.
    public func playlists() throws -> [PlaylistRow] {
        let all = try cache.playlists()
        let me = userID ?? all.first(where: \.isLiked).map(\.ownerID)
        return all.map {
            PlaylistRow(
                id: $0.id, name: $0.name, trackCount: $0.trackCount, owner: $0.ownerName ?? $0.ownerID, unavailable: $0.unavailable,
                editable: $0.isLiked || $0.collaborative || (me.map { [ownerID = $0.ownerID] in ownerID == $0 } ?? true),
                unavailableReason: $0.unavailableReason, visibility: .init(isPublic: $0.isPublic, collaborative: $0.collaborative))
        }
    }

    public func folders() throws -> [FolderRow] {
        guard let folders = try userData?.existing()?.folders else { return [] }
        return try folders.list().map { FolderRow(name: $0.name, expanded: $0.expanded, playlists: $0.playlists) }
    }

    /// A malformed id is refused with an error naming it (it used to open Liked Songs instead).
    public func tracks(of playlistID: String) throws -> [EntryRow] {
        try cache.listedEntries(of: try Self.ref(playlistID), transform: Self.row) ?? []
    }

    public func tracks(of playlistID: String, first limit: Int) throws -> (rows: [EntryRow], total: Int) {
        let ref = try Self.ref(playlistID)
        let rows = try cache.listedEntries(of: ref, limit: limit, transform: Self.row) ?? []
        return (rows, rows.count < limit ? rows.count : try cache.entryCount(of: ref))
    }

    static func ref(_ playlistID: String) throws -> PlaylistRef {
        if playlistID == CachedPlaylist.likedID { return .liked }
        guard let id = SpotifyID(playlistID) else { throw NotAPlaylistID(text: playlistID) }
        return .playlist(id)
    }

    static func row(_ entry: ListedEntry) -> EntryRow {
        EntryRow(
            position: entry.position, title: entry.name, artist: entry.artists.joined(separator: ", "), album: entry.album ?? "",
            durationMS: entry.durationMS, addedAt: entry.addedAt, uri: entry.uri, year: entry.year)
    }

    public struct NotAPlaylistID: Error, Equatable, CustomStringConvertible {
        public let text: String
        public var description: String { "“\(TerminalText.preview(text, limit: 40))” is not a playlist id; nothing was opened" }
    }

    public func search(_ query: String, limit: Int) throws -> [TUIState.SearchHit] {
        let needle = SearchText.foldedBytes(query)
        return try cache.search(needle, limit: limit).map {
            let row = Self.row($0.item)
            return TUIState.SearchHit(playlistID: $0.playlistID, playlistName: $0.playlistName, track: row, field: Self.field(row, needle))
        }
    }

    /// Which field of `row` holds `needle` (folded as the search folds): title, artist or album.
    static func field(_ row: EntryRow, _ needle: [UInt8]) -> TUIState.SearchHit.Field {
        if SearchText.contains(SearchText.foldedBytes(row.title), needle) { return .title }
        if SearchText.contains(SearchText.foldedBytes(row.artist), needle) { return .artist }
        return SearchText.contains(SearchText.foldedBytes(row.album), needle) ? .album : .title
    }

    static func row(_ item: CachedEntry) -> EntryRow { row(ListedEntry(item)) }
}

// MARK: Versions (`H`)

extension CacheLibrarySource {
    private func lookup() throws -> VersionLookup {
        VersionLookup(versions: try userData?.existing()?.versions, cache: cache)
    }

    public func versions(of playlistID: String) throws -> [PlaylistVersion] {
        try lookup().versions(of: playlistID)
    }

    /// From the current list to version `version`: what a restore would put back (`+`, at its
    /// position in the version), take out (`-`, at its position now) and move (`~`).
    public func versionChanges(of playlistID: String, version: Int) throws -> TUIState.VersionChanges {
        let target = try lookup().state(version, of: playlistID).entries.map(\.uri)
        let current = try PlaylistVersions.cachedState(cache, playlist: playlistID)?.entries.map(\.uri) ?? []
        let diff = VersionDiff(from: current, to: target)
        let titles = try cache.titles(of: Set(target + current))
        func named(_ uri: String) -> String { TerminalText.sanitize(titles[uri] ?? uri) }
        var lines: [(order: Int, text: String)] = diff.added.map { ($0.position, "+ #\($0.position + 1)  \(named($0.uri))") }
        lines += diff.removed.map { ($0.position, "- #\($0.position + 1)  \(named($0.uri))") }
        lines += diff.moved.map { ($0.to, "~ #\($0.from + 1) → #\($0.to + 1)  \(named($0.uri))") }
        let sorted = lines.sorted { $0.order < $1.order }.map(\.text)
        return TUIState.VersionChanges(
            version: version, lines: sorted.isEmpty ? ["(the list is already this version)"] : sorted,
            back: diff.added.count, out: diff.removed.count, moved: diff.moved.count)
    }
}
