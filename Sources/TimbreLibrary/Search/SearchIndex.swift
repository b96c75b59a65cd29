import Foundation
import GRDB
import GRDBSQLite
import TimbreCore

/// `F`'s index (migration v6): for every stored list, one row of `item_search` holding the folded
/// text of all its items in position order — the exact bytes the scan builds for each item (name,
/// artists joined ", ", album, separated by 0x1F), each item's text followed by 0x1E — and, when
/// the positions are not simply 0, 1, 2…, the position of each of those items.
///
/// A search reads the 11 MB of folded text of 203,743 items in 500 rows and looks for the needle
/// in it with `memchr` (5–9 ms), instead of stepping through every item row and folding it again
/// (~80 ms). SQLite's FTS5 trigram index answers in under a millisecond, but building it for the
/// same items took 1.6 s of CPU and 51 MB, more than a whole full sync (~1.1 s of CPU, a 35 MB
/// file); this costs the sync ~0.1 s of CPU and 12 MB (docs/PERFORMANCE.md).
///
/// Kept in step: `LibraryCache.write` stores a list's row in the transaction that writes its
/// items; triggers drop the row of a list whose items go (playlist deleted, or written again under
/// a new number). A list without a row (written by an older timbre) is scanned, and the end of a
/// sync indexes it (`refresh`). Folding depends on Foundation's tables: `item_search_state` holds a
/// stamp of them (`foldingStamp`); a different stamp makes every list scanned until `refresh`
/// rebuilds the rows.
enum SearchIndex {
    /// Ends each item's text in a row's `folded`; folded text never holds a byte below 0x20 but
    /// the 0x1F between fields, so a needle cannot match across two items.
    static let itemEnd: UInt8 = 0x1E

    /// The format of the rows and Foundation's folding of a sample of scripts: a change of either
    /// makes the stored rows stale.
    static let foldingStamp: String = {
        let sample =
            "format 1 · AÀÁÂÃÄÅĀĂĄ æÆ çÇ ðÐ ĞİIıŞ ßẞ ŒœØø ÑñŃ ǅǆ ﬁﬂ ΆΈΉΊΌΎΏάέήίόύώΪΫ ЁЙёйЇї ＡＢｃ１２ ｶﾞﾊﾟ ①²Ⅻ㎏ 가각 "
            + "\u{0301}e\u{0301} ǰ ŉ Ǳǲǳ ꝺ Ꞵ 𝐀𝔸 ℌℍ ℃ ™ ‐–— “”‘’ … ×÷"
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in SearchText.foldedBytes(sample) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "1:" + String(hash, radix: 16)
    }()

    // MARK: Folding (shared with the scan, so both match the same bytes)

    /// The folded text `F` matches for one item: name, 0x1F, artists as shown ("A, B"), 0x1F,
    /// album. `artists` is the stored JSON array of names.
    static func appendFolded(
        name: UnsafeBufferPointer<UInt8>, artists: UnsafeBufferPointer<UInt8>, album: UnsafeBufferPointer<UInt8>,
        to folded: inout [UInt8]
    ) {
        SearchText.append(bytes: name, to: &folded)
        folded.append(0x1F)
        appendArtists(artists, to: &folded)
        folded.append(0x1F)
        SearchText.append(bytes: album, to: &folded)
    }

    /// The artists column (a JSON array of names) folded as the interface shows it: "A, B".
    private static func appendArtists(_ json: UnsafeBufferPointer<UInt8>, to folded: inout [UInt8]) {
        if json.contains(UInt8(ascii: "\\")) {
            // Escapes: decode properly (rare).
            let names = JSONValue.parseStringArray(String(decoding: json, as: UTF8.self)) ?? []
            SearchText.append(names.joined(separator: ", "), to: &folded)
            return
        }
        // ["A","B"] without escapes: the names are the bytes between quotes. ASCII names are folded
        // straight into `folded`; a name with anything else folds the whole "A, B" through
        // Foundation, as the interface does.
        let mark = folded.count
        var nameStart: Int?
        var first = true
        for index in json.indices where json[index] == UInt8(ascii: "\"") {
            guard let start = nameStart else {
                nameStart = index + 1
                continue
            }
            nameStart = nil
            if !first { folded += [UInt8(ascii: ","), UInt8(ascii: " ")] }
            first = false
            if !SearchText.appendASCII(UnsafeBufferPointer(rebasing: json[start..<index]), to: &folded) {
                folded.removeSubrange(mark...)
                return appendJoined(json, to: &folded)
            }
        }
    }

