import TimbreCore

/// Saving to or removing from the user's library — liking tracks and episodes, following and
/// unfollowing (Spotify's only way to delete) playlists: `PUT` / `DELETE /me/library?uris=`
/// (≤ 40 a request). Both are idempotent, so an interrupted one is finished by sending it again.
/// Only the items whose state the edit changes are recorded, so an undo touches nothing else.
public struct LibraryEdit: Equatable, Sendable, Codable {
    /// The items whose saved state the edit changes.
    public var uris: [String]
    /// True: save (like, follow); false: remove (unlike, unfollow).
    public var save: Bool
    /// A playlist this edit created to bring back a deleted one (`LibraryChange.revive`): the
    /// entries put in it after its creation, in order. Its id is in `uris` once Spotify answered
    /// (journalled before the first entry is sent), so an interrupted one is finished by adding
    /// what is missing — never by creating it again. nil for every other edit (and older rows).
    public var fill: [String]?

    public init(uris: [String], save: Bool, fill: [String]? = nil) {
        self.uris = uris
        self.save = save
        self.fill = fill
    }

    public static let maxURIs = 40

    public var inverse: LibraryEdit { LibraryEdit(uris: uris, save: !save) }

    /// The URIs a request at a time.
    public var chunks: [[String]] {
        stride(from: 0, to: uris.count, by: Self.maxURIs).map { Array(uris[$0..<min($0 + Self.maxURIs, uris.count)]) }
    }

    /// The playlists among the items (`spotify:playlist:ID` → ID).
    public var playlistIDs: [SpotifyID] {
        uris.compactMap { $0.hasPrefix("spotify:playlist:") ? SpotifyID(String($0.dropFirst("spotify:playlist:".count))) : nil }
    }

    /// What the journal and the outcome name: the first playlist it follows or unfollows, else Liked Songs.
    var target: PlaylistRef { playlistIDs.first.map { .playlist($0) } ?? .liked }

    /// Whether any item lives in Liked Songs (a track or an episode).
    public var touchesLikedSongs: Bool { uris.contains { !$0.hasPrefix("spotify:playlist:") } }
}
