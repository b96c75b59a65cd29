import Foundation
import TimbreCore

/// A playlist as the TUI shows it.
public struct PlaylistRow: Sendable, Equatable {
    public var id: String
    public var name: String
    public var trackCount: Int
    public var owner: String
    public var unavailable: Bool

    public init(id: String, name: String, trackCount: Int, owner: String, unavailable: Bool) {
        self.id = id
        self.name = name
        self.trackCount = trackCount
        self.owner = owner
        self.unavailable = unavailable
    }
}

/// One item of a playlist as the TUI shows it. Its folded text (for `/` and sorting) lives in the
/// list's `FoldedColumns`, not in the row.
public struct TrackRow: Sendable, Equatable {
    public var position: Int
    public var title: String
    public var artist: String
    public var album: String
    public var durationMS: Int
    public var addedAt: String?

    public init(position: Int, title: String, artist: String, album: String, durationMS: Int, addedAt: String?) {
        self.position = position
        self.title = title
        self.artist = artist
        self.album = album
        self.durationMS = durationMS
        self.addedAt = addedAt
    }

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
    func tracks(of playlistID: String) throws -> [TrackRow]
    /// `F`: items of every playlist whose title, artist or album contain `query` (case- and
    /// diacritic-insensitive), in playlist order; at most `limit`.
    func search(_ query: String, limit: Int) throws -> [TUIState.SearchHit]
}

/// What the status line reports.
public struct StatusInfo: Sendable, Equatable {
    public var user: String?
    public var lastSync: String?
    public var syncProgress: String?
    public var rateLimitWait: Int?
    public var offline: Bool
    public var hint: String?
    public var lastError: String?
    /// The latest warning from background work (the whole list: `:messages`).
    public var lastMessage: String?

    public init(user: String? = nil, lastSync: String? = nil, syncProgress: String? = nil, rateLimitWait: Int? = nil,
                offline: Bool = false, hint: String? = nil, lastError: String? = nil) {
        self.user = user
        self.lastSync = lastSync
        self.syncProgress = syncProgress
        self.rateLimitWait = rateLimitWait
        self.offline = offline
        self.hint = hint
        self.lastError = lastError
    }
}
