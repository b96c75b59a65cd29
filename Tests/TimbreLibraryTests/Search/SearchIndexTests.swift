import Foundation
import GRDB
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreLibrary

/// `F`'s index (`SearchIndex`) must give exactly the scan's answers, in the scan's order, on the
/// same cache file; stay in step with every write; and, when it cannot answer, fall back to the
/// scan with one warning.
@Suite struct SearchIndexTests {
    /// Queries as the interface folds them: common, rare, none, accented, one and two characters,
    /// and text that would be syntax to a query language.
    static let queries = [
        "a", "e", "1", " ", "é", "ab", "an", "ss", "the", "song", "river", "beyonce", "BEYONCÉ", "Beyoncé", "zzqx", "über", "uber", "rio abajo",
        "\"", "\"\"", "*", "NEAR", "near(", "OR", "a OR b", "-", "-song", "^", ":", "name:river", "'", "');", "drop table", "%", "_", "\\",
        "\\u0041", ", ", "a, b", "\u{1B}[31m", "\u{7}", "ｒｉｖｅｒ", "ﬁ", "ß", "🎵", "e\u{301}", "x\u{0}y", "song 1", "ong 12",
        String(repeating: "la", count: 120), "[", "]", "[\"", "null",
    ]

    /// A generator that gives the same items on every run.
    typealias Seeded = SeededGenerator

    static let words = [
        "river", "Song", "the", "Beyoncé", "BEYONCE", "über", "ÜBER", "Río", "Abajo", "night", "ghost", "halo", "'); DROP TABLE item;--",
        "\"quoted\"", "a\\b", "\u{1B}[31mred\u{1B}[0m", "bell\u{7}", "tab\there", "NEAR", "OR", "*", "^", ":", "-", "%", "_", "ｒｉｖｅｒ",
        "ﬁne", "straße", "STRASSE", "🎵", "e\u{301}", "x\u{0}y", "sep\u{1F}arator", "end\u{1E}item", "Ωmega", "Ёлка", "가사", "null", "[\"]",
    ]

    static func item(_ position: Int, _ random: inout Seeded) -> CachedEntry {
        func phrase(_ count: Int) -> String { (0..<count).map { _ in random.pick(words) }.joined(separator: " ") }
        var name = phrase(1 + random.next(3)) + " \(position)"
        if random.next(200) == 0 { name += String(repeating: "long name ", count: 1000) }  // ~10 KB
        let artists = (0..<random.next(4)).map { _ in phrase(1 + random.next(2)) }
        let album: String? = random.next(5) == 0 ? nil : phrase(1 + random.next(2))
        return CachedEntry(
            position: position, kind: random.next(10) == 0 ? .local : .track, id: "4uLU6hMCjMI75M1A2tKUQC",
            uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", name: name, artists: artists, album: album, durationMS: 1000, addedAt: nil)
    }

    static func meta(_ index: Int, name: String? = nil, snapshot: String = "s1") -> PlaylistMeta {
        let id = "pl" + String(repeating: "0", count: 20 - String(index).count) + String(index)
        return PlaylistMeta(
            id: id, name: name ?? "List \(index)", ownerID: "me", ownerName: nil, snapshotID: snapshot, total: 0,
            collaborative: false, isPublic: false)
    }

    static let report = SyncReport(
        status: .ok, checked: 0, updated: 0, unchanged: 0, failed: 0, removed: 0, likedUpdated: false,
        likedCount: 0, itemsWritten: 0, requests: 0, warnings: [], durationMS: 0)

    static let liked = PlaylistMeta(
        id: "liked", name: "Liked Songs", ownerID: "me", ownerName: nil, snapshotID: nil, total: 0,
        collaborative: false, isPublic: false)

    /// Liked Songs and 12 playlists, ~3,000 items: gaps in positions, a list handed over out of
    /// order, an empty list, a list in several chunks.
    static func fill(_ cache: LibraryCache, seed: UInt64 = 7) async throws {
        var random = Seeded(state: seed)
        try await cache.updateMetadata((0..<12).map { (meta($0), 12 - $0) })
        try await cache.replaceEntries(of: liked, trackCount: 400, items: (0..<400).map { item($0, &random) }, sortOrder: -1)
        var lists: [ListWrite] = []
        for index in 0..<12 {
            let size = index == 5 ? 0 : 50 + random.next(400)
            var items = (0..<size).map { item($0 * (index % 3 == 1 ? 3 : 1), &random) }
            if index == 7 { items.reverse() }
            var list = EntryList()
            for start in stride(from: 0, to: items.count, by: 100) {
                list.append(EntryRows(Array(items[start..<min(start + 100, items.count)])), positionOffset: 0)
            }
            lists.append(ListWrite(meta: meta(index), trackCount: size, items: list))
        }
        _ = try await cache.replaceEntries(lists)
    }

    /// For every query and a few limits: the index's answers are the scan's, and no list was scanned.
    static func expectSameAnswers(_ cache: LibraryCache, scanned: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var hits = 0
        for query in queries {
            let needle = SearchText.foldedBytes(query)
            for limit in [1, 7, 1000] {
                let scan = try cache.searchByScan(needle, limit: limit)
                let indexed = try cache.indexedSearch(needle, limit: limit)
                #expect(indexed.matches == scan, "\(query.debugDescription) limit \(limit)", sourceLocation: sourceLocation)
                #expect(indexed.scannedLists <= scanned, "\(query.debugDescription)", sourceLocation: sourceLocation)
                #expect(try cache.search(needle, limit: limit) == scan, sourceLocation: sourceLocation)
                hits += scan.count
            }
        }
        #expect(hits > 1000, "the queries find something", sourceLocation: sourceLocation)
    }

    /// Every stored list has its row, and no row outlives its list.
    static func expectRowsMatchLists(_ cache: LibraryCache, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (lists, rows) = try cache.pool.read { db in
            (
                try Int64.fetchSet(db, sql: "SELECT items_key FROM playlist WHERE items_key IS NOT NULL"),
                try Int64.fetchSet(db, sql: "SELECT list FROM item_search")
            )
        }
        #expect(rows == lists, sourceLocation: sourceLocation)
    }

    @Test func theIndexAnswersExactlyAsTheScanOnHostileText() async throws {
        let dir = try TempDir()
        let warnings = WarningSink()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: warnings.handler)
        try await Self.fill(cache)
        try Self.expectRowsMatchLists(cache)
        try Self.expectSameAnswers(cache)
        // Needles the interface cannot type (it folds control characters to spaces): the scan's
        // folded text holds no 0x1E, and 0x1F only between fields.
        for raw: [UInt8] in [[0x1E], [0x1F], Array("river".utf8) + [0x1E], [0x1F] + Array("a".utf8), [0x00], [0x0A]] {
            #expect(try cache.indexedSearch(raw, limit: 1000).matches == cache.searchByScan(raw, limit: 1000), "\(raw)")
        }
        #expect(try !cache.searchByScan([0x1F], limit: 10).isEmpty, "fields are separated by 0x1F, as before")
        #expect(try cache.search([], limit: 10).isEmpty && cache.search(Array("a".utf8), limit: 0).isEmpty)
        // Order: Liked Songs first, then the playlists' order, then positions.
        let all = try cache.search(SearchText.foldedBytes("e"), limit: 100_000)
        let order = try cache.playlists().map(\.id)
        let ranks = all.map { (order.firstIndex(of: $0.playlistID) ?? -1, $0.item.position) }
        #expect(ranks.first?.0 == 0 && zip(ranks, ranks.dropFirst()).allSatisfy { $0 < $1 })
        #expect(warnings.lines.current.isEmpty)
    }

