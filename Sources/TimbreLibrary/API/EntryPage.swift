import Foundation
import TimbreCore

/// One page of entries — `/playlists/{id}/items` (`item`, 2026), `/playlists/{id}/tracks` and
/// `/me/tracks` (`track`) — read straight into cache rows, no `String` per field. Lenient like the
/// rest of `API`: unknown fields are skipped and a field of an unexpected type reads as missing;
/// only a body that is not JSON, or has no `items` array, fails the page.
struct EntryPage: JSONReadable {
    /// The page's usable entries, positioned from 0 within the page.
    var rows = EntryRows()
    /// Entries on the page, usable or not: the next page's positions start after them.
    var entries = 0
    var total: Int?
    var next: String?
    /// Why entries were skipped: not an object, an id that is not 22 base62 characters, a local
    /// file without its `spotify:local:` URI. (`item: null` is not malformed: it leaves a gap.)
    var malformed: [String] = []
    /// Liked Songs has no snapshot id: its first page and total stand in for one (likes are added
    /// at the top, so any new like changes the first page). Set when read with `fingerprint: true`.
    var fingerprint: String?

    static func read(_ reader: inout JSONReader) throws -> EntryPage? {
        try read(&reader, fingerprint: false)
    }

    /// A whole response body; one that is not JSON, or not a paging object, throws.
    static func decode(_ data: Data, fingerprint: Bool = false) throws -> EntryPage {
        try JSONReader.read(data) { reader in
            guard let page = try read(&reader, fingerprint: fingerprint) else { throw API.MalformedPage() }
            return page
        }
    }

    static func read(_ reader: inout JSONReader, fingerprint: Bool) throws -> EntryPage? {
        var page = EntryPage()
        var sawItems = false
        var digest: [UInt8]?
        var scratch = Scratch()
        let isObject = try object(&reader) { reader, key in
            if reader.key(key, is: "items") {
                guard try reader.peek() == .array else {
                    try reader.skipValue()
                    return
                }
                // A repeated `items` replaces the earlier one, as any JSON object member does.
                sawItems = true
                page.rows = EntryRows()
                page.entries = 0
                page.malformed = []
                digest = fingerprint ? [] : nil
                var more = try reader.enterArray()
                while more {
                    try page.readEntry(&reader, position: page.entries, digest: &digest, scratch: &scratch)
                    page.entries += 1
                    more = try reader.nextElement()
                }
            } else if reader.key(key, is: "total") {
                page.total = try reader.int()
            } else if reader.key(key, is: "next") {
                page.next = try reader.string()
            } else {
                try reader.skipValue()
            }
        }
        guard isObject else { return nil }
        // `items` is the one field a page cannot do without.
        guard sawItems else { throw API.MalformedPage() }
        if fingerprint { page.fingerprint = Self.fingerprint(total: page.total, digest: digest ?? []) }
        return page
    }

    /// FNV-1a over the total and each entry's added-at, URI and name, each text followed by 0x1F.
    private static func fingerprint(total: Int?, digest: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        String(total ?? -1).utf8.forEach(mix)
        mix(EntryPage.separator)
        digest.forEach(mix)
        return String(hash, radix: 16)
    }

    private static let separator: UInt8 = 0x1F

    /// The fingerprint Liked Songs' first page (50 entries) would have, from the cache's rows of
    /// the list (`entries`, by position); nil when one of those positions has no row (an entry
    /// the cache could not keep, whose text is unknown).
    static func likedFingerprint(total: Int, entries: [CachedEntry]) -> String? {
        var digest: [UInt8] = []
        let first = min(50, total)
        guard entries.count >= first else { return nil }
        for (position, entry) in entries.prefix(first).enumerated() {
            guard entry.position == position else { return nil }
            for text in [entry.addedAt, entry.uri, entry.name] {
                if let text { digest.append(contentsOf: Array(text.utf8)) } else { digest.append(UInt8(ascii: "-")) }
                digest.append(separator)
            }
        }
        return fingerprint(total: total, digest: digest)
    }

    /// Buffers reused for every entry of a page: a name, an artist's id, a track's artist ids.
    struct Scratch {
        var name: [UInt8] = []
        var id: [UInt8] = []
        var ids: [UInt8] = []
    }

