/// The sandbox's library: a deterministic function of (size, seed), mutated only through the
/// control endpoint. Tracks, episodes and local files are computed on demand from an index into
/// a shared pool, so a 200,000-item library costs a few megabytes.
public enum LibrarySize: String, CaseIterable, Sendable, Codable {
    case small, medium, large

    var playlistCount: Int { switch self { case .small: 9; case .medium: 60; case .large: 500 } }
    var itemTarget: Int { switch self { case .small: 300; case .medium: 6_000; case .large: 200_000 } }
    var likedCount: Int { switch self { case .small: 50; case .medium: 800; case .large: 5_000 } }
    var trackPool: Int { switch self { case .small: 600; case .medium: 5_000; case .large: 40_000 } }
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
    /// Bumped by every mutation; part of the snapshot id.
    public var version: Int

    /// The signed-in user can read the items in development mode (owner or collaborator).
    public var readableInDevelopmentMode: Bool { owner == 0 || collaborative }

    public var snapshotID: String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: version)
        func feed(_ value: UInt64) { hash = SplitMix64.mix(hash ^ value) }
        for byte in name.utf8 { feed(UInt64(byte)) }
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
    public var playlists: [Playlist]
    /// Liked songs, most recently added first (as Spotify returns them).
    public var liked: [Entry]
    public let pool: Pool
    /// Counter for ids of playlists created through the control endpoint.
    public var created = 0

    public var me: User { users[0] }

    public func playlist(id: String) -> Playlist? { playlists.first { $0.id == id } }
    public func playlistIndex(id: String) -> Int? { playlists.firstIndex { $0.id == id } }

    public var totalItems: Int { playlists.reduce(0) { $0 + $1.entries.count } }
}
