import TimbreCore

/// A list's items as cache rows: every text of every row in one UTF-8 buffer, each row pointing
/// into it. Sync decodes pages straight into this (`EntryPage`) and the cache binds the buffer to
/// SQLite without copying: a full sync reads ~200,000 items, and a `String` per field, a
/// `CachedEntry` per item and another copy of each for SQLite were a fifth of its CPU time.
struct EntryRows: Sendable {
    /// Bytes `start ..< start + count` of `bytes`; a negative start is NULL.
    struct Text: Sendable, Equatable {
        var start: Int
        var count: Int
        static let null = Text(start: -1, count: 0)
        var isNull: Bool { start < 0 }
    }

    struct Row: Sendable {
        var position: Int
        var kind: EntryKind
        var durationMS: Int
        var id: Text
        var uri: Text
        var name: Text
        /// A JSON array of names, written by `JSONValue.appendQuoted` (what `JSONValue` writes).
        var artists: Text
        var album: Text
        var addedAt: Text
        var albumID: Text = .null
        var releaseDate: Text = .null
        /// The artists' ids, comma-separated, one per name in `artists` (empty when unknown).
        var artistIDs: Text = .null
        /// -1: unknown (as for every number and flag below).
        var discNumber: Int32 = -1
        var trackNumber: Int32 = -1
        var explicit: Int8 = -1
        var isrc: Text = .null
        /// The id of the user who added the entry.
        var addedBy: Text = .null
    }

