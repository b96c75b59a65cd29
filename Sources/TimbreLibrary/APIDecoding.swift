import Foundation
import TimbreCore

/// Something read from the Web API's JSON with `JSONReader`.
protocol JSONReadable: Sendable {
    /// The value, or nil (with the value skipped) when it is not an object. Throws only when the
    /// document itself is not JSON, or lacks what the type cannot do without.
    static func read(_ reader: inout JSONReader) throws -> Self?
}

extension JSONReadable {
    /// Reads an object member by member: `member` is called with each key and must consume its value.
    static func object(_ reader: inout JSONReader, _ member: (inout JSONReader, JSONReader.Key) throws -> Void) throws -> Bool {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return false
        }
        var more = try reader.enterObject()
        while more {
            let key = try reader.readKey()
            try member(&reader, key)
            more = try reader.nextMember()
        }
        return true
    }
}

/// The Web API's JSON, read leniently with `JSONReader` (a full sync reads thousands of pages;
/// `JSONDecoder` was most of its CPU time): unknown fields are skipped, and a field of an
/// unexpected type reads as missing rather than failing the page. Only a body that is not JSON at
/// all (or not a paging object) is a decoding error.
enum API {
    /// A paging object (`/me/playlists`, `/me/tracks`, `/playlists/{id}/items|tracks`).
    struct Page<Element: JSONReadable>: JSONReadable {
        /// nil: an element that was not an object; it keeps its position.
        var items: [Element?]
        var total: Int?
        var next: String?

        init(items: [Element?], total: Int?, next: String? = nil) {
            self.items = items
            self.total = total
            self.next = next
        }

        static func read(_ reader: inout JSONReader) throws -> Page? {
            var items: [Element?]?
            var total: Int?
            var next: String?
            let isObject = try object(&reader) { reader, key in
                if reader.key(key, is: "items") {
                    guard try reader.peek() == .array else {
                        try reader.skipValue()
                        return
                    }
                    var list: [Element?] = []
                    var more = try reader.enterArray()
                    while more {
                        list.append(try Element.read(&reader))
                        more = try reader.nextElement()
                    }
                    items = list
                } else if reader.key(key, is: "total") {
                    total = try reader.int()
                } else if reader.key(key, is: "next") {
                    next = try reader.string()
                } else {
                    try reader.skipValue()
                }
            }
            guard isObject else { return nil }
            // `items` is the one field a page cannot do without.
            guard let items else { throw MalformedPage() }
            return Page(items: items, total: total, next: next)
        }
    }

    struct MalformedPage: Error, CustomStringConvertible {
        var description: String { "not a paging object: no items array" }
    }

    struct Owner: JSONReadable {
        var id: String?
        var displayName: String?

        static func read(_ reader: inout JSONReader) throws -> Owner? {
            var owner = Owner()
            let isObject = try object(&reader) { reader, key in
                if reader.key(key, is: "id") {
                    owner.id = try reader.string()
                } else if reader.key(key, is: "display_name") {
                    owner.displayName = try reader.string()
                } else {
                    try reader.skipValue()
                }
            }
            return isObject ? owner : nil
        }
    }

    /// A simplified playlist object. 2026 objects carry `items{total}`, older ones `tracks{total}`.
    struct Playlist: JSONReadable {
        var id: String?
        var name: String?
        var owner: Owner?
        var snapshotID: String?
        var collaborative: Bool?
        var isPublic: Bool?
        var total: Int?

        static func read(_ reader: inout JSONReader) throws -> Playlist? {
            var playlist = Playlist()
            var itemsTotal: Int?
            var tracksTotal: Int?
            let isObject = try object(&reader) { reader, key in
                if reader.key(key, is: "id") {
                    playlist.id = try reader.string()
                } else if reader.key(key, is: "name") {
                    playlist.name = try reader.string()
                } else if reader.key(key, is: "owner") {
                    playlist.owner = try Owner.read(&reader)
                } else if reader.key(key, is: "snapshot_id") {
                    playlist.snapshotID = try reader.string()
                } else if reader.key(key, is: "collaborative") {
                    playlist.collaborative = try reader.bool()
                } else if reader.key(key, is: "public") {
                    playlist.isPublic = try reader.bool()
                } else if reader.key(key, is: "items") {
                    itemsTotal = try totalField(&reader)
                } else if reader.key(key, is: "tracks") {
                    tracksTotal = try totalField(&reader)
                } else {
                    try reader.skipValue()
                }
            }
            playlist.total = itemsTotal ?? tracksTotal
            return isObject ? playlist : nil
        }

        /// `{"total": N, …}` → N.
        private static func totalField(_ reader: inout JSONReader) throws -> Int? {
            var total: Int?
            _ = try object(&reader) { reader, key in
                if reader.key(key, is: "total") { total = try reader.int() } else { try reader.skipValue() }
            }
            return total
        }
    }

