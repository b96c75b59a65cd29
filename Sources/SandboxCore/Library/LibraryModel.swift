/// The sandbox's library: a deterministic function of (size, seed), changed by the Web API's
/// write endpoints and the control endpoint. Tracks, episodes and local files are computed on demand from an index into
/// a shared pool, so a 200,000-item library costs a few megabytes.
public enum LibrarySize: String, CaseIterable, Sendable, Codable {
    case small, medium, large

    var playlistCount: Int {
        switch self {
        case .small: 9
        case .medium: 60
        case .large: 500
        }
    }
    var itemTarget: Int {
        switch self {
        case .small: 300
        case .medium: 6_000
        case .large: 200_000
        }
    }
    var likedCount: Int {
        switch self {
        case .small: 50
        case .medium: 800
        case .large: 5_000
        }
    }
    var trackPool: Int {
        switch self {
        case .small: 600
        case .medium: 5_000
        case .large: 40_000
        }
    }
}

public struct User: Sendable, Equatable {
    public var id: String
    public var displayName: String?
}

public struct Entry: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        /// A catalogue track (`ref` indexes the track pool).
        case track
        /// A catalogue track whose id is malformed in the response (clients must skip it).
        case malformed
        /// A local file (`ref` indexes the local-file pool).
        case local
        /// A podcast episode (`ref` indexes the episode pool).
        case episode
        /// `"track": null` — a removed or unavailable item.
        case null
        /// Added through the API and not in the pool (`ref` indexes `Library.foreign`): a
        /// well-formed track or episode id the pool lacks, or a local file.
        case foreign
    }

    public var kind: Kind
    public var ref: Int32
    /// Seconds since 1970, or nil for `"added_at": null`.
    public var addedAt: Int64?
    /// Index into `Library.users`.
    public var addedBy: Int8

    public init(kind: Kind, ref: Int, addedAt: Int64?, addedBy: Int = 0) {
        self.kind = kind
        self.ref = Int32(truncatingIfNeeded: ref)
        self.addedAt = addedAt
        self.addedBy = Int8(truncatingIfNeeded: addedBy)
    }
}

public struct Playlist: Sendable, Equatable {
    public var id: String
    public var name: String
    public var description: String?
    /// Index into `Library.users`; 0 is the signed-in user.
    public var owner: Int
    public var collaborative: Bool
    public var isPublic: Bool
    /// false → `"images": null`.
    public var hasImages: Bool
    public var followers: Int
    public var entries: [Entry]
    /// Bumped by every change of entries; part of the snapshot id (details changes leave it).
    public var version: Int
    /// A Spotify-owned editorial or algorithmic playlist (`serve --spotify-owned N`): listed in
    /// `/me/playlists`, but development-mode apps get 404 for it by id and for its items (as
    /// Spotify answers since November 2024).
    public var spotifyOwned = false

    /// The signed-in user can read the items in development mode (owner or collaborator).
    public var readableInDevelopmentMode: Bool { (owner == 0 || collaborative) && !spotifyOwned }

    /// The user may change its entries and details: they own it or it is collaborative.
    public var editable: Bool { owner == 0 || collaborative }

    public var snapshotID: String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: version)
        func feed(_ value: UInt64) { hash = SplitMix64.mix(hash ^ value) }
        // The id, not the name: a rename (details) keeps the snapshot, as on Spotify.
        for byte in id.utf8 { feed(UInt64(byte)) }
        feed(UInt64(entries.count))
        for entry in entries {
            feed(UInt64(entry.kind.rawValue) << 40 ^ UInt64(UInt32(bitPattern: entry.ref)) ^ UInt64(bitPattern: entry.addedAt ?? -1) << 8)
        }
        var rng = SplitMix64(seed: hash)
        let alphabet = SpotifyID.alphabet
        return String(decoding: (0..<32).map { _ in alphabet[rng.below(62)] }, as: UTF8.self)
    }
}

public struct Library: Sendable {
    public let size: LibrarySize
    public let seed: UInt64
    public var users: [User]
    /// The playlists the user follows, in `/me/playlists` order (new and re-followed ones first).
    public var playlists: [Playlist]
    /// Playlists the user unfollowed (or deleted, for their own): still readable and writable by
    /// id, and followed again by id.
    public var unfollowed: [Playlist] = []
    /// Liked songs, most recently added first (as Spotify returns them).
    public var liked: [Entry]
    /// Saved episodes ("Your Episodes"), most recently added first; not part of Liked Songs.
    public var savedEpisodes: [Entry] = []
    /// Items added through the API that the pool lacks; `Entry.Kind.foreign` refs index it.
    public var foreign: [ForeignItem] = []
    /// `foreign` by canonical URI, so adding the same URI twice reuses one ref.
    var foreignRefs: [String: Int32] = [:]
    public let pool: Pool
    /// Counter for ids of playlists created through the API or the control endpoint.
    public var created = 0

    public var me: User { users[0] }

    /// A followed or unfollowed playlist.
    public func playlist(id: String) -> Playlist? { playlists.first { $0.id == id } ?? unfollowed.first { $0.id == id } }
    public func playlistIndex(id: String) -> Int? { playlists.firstIndex { $0.id == id } }
    public func isFollowed(_ id: String) -> Bool { playlists.contains { $0.id == id } }

    /// Where a playlist sits: in `playlists` (followed) or `unfollowed`.
    enum Place: Equatable {
        case followed(Int)
        case unfollowed(Int)
    }

    func place(of id: String) -> Place? {
        if let index = playlists.firstIndex(where: { $0.id == id }) { return .followed(index) }
        if let index = unfollowed.firstIndex(where: { $0.id == id }) { return .unfollowed(index) }
        return nil
    }

    subscript(place: Place) -> Playlist {
        get {
            switch place {
            case let .followed(index): playlists[index]
            case let .unfollowed(index): unfollowed[index]
            }
        }
        set {
            switch place {
            case let .followed(index): playlists[index] = newValue
            case let .unfollowed(index): unfollowed[index] = newValue
            }
        }
    }

    /// The id of the next created playlist: fixed by the size and a counter, so removing
    /// playlists never makes an id come round again.
    mutating func nextCreatedID() -> String {
        let index = size.playlistCount + 10_000 + created
        created += 1
        return SpotifyID.make(seed: seed, namespace: 10, index: index)
    }

    public var totalItems: Int { playlists.reduce(0) { $0 + $1.entries.count } }
}