    private(set) var bytes: [UInt8] = []
    private(set) var rows: [Row] = []

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }

    init() {}

    init(_ items: [CachedEntry]) {
        for item in items {
            let id = item.id.map { append($0) } ?? .null
            let uri = append(item.uri), name = append(item.name)
            let artists = appendArray(item.artists.map { Array($0.utf8) })
            let album = item.album.map { append($0) } ?? .null
            let addedAt = item.addedAt.map { append($0) } ?? .null
            let albumID = item.albumID.map { append($0) } ?? .null
            let releaseDate = item.releaseDate.map { append($0) } ?? .null
            let artistIDs = item.artistIDs.map { append($0.joined(separator: ",")) } ?? .null
            let isrc = item.isrc.map { append($0) } ?? .null
            let addedBy = item.addedBy.map { append($0) } ?? .null
            add(
                Row(
                    position: item.position, kind: item.kind, durationMS: item.durationMS, id: id, uri: uri, name: name,
                    artists: artists, album: album, addedAt: addedAt, albumID: albumID, releaseDate: releaseDate,
                    artistIDs: artistIDs, discNumber: item.discNumber.map { Int32(clamping: $0) } ?? -1,
                    trackNumber: item.trackNumber.map { Int32(clamping: $0) } ?? -1, explicit: item.explicit.map { $0 ? 1 : 0 } ?? -1,
                    isrc: isrc, addedBy: addedBy))
        }
    }

    /// The rows as `CachedEntry`s (tests, and callers that need values).
    var items: [CachedEntry] {
        rows.map { row in
            CachedEntry(
                position: row.position, kind: row.kind, id: string(row.id), uri: string(row.uri) ?? "", name: string(row.name) ?? "",
                artists: JSONValue.parseStringArray(string(row.artists) ?? "[]") ?? [], album: string(row.album),
                durationMS: row.durationMS, addedAt: string(row.addedAt), albumID: string(row.albumID),
                releaseDate: string(row.releaseDate), artistIDs: string(row.artistIDs).map(CachedEntry.artistIDs),
                discNumber: row.discNumber < 0 ? nil : Int(row.discNumber), trackNumber: row.trackNumber < 0 ? nil : Int(row.trackNumber),
                explicit: row.explicit < 0 ? nil : row.explicit == 1, isrc: string(row.isrc), addedBy: string(row.addedBy))
        }
    }

    func string(_ text: Text) -> String? {
        text.isNull ? nil : String(decoding: bytes[text.start..<(text.start + text.count)], as: UTF8.self)
    }

    func bytes(of text: Text) -> ArraySlice<UInt8> {
        text.isNull ? [] : bytes[text.start..<(text.start + text.count)]
    }

    func isSpotifyID(_ text: Text) -> Bool {
        !text.isNull && bytes.withUnsafeBufferPointer { SpotifyID.isValid(UnsafeBufferPointer(rebasing: $0[text.start..<(text.start + text.count)])) }
    }

    func hasPrefix(_ text: Text, _ prefix: StaticString) -> Bool {
        guard !text.isNull, text.count >= prefix.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            UnsafeBufferPointer(rebasing: buffer[text.start..<(text.start + prefix.utf8CodeUnitCount)])
                .elementsEqual(UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        }
    }

    // MARK: Building

    /// Where the buffer ends: `rollBack(to:)` forgets everything written after it.
    var mark: Int { bytes.count }

    mutating func rollBack(to mark: Int) {
        bytes.removeSubrange(mark...)
    }

    mutating func add(_ row: Row) {
        rows.append(row)
    }

    /// Text that `write` appends; nil (and nothing kept) when it returns false.
    mutating func text(_ write: (inout [UInt8]) throws -> Bool) rethrows -> Text? {
        let start = bytes.count
        guard try write(&bytes) else {
            rollBack(to: start)
            return nil
        }
        return Text(start: start, count: bytes.count - start)
    }

    mutating func append(_ string: String) -> Text {
        text {
            $0.append(contentsOf: string.utf8)
            return true
        } ?? .null
    }

    /// `prefix` followed by a copy of `text`.
    mutating func append(_ prefix: StaticString, _ text: Text) -> Text {
        let start = bytes.count
        bytes.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        for index in text.start..<(text.start + text.count) { bytes.append(bytes[index]) }
        return Text(start: start, count: bytes.count - start)
    }

    /// A JSON array of the given UTF-8 strings.
    mutating func appendArray(_ names: [[UInt8]]) -> Text {
        let start = bytes.count
        bytes.append(UInt8(ascii: "["))
        for (index, name) in names.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            name.withUnsafeBufferPointer { JSONValue.appendQuoted($0, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "]"))
        return Text(start: start, count: bytes.count - start)
    }

    /// A JSON array of one name, a copy of `text`.
    mutating func appendArray(of text: Text) -> Text {
        appendArray([Array(bytes(of: text))])
    }

    /// Another list's rows after these, their positions moved by `offset`.
    mutating func append(_ other: EntryRows, positionOffset offset: Int) {
        let shift = bytes.count
        bytes.append(contentsOf: other.bytes)
        rows.reserveCapacity(rows.count + other.rows.count)
        func moved(_ text: Text) -> Text { text.isNull ? text : Text(start: text.start + shift, count: text.count) }
        for row in other.rows {
            rows.append(
                Row(
                    position: row.position + offset, kind: row.kind, durationMS: row.durationMS, id: moved(row.id), uri: moved(row.uri),
                    name: moved(row.name), artists: moved(row.artists), album: moved(row.album), addedAt: moved(row.addedAt),
                    albumID: moved(row.albumID), releaseDate: moved(row.releaseDate), artistIDs: moved(row.artistIDs),
                    discNumber: row.discNumber, trackNumber: row.trackNumber, explicit: row.explicit, isrc: moved(row.isrc),
                    addedBy: moved(row.addedBy)))
        }
    }
}

/// A list's rows as its pages brought them: each page's `EntryRows` with the position its first
/// entry has in the list. Stored as they are; merging the pages into one buffer first copied every
/// text of a full sync once more.
struct EntryList: Sendable {
    private(set) var chunks: [(rows: EntryRows, positionOffset: Int)] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    init() {}

    init(_ rows: EntryRows) {
        append(rows, positionOffset: 0)
    }

    mutating func append(_ rows: EntryRows, positionOffset: Int) {
        guard !rows.isEmpty else { return }
        chunks.append((rows, positionOffset))
        count += rows.count
    }

    /// The rows as `CachedEntry`s at their list positions (tests, and callers that need values).
    var items: [CachedEntry] {
        chunks.flatMap { chunk in
            chunk.rows.items.map { item in
                var item = item
                item.position += chunk.positionOffset
                return item
            }
        }
    }
}
