/// Spotify's search query, roughly: free words, and the field filters `track:`, `artist:`,
/// `album:` and `year:` (`year:1999` or `year:1990-1999`); a value may be quoted
/// (`artist:"the band"`). Every word and filter must match (case-insensitive substrings); there
/// are no operators (`OR`, `NOT` are words like any other).
public struct SearchQuery: Sendable, Equatable {
    public var words: [String] = []
    public var track: [String] = []
    public var artist: [String] = []
    public var album: [String] = []
    public var years: ClosedRange<Int>?

    public var isEmpty: Bool { words.isEmpty && track.isEmpty && artist.isEmpty && album.isEmpty && years == nil }

    public init(parsing text: String) {
        for token in SearchQuery.tokens(text) {
            guard let colon = token.firstIndex(of: ":") else {
                words.append(token.lowercased())
                continue
            }
            let field = token[..<colon].lowercased()
            let value = String(token[token.index(after: colon)...]).lowercased()
            switch field {
            case "track": if !value.isEmpty { track.append(value) }
            case "artist": if !value.isEmpty { artist.append(value) }
            case "album": if !value.isEmpty { album.append(value) }
            case "year":
                let bounds = value.split(separator: "-", maxSplits: 1).compactMap { Int($0) }
                if bounds.count == 1 { years = bounds[0]...bounds[0] }
                if bounds.count == 2, bounds[0] <= bounds[1] { years = bounds[0]...bounds[1] }
            default: words.append(token.lowercased())
            }
        }
    }

    /// Space-separated tokens; double quotes group (and are dropped), also after `field:`.
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
            } else if character.isWhitespace, !quoted {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    private static func year(of album: Pool.Album) -> Int? { Int(album.releaseDate.prefix(4)) }

    public func matches(_ track: Pool.Track) -> Bool {
        let name = track.name.lowercased()
        let artists = track.artists.map { $0.name.lowercased() }
        let albumName = track.album.name.lowercased()
        let all = ([name, albumName] + artists).joined(separator: " ")
        return words.allSatisfy { all.contains($0) }
            && self.track.allSatisfy { name.contains($0) }
            && artist.allSatisfy { needle in artists.contains { $0.contains(needle) } }
            && album.allSatisfy { albumName.contains($0) }
            && years.map { range in SearchQuery.year(of: track.album).map(range.contains) ?? false } ?? true
    }

    /// Albums: words in the album's name and artists; a `track:` filter matches no album.
    public func matches(_ album: Pool.Album) -> Bool {
        guard track.isEmpty else { return false }
        let name = album.name.lowercased()
        let artists = album.artists.map { $0.name.lowercased() }
        let all = ([name] + artists).joined(separator: " ")
        return words.allSatisfy { all.contains($0) }
            && artist.allSatisfy { needle in artists.contains { $0.contains(needle) } }
            && self.album.allSatisfy { name.contains($0) }
            && years.map { range in SearchQuery.year(of: album).map(range.contains) ?? false } ?? true
    }

    /// Playlists: words in the name; any field filter matches no playlist.
    public func matches(playlistNamed name: String) -> Bool {
        guard track.isEmpty, artist.isEmpty, album.isEmpty, years == nil else { return false }
        let lowered = name.lowercased()
        return words.allSatisfy { lowered.contains($0) }
    }
}
