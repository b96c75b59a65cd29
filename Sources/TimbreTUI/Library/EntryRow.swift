import Foundation
import TimbreCore
import TimbreLibrary

/// One item of a playlist as the TUI shows it. Its folded text (for `/` and sorting) lives in the
/// list's `FoldedColumns`, not in the row.
public struct EntryRow: Sendable, Equatable {
    public var position: Int
    public var title: String
    public var artist: String
    public var album: String
    public var durationMS: Int
    public var addedAt: String?
    /// What yank copies and edits name ("" where the source has none: fixtures).
    public var uri: String
    /// The album's release year, when known (`:filter year:…`, sort by year).
    public var year: Int?

    public init(
        position: Int, title: String, artist: String, album: String, durationMS: Int, addedAt: String?,
        uri: String = "", year: Int? = nil
    ) {
        self.position = position
        self.title = title
        self.artist = artist
        self.album = album
        self.durationMS = durationMS
        self.addedAt = addedAt
        self.uri = uri
        self.year = year
    }

    /// The row's number as the interface shows it and `--position` takes it: from 1.
    public var number: Int { position + 1 }

    /// "#5 Crossing the Satellite — The Neon Cities": how questions name an entry.
    public var label: String { "#\(number) \(title)\(artist.isEmpty ? "" : " — " + artist)" }

    public var duration: String {
        let seconds = durationMS / 1000
        return seconds >= 3600
            ? "\(seconds / 3600):\(ClockText.pad((seconds / 60) % 60)):\(ClockText.pad(seconds % 60))"
            : "\(seconds / 60):\(ClockText.pad(seconds % 60))"
    }
}

/// Where the TUI reads its data: the cache in the app, fixtures in tests.
public protocol LibrarySource: Sendable {
    func playlists() throws -> [PlaylistRow]
    func tracks(of playlistID: String) throws -> [EntryRow]
    /// The first `limit` rows of a playlist, and how many it has: what a long list shows at once
    /// when it opens (the rest is read once that frame is painted).
    func tracks(of playlistID: String, first limit: Int) throws -> (rows: [EntryRow], total: Int)
    /// `F`: items of every playlist whose title, artist or album contain `query` (case- and
    /// diacritic-insensitive), in playlist order; at most `limit`.
    func search(_ query: String, limit: Int) throws -> [TUIState.SearchHit]
    /// Local folders of playlists (Timor's), in their order.
    func folders() throws -> [FolderRow]
    /// `H`: the versions timbre kept of a playlist, newest first.
    func versions(of playlistID: String) throws -> [PlaylistVersion]
    /// `H`, Enter: what restoring version `version` would change against the current list.
    func versionChanges(of playlistID: String, version: Int) throws -> TUIState.VersionChanges
}

extension LibrarySource {
    public func tracks(of playlistID: String, first limit: Int) throws -> (rows: [EntryRow], total: Int) {
        let all = try tracks(of: playlistID)
        return (Array(all.prefix(limit)), all.count)
    }

    public func folders() throws -> [FolderRow] { [] }
    public func versions(of playlistID: String) throws -> [PlaylistVersion] { [] }
    public func versionChanges(of playlistID: String, version: Int) throws -> TUIState.VersionChanges {
        TUIState.VersionChanges(version: version, lines: [], back: 0, out: 0, moved: 0)
    }
}
