import Foundation
import TimbreCore

/// The Web API's JSON, decoded leniently: unknown fields are ignored, and a field of an unexpected
/// type reads as missing rather than failing the page. Only a body that is not JSON at all (or not
/// a paging object) is a decoding error.
enum API {
    /// A paging object (`/me/playlists`, `/me/tracks`, `/playlists/{id}/items|tracks`).
    struct Page<Element: Decodable & Sendable>: Decodable, Sendable {
        /// nil: an element that was not an object; it keeps its position.
        var items: [Element?]
        var total: Int?
        var next: String?
        var limit: Int?
        var offset: Int?

        enum CodingKeys: String, CodingKey { case items, total, next, limit, offset }

        init(items: [Element?], total: Int?, next: String? = nil) {
            self.items = items
            self.total = total
            self.next = next
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            // `items` is the one field a page cannot do without.
            items = try c.decode([Lenient<Element>].self, forKey: .items).map(\.value)
            total = c.lenient(Int.self, .total)
            next = c.lenient(String.self, .next)
            limit = c.lenient(Int.self, .limit)
            offset = c.lenient(Int.self, .offset)
        }
    }

    /// An element that failed to decode becomes nil instead of failing its page.
    struct Lenient<T: Decodable>: Decodable {
        var value: T?
        init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
    }

    struct Named: Decodable, Sendable {
        var name: String?
        init(name: String?) { self.name = name }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            name = c.lenient(String.self, AnyKey("name"))
        }
    }

    struct Owner: Decodable, Sendable {
        var id: String?
        var displayName: String?
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            id = c.lenient(String.self, AnyKey("id"))
            displayName = c.lenient(String.self, AnyKey("display_name"))
        }
    }

    /// A simplified playlist object. 2026 objects carry `items{total}`, older ones `tracks{total}`.
    struct Playlist: Decodable, Sendable {
        var id: String?
        var name: String?
        var owner: Owner?
        var snapshotID: String?
        var collaborative: Bool?
        var isPublic: Bool?
        var total: Int?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            id = c.lenient(String.self, AnyKey("id"))
            name = c.lenient(String.self, AnyKey("name"))
            owner = c.lenient(Owner.self, AnyKey("owner"))
            snapshotID = c.lenient(String.self, AnyKey("snapshot_id"))
            collaborative = c.lenient(Bool.self, AnyKey("collaborative"))
            isPublic = c.lenient(Bool.self, AnyKey("public"))
            total = c.lenient(Total.self, AnyKey("items"))?.total ?? c.lenient(Total.self, AnyKey("tracks"))?.total
        }
    }

    struct Total: Decodable, Sendable {
        var total: Int?
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            total = c.lenient(Int.self, AnyKey("total"))
        }
    }

    /// A track, local file or episode (the object under `item` or `track`).
    struct Item: Decodable, Sendable {
        var id: String?
        var uri: String?
        var name: String?
        var type: String?
        var durationMS: Int?
        var isLocal: Bool?
        var artists: [Named]?
        var album: Named?
        var show: Named?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            id = c.lenient(String.self, AnyKey("id"))
            uri = c.lenient(String.self, AnyKey("uri"))
            name = c.lenient(String.self, AnyKey("name"))
            type = c.lenient(String.self, AnyKey("type"))
            durationMS = c.lenient(Int.self, AnyKey("duration_ms"))
            isLocal = c.lenient(Bool.self, AnyKey("is_local"))
            artists = c.lenient([Lenient<Named>].self, AnyKey("artists"))?.compactMap(\.value)
            album = c.lenient(Named.self, AnyKey("album"))
            show = c.lenient(Named.self, AnyKey("show"))
        }
    }

    /// One entry of a playlist page (`item` in 2026, `track` before) or of `/me/tracks` (`track`).
    struct Entry: Decodable, Sendable {
        var addedAt: String?
        var isLocal: Bool?
        /// nil: the entry's `item`/`track` is null or missing.
        var item: Item?

        init(addedAt: String?, isLocal: Bool?, item: Item?) {
            self.addedAt = addedAt
            self.isLocal = isLocal
            self.item = item
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            addedAt = c.lenient(String.self, AnyKey("added_at"))
            isLocal = c.lenient(Bool.self, AnyKey("is_local"))
            item = c.lenient(Item.self, AnyKey("item")) ?? c.lenient(Item.self, AnyKey("track"))
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func decodePage<Element>(_ data: Data, as: Element.Type) throws -> Page<Element> {
        try JSONDecoder().decode(Page<Element>.self, from: data)
    }
}

extension KeyedDecodingContainer {
    /// The value, or nil when the key is missing, null, or of another type.
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}

/// What one API entry becomes in the cache.
enum DecodedEntry: Sendable, Equatable {
    case item(CachedItem)
    /// `item: null` (or missing): omitted, its position stays unused.
    case null
    /// Present but unusable (an id that is not 22 base62 characters, no URI): skipped with a warning.
    case malformed(String)
}

extension API.Entry {
    func decoded(position: Int) -> DecodedEntry {
        guard let item else { return .null }
        let name = item.name ?? ""
        let duration = max(0, item.durationMS ?? 0)
        if item.type == "episode" {
            guard let id = item.id, SpotifyID(id) != nil else { return .malformed("episode id \(item.id.map { "'\($0)'" } ?? "missing")") }
            let show = item.show?.name ?? item.album?.name
            return .item(CachedItem(position: position, kind: .episode, id: id, uri: item.uri ?? "spotify:episode:\(id)", name: name,
                                    artists: show.map { [$0] } ?? [], album: show, durationMS: duration, addedAt: addedAt))
        }
        let artists = (item.artists ?? []).compactMap(\.name)
        if isLocal == true || item.isLocal == true {
            guard let uri = item.uri, uri.hasPrefix("spotify:local:") else { return .malformed("local file without a spotify:local: URI") }
            return .item(CachedItem(position: position, kind: .local, id: nil, uri: uri, name: name, artists: artists,
                                    album: item.album?.name, durationMS: duration, addedAt: addedAt))
        }
        guard let id = item.id, SpotifyID(id) != nil else { return .malformed("track id \(item.id.map { "'\($0)'" } ?? "missing")") }
        return .item(CachedItem(position: position, kind: .track, id: id, uri: item.uri ?? "spotify:track:\(id)", name: name,
                                artists: artists, album: item.album?.name, durationMS: duration, addedAt: addedAt))
    }
}
