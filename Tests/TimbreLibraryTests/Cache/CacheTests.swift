import Foundation
import GRDB
import Testing
import TimbreCore

@testable import TimbreLibrary

@Suite struct CacheTests {
    static let idA = "37i9dQZF1DXcBWIGoYBM5M"
    static let idB = "1111111111111111111111"

    static func meta(_ id: String, name: String = "P", snapshot: String? = "s1", total: Int = 2) -> PlaylistMeta {
        PlaylistMeta(id: id, name: name, ownerID: "me", ownerName: nil, snapshotID: snapshot, total: total, collaborative: false, isPublic: true)
    }

    static func track(_ position: Int, name: String = "Song") -> CachedEntry {
        CachedEntry(
            position: position, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", name: name,
            artists: ["A", "B"], album: "Al", durationMS: 1000, addedAt: "2024-01-01T00:00:00Z")
    }

    @Test func openCreatesPrivateFoldersAndAnEmptyCache() throws {
        let dir = try TempDir()
        let path = dir.path("a/b/library.sqlite")
        let cache = try LibraryCache.open(path: path, warn: { _ in })
        let mode = try FileManager.default.attributesOfItem(atPath: dir.path("a/b"))[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(try cache.playlists().isEmpty)
        #expect(try cache.lastSyncedAt() == nil)
        #expect(try cache.entries(of: .liked) == nil)
        #expect(try cache.integrityCheck())
        let journal = try cache.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        // Reopening runs no migration twice.
        _ = try LibraryCache.open(path: path, warn: { _ in })
    }

    @Test func writesAndReadsPlaylistsInOrderWithDuplicatesAndHostileText() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        let hostile = "'); DROP TABLE playlist;--\u{1B}]0;pwned\u{07}\u{9B}31m e\u{301} 👩‍👩‍👧 \"q\"\nline"
        try await cache.updateMetadata([(Self.meta(Self.idB, name: hostile), 0), (Self.meta(Self.idA), 1)])
        let items = [Self.track(0, name: hostile), Self.track(2), Self.track(3)]
        #expect(try await cache.replaceEntries(of: Self.meta(Self.idA), trackCount: 4, items: items) == 3)
        try await cache.replaceEntries(
            of: PlaylistMeta(
                id: "liked", name: "Liked Songs", ownerID: "me", ownerName: "Me", snapshotID: nil, total: 1,
                collaborative: false, isPublic: false), trackCount: 1, items: [Self.track(0)], sortOrder: -1)
        let playlists = try cache.playlists()
        #expect(playlists.map(\.id) == ["liked", Self.idB, Self.idA])
        #expect(playlists[1].name == hostile)
        #expect(playlists[1].snapshotID == nil && playlists[1].syncedAt == nil, "metadata alone records no snapshot")
        #expect(playlists[2].snapshotID == "s1" && playlists[2].trackCount == 4 && playlists[2].syncedAt != nil)
        #expect(try cache.lastSyncedAt() == playlists.compactMap(\.syncedAt).max())
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)) == items, "duplicates and gaps survive")
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idB)!)) == [])
        #expect(try cache.entries(of: .playlist(SpotifyID("2222222222222222222222")!)) == nil)

        // Removing a playlist removes its items (a trigger: the cascade of migration v4).
        try await cache.remove([Self.idA])
        let orphans = try await cache.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item i WHERE NOT EXISTS (SELECT 1 FROM playlist p WHERE p.items_key = i.list)")
        }
        #expect(orphans == 0)
        #expect(try await cache.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == 1, "only Liked Songs' item is left")
    }

    /// The interface's lean read gives the same fields as the full one, row for row: a track with
    /// several artists and a release date, a local file without album or date, an episode, and
    /// hostile text.
    @Test func aListedReadShowsWhatTheFullReadHolds() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        let items = [
            CachedEntry(
                position: 0, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", name: "Song",
                artists: ["A", "B, with a comma"], album: "Al", durationMS: 1000, addedAt: "2024-01-01T00:00:00Z", releaseDate: "1999-05-01",
                artistIDs: ["x1", "x2"]),
            CachedEntry(
                position: 1, kind: .local, id: nil, uri: "spotify:local:A:B:C:120", name: "\u{1B}[2JHome', DROP TABLE item; --", artists: [],
                album: nil, durationMS: 120_000, addedAt: nil),
            CachedEntry(
                position: 2, kind: .episode, id: "7ouMYWpwJ422jRcDASZB7P", uri: "spotify:episode:7ouMYWpwJ422jRcDASZB7P", name: "Talk",
                artists: ["Show"], album: "Show", durationMS: 3_600_000, addedAt: "2025-02-03T04:05:06Z", releaseDate: "2025"),
        ]
        try await cache.replaceEntries(of: Self.meta(Self.idA, total: 3), trackCount: 3, items: items)
        let ref = PlaylistRef.playlist(try #require(SpotifyID(Self.idA)))
        let full = try #require(try cache.entries(of: ref))
        let listed = try #require(try cache.listedEntries(of: ref) { $0 })
        #expect(listed.count == full.count)
        for (l, f) in zip(listed, full) {
            #expect(l.position == f.position && l.uri == f.uri && l.name == f.name && l.artists == f.artists && l.album == f.album)
            #expect(l.durationMS == f.durationMS && l.addedAt == f.addedAt && l.releaseDate == f.releaseDate && l.year == f.year)
        }
        #expect(full[0].artistIDs == ["x1", "x2"], "artist ids split as bytes")
        #expect(try cache.listedEntries(of: .liked) { $0 } == nil, "not in the cache")
        // What a long list shows at once: the first rows, and how many there are.
        #expect(try cache.listedEntries(of: ref, limit: 2) { $0.position } == [0, 1])
        #expect(try cache.entryCount(of: ref) == 3 && cache.entryCount(of: .liked) == 0)
    }

    @Test func aRejectedRowLeavesThePlaylistAsItWas() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        let good = [Self.track(0), Self.track(1, name: "")]
        try await cache.replaceEntries(of: Self.meta(Self.idA), trackCount: 2, items: good)
        // Two rows with the same position break the primary key: the whole replacement rolls back.
        await #expect(throws: CacheError.self) {
            try await cache.replaceEntries(of: Self.meta(Self.idA, snapshot: "s2"), trackCount: 2, items: [Self.track(0), Self.track(0, name: "dup")])
        }
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)) == good, "an empty name is stored as \"\", not NULL")
        #expect(try cache.playlist(.playlist(SpotifyID(Self.idA)!))?.snapshotID == "s1")
        let rejected = await #expect(throws: CacheError.self) {
            try await cache.replaceEntries(of: Self.meta(Self.idA, snapshot: "s3"), trackCount: 1, items: [Self.track(-1)])
        }
        #expect(rejected == .positionOutOfRange(-1), "\(String(describing: rejected))")
        #expect(rejected?.message.contains("outside what the cache can hold") == true)
        // Nor does a position the key's low bits cannot hold (it would land in the next list).
        let tooFar = await #expect(throws: CacheError.self) {
            try await cache.replaceEntries(of: Self.meta(Self.idA, snapshot: "s3"), trackCount: 1, items: [Self.track(ItemKey.positions)])
        }
        #expect(tooFar == .positionOutOfRange(ItemKey.positions))
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)) == good)
        // The statement is reusable after a failure.
        try await cache.replaceEntries(of: Self.meta(Self.idA, snapshot: "s4"), trackCount: 1, items: [Self.track(5)])
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!))?.map(\.position) == [5])
    }

    @Test func listsWrittenTogetherAreStoredAllOrNone() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        func write(_ id: String, _ snapshot: String, _ items: [CachedEntry]) -> ListWrite {
            ListWrite(meta: Self.meta(id, snapshot: snapshot), trackCount: items.count, items: EntryList(EntryRows(items)))
        }
        let a = [Self.track(0), Self.track(1)], b = [Self.track(0, name: "b")]
        #expect(try await cache.replaceEntries([write(Self.idA, "s1", a), write(Self.idB, "s1", b)]) == 3)
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)) == a)
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idB)!)) == b)
        // The second list breaks the key: the first, written before it in the same transaction, rolls back too.
        await #expect(throws: CacheError.self) {
            try await cache.replaceEntries([write(Self.idA, "s2", [Self.track(7)]), write(Self.idB, "s2", [Self.track(0), Self.track(0)])])
        }
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)) == a)
        #expect(try cache.playlist(.playlist(SpotifyID(Self.idA)!))?.snapshotID == "s1")
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idB)!)) == b)

        // What the sync checks before handing a list over, so that no batch holds such a row.
        #expect(ItemKey.firstUnkeyable(EntryList(EntryRows(a))) == nil)
        #expect(ItemKey.firstUnkeyable(EntryList(EntryRows([Self.track(0), Self.track(-1)]))) == -1)
        var pages = EntryList(EntryRows([Self.track(0)]))
        pages.append(EntryRows([Self.track(0), Self.track(1)]), positionOffset: ItemKey.positions - 1)
        #expect(ItemKey.firstUnkeyable(pages) == ItemKey.positions)
    }

    @Test func eachWriteOfAListAppendsUnderALargerKeyAndLeavesTheOthersAlone() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        try await cache.updateMetadata([(Self.meta(Self.idA), 0), (Self.meta(Self.idB), 1)])
        func key(_ id: String) async throws -> Int64? {
            try await cache.pool.read { db in try Int64.fetchOne(db, sql: "SELECT items_key FROM playlist WHERE id = ?", arguments: [id]) }
        }
        #expect(try await key(Self.idA) == nil, "no key before the first write")
        try await cache.replaceEntries(of: Self.meta(Self.idA), trackCount: 2, items: [Self.track(0), Self.track(1)])
        try await cache.replaceEntries(of: Self.meta(Self.idB), trackCount: 1, items: [Self.track(0, name: "B")])
        let first = try #require(try await key(Self.idA))
        let other = try #require(try await key(Self.idB))
        try await cache.replaceEntries(of: Self.meta(Self.idA, snapshot: "s2"), trackCount: 1, items: [Self.track(7)])
        let second = try #require(try await key(Self.idA))
        #expect(second > max(first, other), "a rewritten list goes after every other")
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!))?.map(\.position) == [7])
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idB)!))?.map(\.name) == ["B"])
        let counts = try cache.pool.read { db in try Row.fetchAll(db, sql: "SELECT list, COUNT(*) AS n FROM item GROUP BY list ORDER BY list") }
        #expect(counts.map { $0["list"] as Int64 } == [other, second] && counts.map { $0["n"] as Int } == [1, 1], "the old rows are gone")
        // A stray row where the next list will go (a file edited by hand) does not block it.
        let next = try #require(try await key(Self.idA)) + 1
        try await cache.pool.write { db in
            try db.execute(
                sql: "INSERT INTO item (key, kind, uri, name, artists, duration_ms) VALUES (?, 'track', 'u', 'stray', '[]', 1)", arguments: [next << 24])
        }
        try await cache.replaceEntries(of: Self.meta(Self.idA, snapshot: "s3"), trackCount: 1, items: [Self.track(0, name: "A again")])
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!))?.map(\.name) == ["A again"])
        // New caches get 8 KB pages.
        #expect(try await cache.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == 8192)
        // An empty list keeps its key and holds nothing.
        try await cache.replaceEntries(of: Self.meta(Self.idB, snapshot: "s3"), trackCount: 0, items: [])
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idB)!)) == [])
    }

    /// A list is one range of the item table's rowids for every reader: no scan, no sort.
    @Test func listsAreReadAsOneRangeOfKeys() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        let plans = try await cache.pool.read { db in
            try [LibraryCache.itemSelect, LibraryCache.searchSelect].map { sql in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: [Self.idA]).map { $0["detail"] as String }
            }
        }
        for plan in plans {
            #expect(plan.contains { $0.contains("SEARCH item USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(plan)")
            #expect(!plan.contains { $0.contains("SCAN item") || $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    /// Rows go in statements of 64 and one of whatever is left: every size around those edges.
    @Test(arguments: [1, 2, 63, 64, 65, 127, 128, 129, 481])
    func everyListSizeIsWrittenWhole(_ size: Int) async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        let items = (0..<size).map { Self.track($0, name: "Song \($0)") }
        #expect(try await cache.replaceEntries(of: Self.meta(Self.idA), trackCount: size, items: items) == size)
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)) == items)
    }

    @Test func aCacheFromTheFirstSchemaKeepsItsItemsAndRules() async throws {
        let dir = try TempDir()
        let path = dir.path("library.sqlite")
        // A cache as the first release left it: only the v1 migration, rows written by plain SQL.
        do {
            let old = try DatabasePool(path: path)
            try CacheSchema.migrator.migrate(old, upTo: "v1: playlists, items, sync runs")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO playlist (id, sort_order, name, owner_id, snapshot_id, track_count, collaborative, is_public, synced_at)
                            VALUES (?, 0, 'Old', 'me', 's1', 2, 0, 1, '2026-01-01 00:00:00.000');
                        INSERT INTO item VALUES (?, 0, 'track', '4uLU6hMCjMI75M1A2tKUQC', 'spotify:track:4uLU6hMCjMI75M1A2tKUQC', 'Song', '["A","B"]', 'Al', 1000, NULL);
                        INSERT INTO item VALUES (?, 3, 'local', NULL, 'spotify:local:x', 'Mine', '[]', NULL, 5, '2024-01-01T00:00:00Z');
                        INSERT INTO playlist (id, sort_order, name, owner_id, snapshot_id, track_count, collaborative, is_public, synced_at)
                            VALUES (?, 1, 'Huge', 'me', 's9', 1, 0, 1, '2026-01-01 00:00:00.000');
                        INSERT INTO item VALUES (?, 16777216, 'track', '4uLU6hMCjMI75M1A2tKUQC', 'spotify:track:4uLU6hMCjMI75M1A2tKUQC', 'Far', '[]', NULL, 1, NULL);
                        """, arguments: [Self.idA, Self.idA, Self.idA, Self.idB, Self.idB])
            }
            try old.close()
        }
        let cache = try LibraryCache.open(path: path, verify: true, warn: { _ in Issue.record("an upgraded cache is not damaged") })
        let items = try #require(try cache.entries(of: .playlist(SpotifyID(Self.idA)!)))
        #expect(items.map(\.position) == [0, 3])
        #expect(items.map(\.kind) == [.track, .local] && items[0].artists == ["A", "B"] && items[1].addedAt == "2024-01-01T00:00:00Z")
        // v5 forgets every snapshot so the next sync fills the new columns (album id, release
        // date); the items stay readable meanwhile.
        #expect(try cache.playlist(.playlist(SpotifyID(Self.idA)!))?.snapshotID == nil, "the next sync fetches it again")
        #expect(items.allSatisfy { $0.releaseDate == nil && $0.albumID == nil })
        // A position the new key cannot hold: that list is not carried over, and is fetched again.
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idB)!)) == [])
        #expect(try cache.playlist(.playlist(SpotifyID(Self.idB)!))?.snapshotID == nil)
        try await cache.remove([Self.idB])
        // The rules still hold on the rebuilt table: kind, key (not negative, unique), and the
        // list and position computed from it; a list's rows go with its playlist or its new list.
        let list = try #require(
            try await cache.pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT items_key FROM playlist WHERE id = ?", arguments: [Self.idA])
            })
        let computed = try cache.pool.read { db in try Row.fetchAll(db, sql: "SELECT key, list, position FROM item ORDER BY key") }
        #expect(computed.map { $0["list"] as Int64 } == [list, list] && computed.map { $0["position"] as Int } == [0, 3])
        #expect(computed.map { $0["key"] as Int64 } == [list << 24, list << 24 | 3])
        for bad in ["\(list << 24 | 9), 'song'", "-1, 'track'", "\(list << 24), 'track'"] {
            await #expect(throws: (any Error).self, "\(bad)") {
                try await cache.pool.write { db in
                    try db.execute(sql: "INSERT INTO item (key, kind, uri, name, artists, duration_ms) VALUES (\(bad), 'u', 'n', '[]', 1)")
                }
            }
        }
        try await cache.pool.write { db in
            try db.execute(sql: "INSERT INTO item (key, kind, uri, name, artists, duration_ms) VALUES (\((list + 1) << 24), 'track', 'u', 'n', '[]', 1)")
        }
        try await cache.pool.write { db in try db.execute(sql: "UPDATE playlist SET items_key = ? WHERE id = ?", arguments: [list + 1, Self.idA]) }
        #expect(try cache.entries(of: .playlist(SpotifyID(Self.idA)!))?.map(\.name) == ["n"], "the old list's rows went with the old number")
        try await cache.remove([Self.idA])
        #expect(try await cache.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == 0)
    }

    @Test func searchFindsItemsInPlaylistOrderWithoutLoadingThem() async throws {
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("library.sqlite"), warn: { _ in })
        func item(_ position: Int, _ name: String, _ artists: [String], _ album: String? = nil) -> CachedEntry {
            CachedEntry(
                position: position, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", name: name,
                artists: artists, album: album, durationMS: 1000, addedAt: nil)
        }
        try await cache.updateMetadata([(Self.meta(Self.idB, name: "Second"), 1), (Self.meta(Self.idA, name: "First"), 0)])
        try await cache.replaceEntries(
            of: Self.meta(Self.idA, name: "First"), trackCount: 3,
            items: [
                item(0, "Halo", ["Beyoncé"]), item(2, "Run", ["A \"quoted\" band", "B, C"], "Río Abajo"), item(5, "'); DROP TABLE item;--", []),
            ])
        try await cache.replaceEntries(
            of: Self.meta(Self.idB, name: "Second"), trackCount: 5,
            items: [
                item(1, "River", ["Leon"]), item(3, "Halo (live)", ["BEYONCE"]), item(4, "Song", ["Alpha", "Beta Band"]), item(6, "Tune", ["ÜBER", "Over"]),
            ])
        try await cache.replaceEntries(
            of: PlaylistMeta(
                id: "liked", name: "Liked Songs", ownerID: "me", ownerName: nil, snapshotID: nil, total: 1,
                collaborative: false, isPublic: false), trackCount: 1, items: [item(7, "Halo", ["beyonce"])], sortOrder: -1)
        func found(_ query: String, limit: Int = 10) throws -> [String] {
            try cache.search(SearchText.foldedBytes(query), limit: limit).map { "\($0.playlistName)#\($0.item.position)" }
        }
        #expect(try found("beyonce") == ["Liked Songs#7", "First#0", "Second#3"], "Liked Songs first, then the playlists' order")
        #expect(try found("beyonce", limit: 2) == ["Liked Songs#7", "First#0"])
        #expect(try found("\"quoted\" band, b") == ["First#2"], "artists are matched as shown: joined with \", \"")
        #expect(try found("rio abajo") == ["First#2"], "albums, diacritics folded")
        #expect(try found("alpha, beta b") == ["Second#4"] && found("a, beta") == ["Second#4"], "ASCII artists joined as shown")
        #expect(try found("uber, over") == ["Second#6"], "a name with diacritics in the list")
        #expect(try found("drop table") == ["First#5"])
        #expect(try found("zzqx").isEmpty)
        let hit = try #require(try cache.search(SearchText.foldedBytes("run"), limit: 1).first)
        #expect(hit.item == item(2, "Run", ["A \"quoted\" band", "B, C"], "Río Abajo") && hit.playlistID == Self.idA)
    }

    @Test func garbageFileIsMovedAsideAndRebuilt() throws {
        let dir = try TempDir()
        let path = dir.path("library.sqlite")
        try Data("this is not a database, just text that happens to be here".utf8).write(to: URL(fileURLWithPath: path))
        let warnings = WarningSink()
        let cache = try LibraryCache.open(path: path, warn: warnings.handler)
        #expect(try cache.playlists().isEmpty)
        #expect(warnings.lines.current.count == 1)
        #expect(warnings.lines.current.first?.contains("was damaged") == true)
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix("library.sqlite.corrupt-") }
        #expect(aside.count == 1)
    }

    @Test func corruptedPagesAreMovedAsideAndRebuilt() async throws {
        let dir = try TempDir()
        let path = dir.path("library.sqlite")
        do {
            let cache = try LibraryCache.open(path: path, warn: { _ in })
            try await cache.updateMetadata([(Self.meta(Self.idA), 0)])
            try await cache.replaceEntries(
                of: Self.meta(Self.idA), trackCount: 2000, items: (0..<2000).map { Self.track($0, name: String(repeating: "x", count: 100)) })
        }
        // The pool is gone, so the WAL was checkpointed into the file; scribble over its middle pages.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 3)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size / 3)))
        try handle.close()

        // A reader that skips the whole-file check meets the damage as an error naming the fix,
        // and leaves the file where it is.
        do {
            let reader = try LibraryCache.open(path: path, verify: false, warn: { _ in Issue.record("a reader moved the cache") })
            let failure = #expect(throws: CacheError.self) { _ = try reader.entries(of: .playlist(SpotifyID(Self.idA)!)) }
            #expect(failure?.hint?.contains("run `timbre sync`") == true, "\(String(describing: failure))")
        }
        #expect(FileManager.default.fileExists(atPath: path))

        let warnings = WarningSink()
        let cache = try LibraryCache.open(path: path, warn: warnings.handler)
        #expect(warnings.lines.current.count == 1)
        #expect(try cache.playlists().isEmpty)
        #expect(try cache.integrityCheck())
    }

    @Test func secondSyncLockWaitsThenNamesTheHolder() async throws {
        let dir = try TempDir()
        let path = dir.path("cache/library.sqlite")
        let first = try await SyncLock.acquire(cachePath: path, wait: .zero)
        let started = ContinuousClock.now
        do {
            _ = try await SyncLock.acquire(cachePath: path, wait: .milliseconds(300))
            Issue.record("the second lock must not be granted")
        } catch let error as SyncLockError {
            #expect(error.message == "another timbre sync is running (pid \(getpid()))")
            #expect(error.exitStatus == .failure)
        }
        #expect(ContinuousClock.now - started >= .milliseconds(300))

        // Released while the second one waits (after it found the lock held): it gets the lock. The
        // release is tied to the waiter's own step, not to a timer, and the wait is only a deadline.
        let busy = Locked(0)
        let second = try await SyncLock.acquire(cachePath: path, wait: .seconds(3600)) {
            if busy.withLock({ count -> Bool in
                count += 1
                return count == 1
            }) {
                first.release()
            }
        }
        #expect(busy.current >= 1, "the second acquire found the lock held before it was released")
        second.release()
        _ = try await SyncLock.acquire(cachePath: path, wait: .zero)
    }
}