    private static func appendJoined(_ json: UnsafeBufferPointer<UInt8>, to folded: inout [UInt8]) {
        var text: [UInt8] = []
        var inString = false
        var first = true
        for byte in json {
            if byte == UInt8(ascii: "\"") {
                inString.toggle()
                if inString {
                    if !first { text += [UInt8(ascii: ","), UInt8(ascii: " ")] }
                    first = false
                }
            } else if inString {
                text.append(byte)
            }
        }
        text.withUnsafeBufferPointer { SearchText.append(bytes: $0, to: &folded) }
    }

    // MARK: Writing

    /// One list's row, built as its items are written (same transaction).
    static func store(_ items: EntryList, list: Int64, _ db: Database) throws {
        var row = Builder()
        row.folded.reserveCapacity(items.count * 48)
        for chunk in items.chunks {
            chunk.rows.bytes.withUnsafeBufferPointer { bytes in
                func text(_ text: EntryRows.Text) -> UnsafeBufferPointer<UInt8> {
                    text.isNull ? UnsafeBufferPointer(start: nil, count: 0) : UnsafeBufferPointer(rebasing: bytes[text.start..<(text.start + text.count)])
                }
                for entry in chunk.rows.rows {
                    row.add(position: entry.position + chunk.positionOffset, name: text(entry.name), artists: text(entry.artists), album: text(entry.album))
                }
            }
        }
        try row.insert(list: list, db)
    }

    /// Stamps the index with this build's folding (dropping every row if the stamp was another) and
    /// indexes every stored list that has no row: lists written by a timbre without the index, or
    /// all of them after migration v6. Cheap when nothing is missing (one query).
    /// Returns the number of items indexed.
    @discardableResult
    static func refresh(_ db: Database) throws -> Int {
        let stamp = try String.fetchOne(db, sql: "SELECT folding FROM item_search_state WHERE id = 0")
        if stamp != foldingStamp {
            try db.execute(sql: "DELETE FROM item_search")
            try db.execute(sql: "INSERT OR REPLACE INTO item_search_state (id, folding) VALUES (0, ?)", arguments: [foldingStamp])
        }
        let missing = try Row.fetchAll(
            db,
            sql: """
                SELECT id, items_key FROM playlist
                WHERE items_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM item_search WHERE list = items_key)
                """)
        var indexed = 0
        for playlist in missing {
            var row = Builder()
            try LibraryCache.eachItem(db, of: playlist["id"], sql: LibraryCache.searchSelect) { raw in
                row.add(
                    position: Int(sqlite3_column_int64(raw, 0) & Int64(ItemKey.positions - 1)), name: SQLiteText.bytes(raw, 1),
                    artists: SQLiteText.bytes(raw, 2), album: SQLiteText.bytes(raw, 3))
                return true
            }
            try row.insert(list: playlist["items_key"], db)
            indexed += row.records.count
        }
        return indexed
    }

    /// A row of `item_search` on its way in. Items arrive in any order; they are stored by position.
    private struct Builder {
        var folded: [UInt8] = []
        /// (position, start, end) of every item's text in `folded`.
        var records: [(position: Int, start: Int, end: Int)] = []

        mutating func add(position: Int, name: UnsafeBufferPointer<UInt8>, artists: UnsafeBufferPointer<UInt8>, album: UnsafeBufferPointer<UInt8>) {
            let start = folded.count
            SearchIndex.appendFolded(name: name, artists: artists, album: album, to: &folded)
            folded.append(SearchIndex.itemEnd)
            records.append((position, start, folded.count))
        }