    /// `other`'s entries after these (a chunk fetched in several pieces).
    mutating func append(_ other: EntryPage) {
        rows.append(other.rows, positionOffset: entries)
        entries += other.entries
        malformed += other.malformed
    }

    // MARK: Entries

    /// The object under an entry's `item` or `track`; texts already in `rows`.
    private struct Fields {
        var id: EntryRows.Text?
        var uri: EntryRows.Text?
        var name: EntryRows.Text?
        var isEpisode = false
        var durationMS: Int?
        var isLocal: Bool?
        /// A JSON array of the artists' names.
        var artists: EntryRows.Text?
        var album: EntryRows.Text?
        var albumID: EntryRows.Text?
        var releaseDate: EntryRows.Text?
        var show: EntryRows.Text?
        /// For `export`: the artists' ids (comma-separated, one per name), disc and track number,
        /// explicit, ISRC.
        var artistIDs: EntryRows.Text?
        var discNumber: Int?
        var trackNumber: Int?
        var explicit: Bool?
        var isrc: EntryRows.Text?
    }

    private mutating func readEntry(_ reader: inout JSONReader, position: Int, digest: inout [UInt8]?, scratch: inout Scratch) throws {
        let mark = rows.mark
        var addedAt: EntryRows.Text?
        var entryIsLocal: Bool?
        var addedBy: EntryRows.Text?
        var item: Fields?
        var track: Fields?
        let isObject = try Self.object(&reader) { reader, key in
            if reader.key(key, is: "added_at") {
                addedAt = try rows.text { try reader.appendString(to: &$0) }
            } else if reader.key(key, is: "added_by") {
                addedBy = try Self.stringMember("id", &reader, into: &rows)
            } else if reader.key(key, is: "is_local") {
                entryIsLocal = try reader.bool()
            } else if reader.key(key, is: "item") {
                item = try Self.readFields(&reader, into: &rows, scratch: &scratch)
            } else if reader.key(key, is: "track") {
                track = try Self.readFields(&reader, into: &rows, scratch: &scratch)
            } else {
                try reader.skipValue()
            }
        }
        guard isObject else {
            malformed.append("an entry that is not an object")
            digest?.append(contentsOf: [UInt8(ascii: "-"), Self.separator, UInt8(ascii: "-"), Self.separator, UInt8(ascii: "-"), Self.separator])
            return
        }
        let chosen = item ?? track
        if digest != nil {
            for text in [addedAt, chosen?.uri, chosen?.name] {
                if let text { digest?.append(contentsOf: rows.bytes(of: text)) } else { digest?.append(UInt8(ascii: "-")) }
                digest?.append(Self.separator)
            }
        }
        // `item: null` (or missing): omitted, its position stays unused.
        guard let chosen else { return rows.rollBack(to: mark) }
        if let reason = addRow(chosen, position: position, addedAt: addedAt ?? .null, addedBy: addedBy ?? .null, entryIsLocal: entryIsLocal) {
            malformed.append(reason)
            rows.rollBack(to: mark)
        }
    }

    /// Adds the entry's row; returns why it cannot be stored instead, when it cannot.
    private mutating func addRow(_ item: Fields, position: Int, addedAt: EntryRows.Text, addedBy: EntryRows.Text, entryIsLocal: Bool?) -> String? {
        func quoted(_ id: EntryRows.Text?) -> String { id.flatMap { rows.string($0) }.map { "'\($0)'" } ?? "missing" }
        let name = item.name ?? rows.append("")
        let duration = max(0, item.durationMS ?? 0)
        if item.isEpisode {
            guard let id = item.id, rows.isSpotifyID(id) else { return "episode id \(quoted(item.id))" }
            let show = item.show ?? item.album
            let uri = item.uri ?? rows.append("spotify:episode:", id)
            let artists = show.map { rows.appendArray(of: $0) } ?? rows.appendArray([])
            rows.add(
                EntryRows.Row(
                    position: position, kind: .episode, durationMS: duration, id: id, uri: uri, name: name,
                    artists: artists, album: show ?? .null, addedAt: addedAt, explicit: Self.flag(item.explicit), addedBy: addedBy))
            return nil
        }
        let artists = item.artists ?? rows.appendArray([])
        if entryIsLocal == true || item.isLocal == true {
            guard let uri = item.uri, rows.hasPrefix(uri, "spotify:local:") else {
                return "local file without a spotify:local: URI"
            }
            rows.add(
                Self.row(
                    item, position: position, kind: .local, durationMS: duration, id: .null, uri: uri, name: name,
                    artists: artists, addedAt: addedAt, addedBy: addedBy))
            return nil
        }
        guard let id = item.id, rows.isSpotifyID(id) else { return "track id \(quoted(item.id))" }
        let uri = item.uri ?? rows.append("spotify:track:", id)
        rows.add(
            Self.row(
                item, position: position, kind: .track, durationMS: duration, id: id, uri: uri, name: name,
                artists: artists, addedAt: addedAt, addedBy: addedBy))
        return nil
    }

