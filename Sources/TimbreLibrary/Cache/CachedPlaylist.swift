import Foundation
import TimbreCore

/// One playlist as the cache holds it. Liked Songs is the playlist with id `liked`.
public struct CachedPlaylist: Sendable, Equatable {
    public static let likedID = "liked"
    public static let likedName = "Liked Songs"

    /// `liked` or the 22-character Spotify ID.
    public var id: String
    public var name: String
    public var ownerID: String
    public var ownerName: String?
    /// The snapshot the stored items belong to (nil for Liked Songs, and until items were stored).
    public var snapshotID: String?
    /// Spotify's total for the stored snapshot (null and malformed entries included).
    public var trackCount: Int
    public var collaborative: Bool
    public var isPublic: Bool
    /// When the items were last stored; nil when they never were.
    public var syncedAt: Date?
    /// Spotify refused to show the items (development-mode apps only see playlists the user owns
    /// or collaborates on).
    public var unavailable: Bool

    public init(
        id: String, name: String, ownerID: String, ownerName: String?, snapshotID: String?, trackCount: Int,
        collaborative: Bool, isPublic: Bool, syncedAt: Date?, unavailable: Bool
    ) {
        self.id = id
        self.name = name
        self.ownerID = ownerID
        self.ownerName = ownerName
        self.snapshotID = snapshotID
        self.trackCount = trackCount
        self.collaborative = collaborative
        self.isPublic = isPublic
        self.syncedAt = syncedAt
        self.unavailable = unavailable
    }

    public var isLiked: Bool { id == Self.likedID }

    /// The owner of Spotify's own editorial and algorithmic playlists.
    public static let spotifyOwnerID = "spotify"

    /// Why Spotify does not show a playlist's entries to this app, as a person reads it.
    public static func unavailableReason(ownerID: String) -> String {
        ownerID == spotifyOwnerID
            ? "Spotify does not let apps read its own playlists"
            : "Spotify lets this app read only playlists you own or collaborate on"
    }

    /// `unavailableReason` for this playlist, when it is unavailable.
    public var unavailableReason: String? { unavailable ? Self.unavailableReason(ownerID: ownerID) : nil }

    /// One element of `timbre playlists --json`, keys in docs/CLI.md's order.
    public var json: JSONValue {
        .object(
            [
                ("id", .string(id)),
                ("name", .string(name)),
                ("owner_id", .string(ownerID)),
                ("owner_name", .optional(ownerName)),
                ("snapshot_id", .optional(snapshotID)),
                ("track_count", .int(trackCount)),
                ("collaborative", .bool(collaborative)),
                ("public", .bool(isPublic)),
                ("synced_at", .optional(syncedAt.map { ClockText.iso($0) })),
            ] + (unavailable ? [("unavailable", .string(unavailableReason ?? ""))] : []))
    }
}
