/// A `/v1` endpoint, from the path's parts after `/v1/`.
enum APIRoute: Equatable {
    case me
    case myPlaylists
    case myTracks
    case myTracksContains
    /// `/me/library` (2026; not in `--legacy`).
    case myLibrary
    case myLibraryContains
    case userPlaylists(String)
    case playlist(String)
    /// `/playlists/{id}/items`, or `/tracks` (`tracksPath`).
    case playlistEntries(String, tracksPath: Bool)
    case playlistFollowers(String)
    case search
    case track(String)
    case albumTracks(String)
    /// `/me/player` (`""`) and `/me/player/NAME` (PlayerAPI.swift).
    case player(String)

    static let playerEndpoints: Set<String> = [
        "devices", "currently-playing", "queue", "recently-played", "play", "pause", "seek", "repeat", "volume", "shuffle",
        "next", "previous",
    ]

    /// nil: 404 "Service not found".
    init?(parts: [String], legacy: Bool) {
        switch parts.count {
        case 1 where parts[0] == "me": self = .me
        case 1 where parts[0] == "search": self = .search
        case 2 where parts[0] == "me":
            switch parts[1] {
            case "playlists": self = .myPlaylists
            case "tracks": self = .myTracks
            case "library" where !legacy: self = .myLibrary
            case "player": self = .player("")
            default: return nil
            }
        case 2 where parts[0] == "playlists": self = .playlist(parts[1])
        case 2 where parts[0] == "tracks": self = .track(parts[1])
        case 3 where parts[0] == "me" && parts[1] == "player" && APIRoute.playerEndpoints.contains(parts[2]):
            self = .player(parts[2])
        case 3 where parts[0] == "me" && parts[2] == "contains":
            switch parts[1] {
            case "tracks": self = .myTracksContains
            case "library" where !legacy: self = .myLibraryContains
            default: return nil
            }
        case 3 where parts[0] == "users" && parts[2] == "playlists": self = .userPlaylists(parts[1])
        case 3 where parts[0] == "albums" && parts[2] == "tracks": self = .albumTracks(parts[1])
        case 3 where parts[0] == "playlists":
            switch parts[2] {
            case "items" where !legacy: self = .playlistEntries(parts[1], tracksPath: false)
            case "tracks": self = .playlistEntries(parts[1], tracksPath: true)
            case "followers": self = .playlistFollowers(parts[1])
            default: return nil
            }
        default: return nil
        }
    }

    /// Gone for development-mode apps since 2026 (403): `/playlists/{id}/tracks`, `/me/tracks`
    /// writes and `contains`, `/playlists/{id}/followers` and `POST /users/{id}/playlists`, replaced
    /// by `/items`, `/me/library` and `POST /me/playlists`. (`GET /me/tracks`, Liked Songs, stays.)
    func removedIn2026(method: String) -> Bool {
        switch self {
        case .playlistEntries(_, tracksPath: true), .myTracksContains, .playlistFollowers, .userPlaylists: true
        case .myTracks: method != "GET"
        default: false
        }
    }

    /// The methods it answers; others get 405.
    var methods: Set<String> {
        switch self {
        case .me, .myTracksContains, .myLibraryContains, .search, .track, .albumTracks: ["GET"]
        case .myPlaylists: ["GET", "POST"]
        case .myTracks: ["GET", "PUT", "DELETE"]
        case .myLibrary, .playlistFollowers: ["PUT", "DELETE"]
        case .userPlaylists: ["POST"]
        case .playlist: ["GET", "PUT"]
        case .playlistEntries: ["GET", "POST", "PUT", "DELETE"]
        case let .player(name):
            switch name {
            case "": ["GET", "PUT"]
            case "devices", "currently-playing", "recently-played": ["GET"]
            case "queue": ["GET", "POST"]
            case "next", "previous": ["POST"]
            default: ["PUT"]
            }
        }
    }
}