    /// A track's or local file's row.
    private static func row(
        _ item: Fields, position: Int, kind: EntryKind, durationMS: Int, id: EntryRows.Text, uri: EntryRows.Text,
        name: EntryRows.Text, artists: EntryRows.Text, addedAt: EntryRows.Text, addedBy: EntryRows.Text
    ) -> EntryRows.Row {
        func number(_ value: Int?) -> Int32 { value.map { $0 < 0 ? -1 : Int32(clamping: $0) } ?? -1 }
        return EntryRows.Row(
            position: position, kind: kind, durationMS: durationMS, id: id, uri: uri, name: name,
            artists: artists, album: item.album ?? .null, addedAt: addedAt,
            albumID: item.albumID ?? .null, releaseDate: item.releaseDate ?? .null,
            artistIDs: item.artistIDs ?? .null, discNumber: number(item.discNumber), trackNumber: number(item.trackNumber),
            explicit: flag(item.explicit), isrc: item.isrc ?? .null, addedBy: addedBy)
    }

    private static func flag(_ value: Bool?) -> Int8 { value.map { $0 ? 1 : 0 } ?? -1 }

    /// A track, local file or episode object; nil (value skipped) when it is not an object.
    private static func readFields(_ reader: inout JSONReader, into rows: inout EntryRows, scratch: inout Scratch) throws -> Fields? {
        var item = Fields()
        let isObject = try object(&reader) { reader, key in
            if reader.key(key, is: "id") {
                item.id = try rows.text { try reader.appendString(to: &$0) }
            } else if reader.key(key, is: "uri") {
                item.uri = try rows.text { try reader.appendString(to: &$0) }
            } else if reader.key(key, is: "name") {
                item.name = try rows.text { try reader.appendString(to: &$0) }
            } else if reader.key(key, is: "type") {
                item.isEpisode = try reader.stringEquals("episode")
            } else if reader.key(key, is: "duration_ms") {
                item.durationMS = try reader.int()
            } else if reader.key(key, is: "is_local") {
                item.isLocal = try reader.bool()
            } else if reader.key(key, is: "artists") {
                (item.artists, item.artistIDs) = try artists(&reader, into: &rows, scratch: &scratch)
            } else if reader.key(key, is: "disc_number") {
                item.discNumber = try reader.int()
            } else if reader.key(key, is: "track_number") {
                item.trackNumber = try reader.int()
            } else if reader.key(key, is: "explicit") {
                item.explicit = try reader.bool()
            } else if reader.key(key, is: "external_ids") {
                item.isrc = try stringMember("isrc", &reader, into: &rows)
            } else if reader.key(key, is: "album") {
                try album(&reader, into: &rows, fields: &item)
            } else if reader.key(key, is: "show") {
                item.show = try name(&reader, into: &rows, scratch: &scratch.name)
            } else {
                try reader.skipValue()
            }
        }
        return isObject ? item : nil
    }

    /// `{"name": "…", …}` → the name into `rows`; nil when missing or not an object.
    private static func name(_ reader: inout JSONReader, into rows: inout EntryRows, scratch: inout [UInt8]) throws -> EntryRows.Text? {
        guard try name(&reader, into: &scratch) else { return nil }
        return rows.text {
            $0.append(contentsOf: scratch)
            return true
        }
    }

