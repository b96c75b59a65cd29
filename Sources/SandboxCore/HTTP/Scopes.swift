/// OAuth scopes. A token carries the scopes asked for at `/authorize` (a refresh keeps them);
/// writes check them, reads do not.
public enum Scopes {
    public static let playlistModifyPublic = "playlist-modify-public"
    public static let playlistModifyPrivate = "playlist-modify-private"
    public static let libraryModify = "user-library-modify"

    /// Every scope Spotify's accounts service knows; `/authorize` refuses others with
    /// `error=invalid_scope`. Minted refresh tokens carry them all.
    public static let known = [
        "ugc-image-upload", "user-read-playback-state", "user-modify-playback-state", "user-read-currently-playing",
        "app-remote-control", "streaming", "playlist-read-private", "playlist-read-collaborative",
        "playlist-modify-private", "playlist-modify-public", "user-follow-modify", "user-follow-read",
        "user-read-playback-position", "user-top-read", "user-read-recently-played", "user-library-modify",
        "user-library-read", "user-read-email", "user-read-private", "user-personalized",
    ]

    /// A space-separated scope list as given (order kept, duplicates and empty parts dropped);
    /// nil when a name is unknown.
    static func parse(_ text: String) -> [String]? {
        var scopes: [String] = []
        for part in text.split(separator: " ").map(String.init) where !scopes.contains(part) {
            guard known.contains(part) else { return nil }
            scopes.append(part)
        }
        return scopes
    }

    /// The scope a change to a playlist needs: the public or the private modify scope by its
    /// visibility (collaborative playlists are private).
    static func modify(_ playlist: Playlist) -> String {
        playlist.isPublic && !playlist.collaborative ? playlistModifyPublic : playlistModifyPrivate
    }
}
