import Foundation

/// What a user may type to name something to put in a playlist: a track or episode URI
/// (`spotify:track:ID`, `spotify:episode:ID`) or its open.spotify.com link. Albums come with the
/// catalogue commands.
public struct ItemRef: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable { case track, episode, album }

    public var kind: Kind
    public var id: SpotifyID

    public var uri: String { "spotify:\(kind.rawValue):\(id.rawValue)" }
    public var description: String { uri }

    public static func parse(_ input: String) throws(InvalidItem) -> ItemRef {
        let text = input.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3, parts[0] == "spotify", let kind = Kind(rawValue: parts[1]), let id = SpotifyID(parts[2]) {
            return ItemRef(kind: kind, id: id)
        }
        if let url = URLComponents(string: text), url.scheme?.lowercased() == "https", url.host?.lowercased() == "open.spotify.com" {
            var path = url.path.split(separator: "/").map(String.init)
            if path.first?.hasPrefix("intl-") == true { path.removeFirst() }
            if path.count == 2, let kind = Kind(rawValue: path[0]), let id = SpotifyID(path[1]) { return ItemRef(kind: kind, id: id) }
        }
        throw InvalidItem(input: input)
    }
}

public struct InvalidItem: UserFacingError, Equatable {
    public let input: String
    public var message: String { "'\(TerminalText.preview(input, limit: 80))' is not a track, episode or album" }
    public var hint: String? { "use spotify:track:ID, spotify:episode:ID, spotify:album:ID, or their https://open.spotify.com/… links" }
    public var exitStatus: ExitStatus { .usage }
}
