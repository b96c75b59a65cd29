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
    /// A paging object of playlists (`/me/playlists`); pages of entries are `EntryPage`s.
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
        /// The object carries `tracks{…}` and no `items{…}`: a server of the shape before 2026,
        /// whose entries are read and written through `/tracks`. Decided by what the server sends,
        /// never by a 404.
        var legacyShape = false

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
            playlist.legacyShape = itemsTotal == nil && tracksTotal != nil
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

    /// A whole response body as `T`; a body that is not JSON, or not a `T` object, throws.
    static func decode<T: JSONReadable>(_ data: Data, as type: T.Type) throws -> T {
        try JSONReader.read(data) { reader in
            guard let value = try T.read(&reader) else { throw MalformedPage() }
            return value
        }
    }
}
