import Foundation

/// A Spotify ID: exactly 22 characters of [0-9A-Za-z]. Anything else is rejected before it can
/// reach a URL, a query or the cache.
public struct SpotifyID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard text.utf8.count == 22, text.utf8.allSatisfy(Self.isBase62) else { return nil }
        rawValue = text
    }

    /// Whether `utf8` would make a valid ID (for text that is not a `String` yet).
    @inlinable
    public static func isValid(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.count == 22 && utf8.allSatisfy(isBase62)
    }

    public var description: String { rawValue }
    public static func < (a: SpotifyID, b: SpotifyID) -> Bool { a.rawValue < b.rawValue }

    @inlinable
    public static func isBase62(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }
}

/// Stored (in the journal, in files timbre writes) as its 22 characters; anything else read back
/// is refused rather than carried on as text.
extension SpotifyID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = SpotifyID(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a Spotify ID (22 characters of 0-9, A-Z, a-z)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// What a user may type to name a playlist: an ID, `spotify:playlist:ID`, an
/// `https://open.spotify.com/playlist/ID?si=…` link, or `liked` for Liked Songs.
public enum PlaylistRef: Hashable, Sendable, CustomStringConvertible {
    case liked
    case playlist(SpotifyID)

    public static func parse(_ input: String) throws(InvalidReference) -> PlaylistRef {
        let text = input.trimmingCharacters(in: .whitespaces)
        if text.lowercased() == "liked" { return .liked }
        if let id = SpotifyID(text) { return .playlist(id) }
        if text.hasPrefix("spotify:playlist:"), let id = SpotifyID(String(text.dropFirst("spotify:playlist:".count))) {
            return .playlist(id)
        }
        if let url = URLComponents(string: text), url.scheme?.lowercased() == "https",
            url.host?.lowercased() == "open.spotify.com"
        {
            var parts = url.path.split(separator: "/").map(String.init)
            // Localised links: /intl-de/playlist/ID
            if parts.first?.hasPrefix("intl-") == true { parts.removeFirst() }
            if parts.count == 2, parts[0] == "playlist", let id = SpotifyID(parts[1]) { return .playlist(id) }
        }
        throw InvalidReference(input: input)
    }

    /// The form timbre stores (`description`): exactly `liked` or an ID, nothing a person would type.
    public init?(stored text: String) {
        if text == "liked" {
            self = .liked
        } else if let id = SpotifyID(text) {
            self = .playlist(id)
        } else {
            return nil
        }
    }

    public var id: SpotifyID? {
        if case .playlist(let id) = self { return id }
        return nil
    }

    public var description: String {
        switch self {
        case .liked: return "liked"
        case .playlist(let id): return id.rawValue
        }
    }
}

public struct InvalidReference: UserFacingError, Equatable {
    public let input: String
    public var message: String { "'\(TerminalText.preview(input, limit: 80))' is not a playlist reference" }
    public var hint: String? {
        "use a playlist's name (or the start of it) as `timbre playlists` lists it, its ID (22 letters and digits), spotify:playlist:ID, https://open.spotify.com/playlist/ID, or `liked`; a playlist new on Spotify needs `timbre sync` first"
    }
    public var exitStatus: ExitStatus { .usage }
}
