import Foundation

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

/// One item of a playlist as the TUI shows it, with its folded text precomputed for `/` and `F`.
public struct TrackRow: Sendable, Equatable {
    public var position: Int
    public var title: String
    public var artist: String
    public var album: String
    public var durationMS: Int
    public var addedAt: String?
    /// Folded UTF-8 of title, artist and album: filter and sort work on bytes, not Strings.
    let foldedTitle: [UInt8]
    let foldedArtist: [UInt8]
    let foldedAlbum: [UInt8]

    public init(position: Int, title: String, artist: String, album: String, durationMS: Int, addedAt: String?) {
        self.position = position
        self.title = title
        self.artist = artist
        self.album = album
        self.durationMS = durationMS
        self.addedAt = addedAt
        foldedTitle = SearchText.foldedBytes(title)
        foldedArtist = SearchText.foldedBytes(artist)
        foldedAlbum = SearchText.foldedBytes(album)
    }

    /// The folded text, for display and tests.
    public var folded: String {
        String(decoding: foldedTitle + [0x1F] + foldedArtist + [0x1F] + foldedAlbum, as: UTF8.self)
    }

    /// Whether the folded `needle` (see `SearchText.foldedBytes`) occurs in title, artist or album.
    public func matches(_ needle: [UInt8]) -> Bool {
        needle.isEmpty || SearchText.contains(foldedTitle, needle) || SearchText.contains(foldedArtist, needle)
            || SearchText.contains(foldedAlbum, needle)
    }

    public var duration: String {
        let seconds = durationMS / 1000
        return seconds >= 3600
            ? String(format: "%d:%02d:%02d", seconds / 3600, (seconds / 60) % 60, seconds % 60)
            : String(format: "%d:%02d", seconds / 60, seconds % 60)
    }
}

/// Where the TUI reads its data: the cache in the app, fixtures in tests.
public protocol LibrarySource: Sendable {
    func playlists() throws -> [PlaylistRow]
    func tracks(of playlistID: String) throws -> [TrackRow]
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