    @Test func writesRenamesAndRemovalsKeepTheIndexInStep() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { text in Issue.record("no warning expected: \(text)") })
        try await Self.fill(cache)
        var random = Seeded(state: 99)
        // A list rewritten (other items), one renamed and reordered, one removed, one unavailable,
        // one written alone (as the editor does), a new one.
        _ = try await cache.replaceEntries([
            ListWrite(meta: Self.meta(2, snapshot: "s2"), trackCount: 30, items: EntryList(EntryRows((0..<30).map { Self.item($0, &random) })))
        ])
        try await cache.updateMetadata([(Self.meta(4, name: "Renamed river"), 0), (Self.meta(0), 12)])
        try await cache.remove([Self.meta(6).id])
        try await cache.markUnavailable(Self.meta(8, snapshot: "s9"))
        try await cache.replaceEntries(of: Self.meta(9, snapshot: "s3"), trackCount: 2, items: [Self.item(0, &random), Self.item(5, &random)])
        try await cache.replaceEntries(of: Self.meta(20), trackCount: 40, items: (0..<40).map { Self.item($0, &random) })
        try await cache.replaceEntries(of: Self.liked, trackCount: 0, items: [], sortOrder: -1)
        try Self.expectRowsMatchLists(cache)
        try Self.expectSameAnswers(cache)
        #expect(try cache.search(SearchText.foldedBytes("a"), limit: 100_000).contains { $0.playlistName == "Renamed river" })
        #expect(try !cache.search(SearchText.foldedBytes("a"), limit: 100_000).contains { $0.playlistID == Self.meta(6).id })
    }

    @Test func aListWithoutARowIsScannedAndTheNextSyncIndexesIt() async throws {
        let dir = try TempDir()
        let warnings = WarningSink()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: warnings.handler)
        try await Self.fill(cache)
        // As an older timbre would leave it: a list written without its row.
        try await cache.pool.write { db in
            try db.execute(sql: "DELETE FROM item_search WHERE list = (SELECT items_key FROM playlist WHERE id = ?)", arguments: [Self.meta(3).id])
        }
        try Self.expectSameAnswers(cache, scanned: 1)
        #expect(try cache.indexedSearch(SearchText.foldedBytes("zzqx"), limit: 10).scannedLists == 1)
        try await cache.recordRun(startedAt: Date(), report: Self.report)
        #expect(try cache.indexedSearch(SearchText.foldedBytes("zzqx"), limit: 10).scannedLists == 0)
        try Self.expectRowsMatchLists(cache)

        // Another folding (a new Foundation): every list is scanned until a sync rebuilds the rows.
        try await cache.pool.write { db in try db.execute(sql: "UPDATE item_search_state SET folding = 'other'") }
        #expect(try cache.indexedSearch(SearchText.foldedBytes("zzqx"), limit: 10).scannedLists == 13)
        try Self.expectSameAnswers(cache, scanned: 13)
        try await cache.recordRun(startedAt: Date(), report: Self.report)
        #expect(try cache.indexedSearch(SearchText.foldedBytes("zzqx"), limit: 10).scannedLists == 0)
        let stamp = try await cache.pool.read { db in try String.fetchOne(db, sql: "SELECT folding FROM item_search_state") }
        #expect(stamp == SearchIndex.foldingStamp)
        try Self.expectSameAnswers(cache)
        #expect(warnings.lines.current.isEmpty, "a list without a row is expected, not a fault")
    }

    @Test(arguments: ["swapped", "positions cut", "not ended", "missing"])
    func aDamagedIndexFallsBackToTheScanWithOneWarning(_ damage: String) async throws {
        let dir = try TempDir()
        let warnings = WarningSink()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: warnings.handler)
        try await Self.fill(cache)
        let needle = SearchText.foldedBytes("river")
        let expected = try cache.searchByScan(needle, limit: 1000)
        #expect(expected.count > 50)
        try await cache.pool.write { db in
            let list = { (index: Int) in "(SELECT items_key FROM playlist WHERE id = '\(Self.meta(index).id)')" }
            switch damage {
            case "swapped":  // another list's text: names items that do not match
                try db.execute(sql: "UPDATE item_search SET folded = (SELECT folded FROM item_search WHERE list = \(list(0))) WHERE list = \(list(1))")
                try db.execute(sql: "UPDATE item_search SET folded = (SELECT folded FROM item_search WHERE list = \(list(2))) WHERE list = \(list(0))")
            case "positions cut":
                try db.execute(sql: "UPDATE item_search SET positions = x'010203' WHERE list = \(list(1))")
            case "not ended":
                try db.execute(sql: "UPDATE item_search SET folded = CAST('river' AS BLOB) WHERE list = \(list(0))")
            default:
                try db.execute(sql: "DROP TABLE item_search")
            }
        }
        #expect(throws: (any Error).self) { try cache.indexedSearch(needle, limit: 1000) }
        #expect(try cache.search(needle, limit: 1000) == expected)
        #expect(try cache.search(needle, limit: 1000) == expected)
        #expect(warnings.lines.current.count == 1, "said once per open cache")
        #expect(warnings.lines.current.first?.contains("search index") == true)
    }

    @Test(.tags(.integration), .integrationTier)
    func aSyncThatChangesRemovesAndRenamesKeepsTheIndexInStep() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            try Self.expectRowsMatchLists(h.cache)
            #expect(try h.cache.indexedSearch(SearchText.foldedBytes("zzqx"), limit: 10).scannedLists == 0)
            let model = try await h.model()
            try await h.sandbox.mutate(playlist: model.playlists[2].id, action: "delete")
            try await h.sandbox.mutate(playlist: model.playlists[0].id, action: "remove_first")
            try await h.sandbox.mutate(playlist: model.playlists[1].id, action: "append")
            try await h.sandbox.mutate(playlist: model.playlists[3].id, action: "rename", name: "Renamed")
            let report = try await h.sync()
            #expect(report.removed == 1 && report.updated == 3)
            try Self.expectRowsMatchLists(h.cache)
            var hits = 0
            for query in ["a", "e", "an", "the", "love", "zzqx", "é", "\"", "*", "NEAR", "-", "^", ":"] {
                let needle = SearchText.foldedBytes(query)
                let indexed = try h.cache.indexedSearch(needle, limit: 1000)
                #expect(try indexed.matches == h.cache.searchByScan(needle, limit: 1000), "\(query)")
                #expect(indexed.scannedLists == 0)
                hits += indexed.matches.count
            }
            #expect(hits > 0)
            // Hits carry each playlist's current name (the rename included).
            let names = Dictionary(uniqueKeysWithValues: try h.cache.playlists().map { ($0.id, $0.name) })
            #expect(names.values.contains("Renamed"))
            let all = try h.cache.search(SearchText.foldedBytes(" "), limit: 100_000)
            #expect(!all.isEmpty && all.allSatisfy { names[$0.playlistID] == $0.playlistName })
            #expect(!all.contains { $0.playlistID == model.playlists[2].id }, "the deleted playlist's items are gone")
        }
    }
}

extension SeededGenerator {
    /// A number below `bound` (modulo: the items the tests were written with).
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }
}