    /// `{"id": …, "name": …, "release_date": …}`: the album's name, id and release date (each kept
    /// only when it is a string).
    private static func album(_ reader: inout JSONReader, into rows: inout EntryRows, fields: inout Fields) throws {
        _ = try object(&reader) { reader, key in
            if reader.key(key, is: "name") {
                fields.album = try rows.text { try reader.appendString(to: &$0) }
            } else if reader.key(key, is: "id") {
                fields.albumID = try rows.text { try reader.appendString(to: &$0) }
            } else if reader.key(key, is: "release_date") {
                fields.releaseDate = try rows.text { try reader.appendString(to: &$0) }
            } else {
                try reader.skipValue()
            }
        }
    }

    /// `{"name": "…", …}` → the name in `scratch` (replacing what it held); false when missing or
    /// not an object.
    private static func name(_ reader: inout JSONReader, into scratch: inout [UInt8]) throws -> Bool {
        var found = false
        _ = try object(&reader) { reader, key in
            guard reader.key(key, is: "name") else { return try reader.skipValue() }
            scratch.removeAll(keepingCapacity: true)
            found = try reader.appendString(to: &scratch)
        }
        return found
    }

    /// `[{"name": …, "id": …}, …]` → a JSON array of the names that are strings, and the ids of
    /// those artists joined by `,` ("" for one without a well-formed id; nil when none has one);
    /// both nil when not an array.
    private static func artists(
        _ reader: inout JSONReader, into rows: inout EntryRows,
        scratch: inout Scratch
    ) throws -> (names: EntryRows.Text?, ids: EntryRows.Text?) {
        guard try reader.peek() == .array else {
            try reader.skipValue()
            return (nil, nil)
        }
        scratch.ids.removeAll(keepingCapacity: true)
        var anyID = false
        let names = try rows.text { out in
            out.append(UInt8(ascii: "["))
            var first = true
            var more = try reader.enterArray()
            while more {
                scratch.id.removeAll(keepingCapacity: true)
                if try artist(&reader, name: &scratch.name, id: &scratch.id) {
                    if !first {
                        out.append(UInt8(ascii: ","))
                        scratch.ids.append(UInt8(ascii: ","))
                    }
                    first = false
                    scratch.name.withUnsafeBufferPointer { JSONValue.appendQuoted($0, to: &out) }
                    if scratch.id.withUnsafeBufferPointer(SpotifyID.isValid) {
                        scratch.ids.append(contentsOf: scratch.id)
                        anyID = true
                    }
                }
                more = try reader.nextElement()
            }
            out.append(UInt8(ascii: "]"))
            return true
        }
        return (
            names,
            anyID
                ? rows.text {
                    $0.append(contentsOf: scratch.ids)
                    return true
                } : nil
        )
    }

    /// An artist object: its name into `name` (replacing what it held), its id into `id`; false
    /// when it has no name or is not an object.
    private static func artist(_ reader: inout JSONReader, name: inout [UInt8], id: inout [UInt8]) throws -> Bool {
        var found = false
        _ = try object(&reader) { reader, key in
            if reader.key(key, is: "name") {
                name.removeAll(keepingCapacity: true)
                found = try reader.appendString(to: &name)
            } else if reader.key(key, is: "id") {
                id.removeAll(keepingCapacity: true)
                if try !reader.appendString(to: &id) { id.removeAll() }
            } else {
                try reader.skipValue()
            }
        }
        return found
    }

    /// `{"<name>": "…", …}` → that one string into `rows`; nil when missing or null. Reads
    /// `external_ids` for its `isrc` and `added_by` (a user) for its `id`.
    private static func stringMember(_ name: StaticString, _ reader: inout JSONReader, into rows: inout EntryRows) throws -> EntryRows.Text? {
        var found: EntryRows.Text?
        _ = try object(&reader) { reader, key in
            guard reader.key(key, is: name) else { return try reader.skipValue() }
            found = try rows.text { try reader.appendString(to: &$0) }
        }
        return found
    }
}
