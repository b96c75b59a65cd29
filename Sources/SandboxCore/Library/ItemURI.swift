/// A Spotify URI as the write endpoints take them: `spotify:track:ID`, `spotify:episode:ID`,
/// `spotify:playlist:ID`, `spotify:local:Artist:Album:Title:Seconds` (each part form-encoded), or
/// another catalogue kind the sandbox does not keep (album, artist, show, audiobook, user).
public enum ItemURI: Sendable, Equatable {
    case track(String)
    case episode(String)
    case playlist(String)
    case local(Pool.LocalFile)
    case other(kind: String, id: String)

    static let otherKinds: Set<String> = ["album", "artist", "show", "audiobook", "user"]

    /// nil when the text is not a well-formed URI (ids must be 22 base62 characters).
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "spotify" else { return nil }
        switch (parts[1], parts.count) {
        case ("track", 3) where SpotifyID.isValid(parts[2]): self = .track(parts[2])
        case ("episode", 3) where SpotifyID.isValid(parts[2]): self = .episode(parts[2])
        case ("playlist", 3) where SpotifyID.isValid(parts[2]): self = .playlist(parts[2])
        case ("local", 6):
            guard let seconds = Int(parts[5]), seconds >= 0, seconds < 1_000_000 else { return nil }
            self = .local(
                Pool.LocalFile(
                    artist: FormEncoding.unescape(parts[2]), album: FormEncoding.unescape(parts[3]),
                    title: FormEncoding.unescape(parts[4]), seconds: seconds
                ))
        case let (kind, 3) where ItemURI.otherKinds.contains(kind) && SpotifyID.isValid(parts[2]):
            self = .other(kind: kind, id: parts[2])
        default:
            return nil
        }
    }

    /// The URI as the sandbox writes it (local parts re-encoded the way Spotify encodes them), so
    /// two spellings of one local file compare equal.
    public var text: String {
        switch self {
        case let .track(id): "spotify:track:\(id)"
        case let .episode(id): "spotify:episode:\(id)"
        case let .playlist(id): "spotify:playlist:\(id)"
        case let .local(file): file.uri
        case let .other(kind, id): "spotify:\(kind):\(id)"
        }
    }

    /// Something a playlist can hold.
    public var isPlaylistItem: Bool {
        switch self {
        case .track, .episode, .local: true
        case .playlist, .other: false
        }
    }
}

/// An item added through the API that the pool does not have.
public enum ForeignItem: Sendable, Equatable {
    /// A well-formed track id unknown to the pool: rendered with data generated from the id.
    case track(String)
    /// Likewise an episode.
    case episode(String)
    /// A local file, as its URI spelled it.
    case local(Pool.LocalFile)

    public var uri: String {
        switch self {
        case let .track(id): "spotify:track:\(id)"
        case let .episode(id): "spotify:episode:\(id)"
        case let .local(file): file.uri
        }
    }
}