        func insert(list: Int64, _ db: Database) throws {
            var text = folded
            if zip(records, records.dropFirst()).contains(where: { $0.position >= $1.position }) {
                text = []
                text.reserveCapacity(folded.count)
                for record in records.sorted(by: { $0.position < $1.position }) { text += folded[record.start..<record.end] }
            }
            let positions = records.map(\.position).sorted()
            // Positions 0, 1, 2… (nearly every list) are not stored: item i is at position i.
            var positionBytes: [UInt8]?
            if positions != Array(0..<positions.count) {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(positions.count * 4)
                for position in positions {
                    withUnsafeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian) { bytes += $0 }
                }
                positionBytes = bytes
            }
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO item_search (list, folded, positions) VALUES (?, ?, ?)")
            let raw = statement.sqliteStatement
            sqlite3_reset(raw)
            defer {
                sqlite3_reset(raw)
                sqlite3_clear_bindings(raw)
            }
            func check(_ code: Int32) throws {
                if code != SQLITE_OK && code != SQLITE_DONE { throw SQLiteText.error(code, db, sql: statement.sql) }
            }
            try check(sqlite3_bind_int64(raw, 1, list))
            if text.isEmpty {
                try check(sqlite3_bind_zeroblob(raw, 2, 0))  // a NULL pointer would bind NULL: the list would look unindexed
            } else {
                try text.withUnsafeBytes { try check(sqlite3_bind_blob(raw, 2, $0.baseAddress, Int32($0.count), SQLiteText.transient)) }
            }
            if let positionBytes {
                try positionBytes.withUnsafeBytes { try check(sqlite3_bind_blob(raw, 3, $0.baseAddress, Int32($0.count), SQLiteText.transient)) }
            } else {
                try check(sqlite3_bind_null(raw, 3))
            }
            try check(sqlite3_step(raw))
        }
    }

    // MARK: Reading

    /// The keys of the items whose text in `folded` (a row of `item_search` of list `list`)
    /// contains `needle`, in position order, appended to `found` with `listIndex` until it holds
    /// `limit`. Throws `Unusable` when the row contradicts itself.
    static func find(
        _ needle: [UInt8], in folded: UnsafeRawBufferPointer, positions: UnsafeRawBufferPointer?, list: Int64, listIndex: Int,
        limit: Int, into found: inout [(list: Int, key: Int64)]
    ) throws {
        guard let base = folded.baseAddress, !needle.isEmpty else { return }
        let count = folded.count
        let rarest = SearchText.rarestIndex(needle)
        let positionCount = positions.map { $0.count / 4 }
        if let positions, positions.count % 4 != 0 { throw Unusable(reason: "a list's positions are cut short") }
        var item = 0  // the index of the item whose text starts at `itemStart`
        var itemStart = 0
        try needle.withUnsafeBytes { pin in
            guard let pattern = pin.baseAddress else { return }
            var from = 0
            while found.count < limit, let at = locate(pattern, needle.count, rarest: rarest, in: base, count, from: from) {
                // Count the items that end before the hit.
                var scan = itemStart
                while let end = memchr(base + scan, Int32(itemEnd), at - scan) {
                    item += 1
                    scan = base.distance(to: UnsafeRawPointer(end)) + 1
                }
                guard let end = memchr(base + at, Int32(itemEnd), count - at) else { throw Unusable(reason: "a list's text does not end an item") }
                let position: Int
                if let positions, let positionCount {
                    guard item < positionCount else { throw Unusable(reason: "a list has more texts than positions") }
                    position = Int(UInt32(littleEndian: positions.loadUnaligned(fromByteOffset: item * 4, as: UInt32.self)))
                } else {
                    position = item
                }
                guard let key = ItemKey.key(list: list, position: position) else { throw Unusable(reason: "a list's position is out of range") }
                found.append((listIndex, key))
                item += 1
                itemStart = base.distance(to: UnsafeRawPointer(end)) + 1
                from = itemStart
            }
        }
    }

    /// The offset of the first occurrence of `needle` at or after `from`: `memchr` looks for the
    /// needle's rarest byte, `memcmp` checks around it.
    private static func locate(_ needle: UnsafeRawPointer, _ needleCount: Int, rarest: Int, in haystack: UnsafeRawPointer, _ count: Int, from: Int) -> Int? {
        let rare = Int32(needle.load(fromByteOffset: rarest, as: UInt8.self))
        var candidate = from + rarest  // where the rare byte would be for a match starting at `from`
        let lastStart = count - needleCount
        while candidate - rarest <= lastStart {
            guard let hit = memchr(haystack + candidate, rare, lastStart + rarest - candidate + 1) else { return nil }
            let at = haystack.distance(to: UnsafeRawPointer(hit))
            let start = at - rarest
            if memcmp(haystack + start, needle, needleCount) == 0 { return start }
            candidate = at + 1
        }
        return nil
    }

    /// The index cannot answer: the search scans instead and says so once.
    struct Unusable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }
}