    /// A track, local file or episode (the object under `item` or `track`).
    struct Item: JSONReadable {
        var id: String?
        var uri: String?
        var name: String?
        var type: String?
        var durationMS: Int?
        var isLocal: Bool?
        var artists: [String]?
        var album: String?
        var show: String?

        static func read(_ reader: inout JSONReader) throws -> Item? {
            var item = Item()
            let isObject = try object(&reader) { reader, key in
                if reader.key(key, is: "id") {
                    item.id = try reader.string()
                } else if reader.key(key, is: "uri") {
                    item.uri = try reader.string()
                } else if reader.key(key, is: "name") {
                    item.name = try reader.string()
                } else if reader.key(key, is: "type") {
                    item.type = try reader.string()
                } else if reader.key(key, is: "duration_ms") {
                    item.durationMS = try reader.int()
                } else if reader.key(key, is: "is_local") {
                    item.isLocal = try reader.bool()
                } else if reader.key(key, is: "artists") {
                    item.artists = try names(&reader)
                } else if reader.key(key, is: "album") {
                    item.album = try name(&reader)
                } else if reader.key(key, is: "show") {
                    item.show = try name(&reader)
                } else {
                    try reader.skipValue()
                }
            }
            return isObject ? item : nil
        }

        /// `{"name": "…", …}` → the name; nil when missing or not an object.
        private static func name(_ reader: inout JSONReader) throws -> String? {
            var name: String?
            _ = try object(&reader) { reader, key in
                if reader.key(key, is: "name") { name = try reader.string() } else { try reader.skipValue() }
            }
            return name
        }

        /// `[{"name": …}, …]` → the names that are strings; nil when not an array.
        private static func names(_ reader: inout JSONReader) throws -> [String]? {
            guard try reader.peek() == .array else {
                try reader.skipValue()
                return nil
            }
            var names: [String] = []
            var more = try reader.enterArray()
            while more {
                if let name = try name(&reader) { names.append(name) }
                more = try reader.nextElement()
            }
            return names
        }
    }

    /// One entry of a playlist page (`item` in 2026, `track` before) or of `/me/tracks` (`track`).
    struct Entry: JSONReadable {
        var addedAt: String?
        var isLocal: Bool?
        /// nil: the entry's `item`/`track` is null or missing.
        var item: Item?

        init(addedAt: String? = nil, isLocal: Bool? = nil, item: Item? = nil) {
            self.addedAt = addedAt
            self.isLocal = isLocal
            self.item = item
        }

        static func read(_ reader: inout JSONReader) throws -> Entry? {
            var entry = Entry()
            var track: Item?
            let isObject = try object(&reader) { reader, key in
                if reader.key(key, is: "added_at") {
                    entry.addedAt = try reader.string()
                } else if reader.key(key, is: "is_local") {
                    entry.isLocal = try reader.bool()
                } else if reader.key(key, is: "item") {
                    entry.item = try Item.read(&reader)
                } else if reader.key(key, is: "track") {
                    track = try Item.read(&reader)
                } else {
                    try reader.skipValue()
                }
            }
            entry.item = entry.item ?? track
            return isObject ? entry : nil
        }
    }

    /// A whole response body as `T`; a body that is not JSON, or not a `T` object, throws.
    static func decode<T: JSONReadable>(_ data: Data, as type: T.Type) throws -> T {
        try JSONReader.read(data) { reader in
            guard let value = try T.read(&reader) else { throw MalformedPage() }
            return value
        }
    }

    static func decodePage<Element>(_ data: Data, as: Element.Type) throws -> Page<Element> {
        try decode(data, as: Page<Element>.self)
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
            let show = item.show ?? item.album
            return .item(CachedItem(position: position, kind: .episode, id: id, uri: item.uri ?? "spotify:episode:\(id)", name: name,
                                    artists: show.map { [$0] } ?? [], album: show, durationMS: duration, addedAt: addedAt))
        }
        let artists = item.artists ?? []
        if isLocal == true || item.isLocal == true {
            guard let uri = item.uri, uri.hasPrefix("spotify:local:") else { return .malformed("local file without a spotify:local: URI") }
            return .item(CachedItem(position: position, kind: .local, id: nil, uri: uri, name: name, artists: artists,
                                    album: item.album, durationMS: duration, addedAt: addedAt))
        }
        guard let id = item.id, SpotifyID(id) != nil else { return .malformed("track id \(item.id.map { "'\($0)'" } ?? "missing")") }
        return .item(CachedItem(position: position, kind: .track, id: id, uri: item.uri ?? "spotify:track:\(id)", name: name,
                                artists: artists, album: item.album, durationMS: duration, addedAt: addedAt))
    }
}
