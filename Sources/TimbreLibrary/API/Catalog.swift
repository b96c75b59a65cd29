import Foundation
import TimbreCore
import TimbreNet

/// Spotify's catalogue: search, and an album's tracks (to add a whole album).
public struct Catalog: Sendable {
    public enum Kind: String, Sendable, CaseIterable { case track, album, playlist }

    /// One search result.
    public struct Item: Sendable, Equatable {
        public var kind: String
        public var id: String?
        public var uri: String
        public var name: String
        public var artists: [String]
        public var album: String?
        public var durationMS: Int?

        /// `tracks --json` without `position` and `added_at` (docs/CLI.md).
        public var json: JSONValue {
            .object([
                ("kind", .string(kind)), ("id", .optional(id)), ("uri", .string(uri)), ("name", .string(name)),
                ("artists", .array(artists.map(JSONValue.string))), ("album", .optional(album)),
                ("duration_ms", durationMS.map { .int($0) } ?? .null),
            ])
        }
    }

    let api: any SpotifyAPI

    public init(api: any SpotifyAPI) { self.api = api }

    /// Development-mode apps may ask for at most 10 results a request.
    static let pageSize = 10

    public func search(_ query: String, kind: Kind, limit: Int) async throws -> [Item] {
        var items: [Item] = []
        var offset = 0
        let q = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        while items.count < limit, offset <= 1_000 {
            let size = min(Self.pageSize, limit - items.count)
            let response = try await api.get("search?q=\(q)&type=\(kind.rawValue)&limit=\(size)&offset=\(offset)")
            guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
                let page = object[kind.rawValue + "s"] as? [String: Any]
            else {
                throw SpotifyError.unexpected(status: response.status, bodyPreview: "not a search answer", path: "/search")
            }
            let found = (page["items"] as? [Any] ?? []).compactMap { ($0 as? [String: Any]).flatMap { Self.item($0, kind: kind) } }
            items += found
            offset += size
            if found.isEmpty || page["next"] is NSNull || page["next"] == nil { break }
        }
        return Array(items.prefix(limit))
    }

    /// The track URIs of an album, in album order.
    public func albumTracks(_ id: SpotifyID) async throws -> [String] {
        var uris: [String] = []
        var offset = 0
        while offset < 2_000 {
            let response = try await api.get("albums/\(id.rawValue)/tracks?limit=50&offset=\(offset)")
            guard let page = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
                throw SpotifyError.unexpected(status: response.status, bodyPreview: "not an album's tracks", path: "/albums/\(id.rawValue)/tracks")
            }
            let found = (page["items"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }.filter { $0.hasPrefix("spotify:track:") }
            uris += found
            offset += 50
            if found.isEmpty || !(page["next"] is String) { break }
        }
        return uris
    }

    static func item(_ object: [String: Any], kind: Kind) -> Item? {
        guard let uri = object["uri"] as? String else { return nil }
        let name = object["name"] as? String ?? ""
        switch kind {
        case .track:
            let artists = (object["artists"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            return Item(
                kind: "track", id: object["id"] as? String, uri: uri, name: name, artists: artists,
                album: (object["album"] as? [String: Any])?["name"] as? String, durationMS: object["duration_ms"] as? Int)
        case .album:
            let artists = (object["artists"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            return Item(kind: "album", id: object["id"] as? String, uri: uri, name: name, artists: artists, album: nil, durationMS: nil)
        case .playlist:
            let owner = (object["owner"] as? [String: Any]).flatMap { $0["display_name"] as? String ?? $0["id"] as? String }
            return Item(kind: "playlist", id: object["id"] as? String, uri: uri, name: name, artists: owner.map { [$0] } ?? [], album: nil, durationMS: nil)
        }
    }
}

extension Catalog {
    /// The catalogue track for a title and artist, by the contract's rule: the normalised title and
    /// the first artist equal, the duration within 2,000 ms when it is known; nil when no result of
    /// one search (`track:"…" artist:"…"`, one page of 10) qualifies.
    public func match(title: String, artist: String, durationMS: Int?) async throws -> String? {
        func clean(_ text: String) -> String { text.replacingOccurrences(of: "\"", with: " ").trimmingCharacters(in: .whitespaces) }
        var query = "track:\"\(clean(title))\""
        if !artist.isEmpty { query += " artist:\"\(clean(artist))\"" }
        let wantedTitle = Reordering.normalisedTitle(title)
        let wantedArtist = SearchText.fold(artist)
        for item in try await search(query, kind: .track, limit: Self.pageSize) {
            guard Reordering.normalisedTitle(item.name) == wantedTitle, SearchText.fold(item.artists.first ?? "") == wantedArtist else { continue }
            if let durationMS, let found = item.durationMS, abs(found - durationMS) > 2_000 { continue }
            return item.uri
        }
        return nil
    }
}
