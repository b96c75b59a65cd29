import Foundation
import GRDB
import Testing
import TimbreCore

@testable import TimbreLibrary

/// Shipped migrations are history: a cache made by an older timbre has already run them, so
/// editing one changes nothing for those users and splits the schema in two. This test holds the
/// identifier and a fingerprint of every shipped migration's SQL; a schema change is a new
/// migration appended to `CacheSchema.migrations` and a new line here.
@Suite struct MigrationHistoryTests {
    static let shipped: [(identifier: String, fingerprint: UInt64)] = [
        ("v1: playlists, items, sync runs", 0xC517_C728_2E6E_7A49),
        ("v2: items check their kind without a lookup table", 0x0BA9_C8D1_9332_D059),
        ("v3: items keyed by a list number that only grows", 0xFCEF_3BA7_8BD6_DD3A),
        ("v4: items keyed by one integer, list and position computed from it", 0x5AA3_AC86_1827_E753),
        ("v5: items keep their album's id and release date", 0x580D_3610_8E99_D592),
        ("v6: a folded-text index of each list for search", 0x408E_A5EA_0A67_6CB4),
        ("v7: items keep what export writes: artist ids, disc and track number, explicit, ISRC, added by", 0xBB33_1CF4_FE6D_6755),
        ("v8: pages read of a list not yet stored whole", 0xCBED_5E20_BC73_ACE0),
    ]

    /// The edit journal's (user data: never rebuilt, so even more so).
    static let journal: [(identifier: String, fingerprint: UInt64)] = [
        ("journal v1: edits", 0xAA72_8F5F_97AC_B604),
        ("user data v2: local folders", 0x3895_00B9_CD97_CB8C),
        ("journal v3: failure reasons", 0xD1A0_F4B9_E78B_7A97),
        ("user data: restore journal", 0x950F_E1CF_C989_3D9E),
        ("history v4: playlist versions", 0x72A9_687A_29FE_473B),
        ("journal v5: writes in flight, failures told", 0x8594_0168_4719_EEAE),
        ("history v5: versions made by an undo or a redo", 0x0689_B894_4487_345F),
    ]

    /// FNV-1a over the SQL's UTF-8 bytes: a change detector, not a security measure.
    static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    @Test func shippedMigrationsAreUnchangedAndInOrder() {
        let current = CacheSchema.migrations
        #expect(current.count >= Self.shipped.count, "a shipped migration was removed")
        for (index, (identifier, fingerprint)) in Self.shipped.enumerated() where index < current.count {
            #expect(current[index].identifier == identifier, "migration \(index + 1) was renamed or moved: shipped migrations are never edited — add a new one")
            #expect(
                Self.fingerprint(current[index].sql) == fingerprint,
                "the SQL of shipped migration \"\(identifier)\" changed (fingerprint \(String(Self.fingerprint(current[index].sql), radix: 16))): add a new migration instead"
            )
        }
    }

    @Test func theJournalsMigrationsAreUnchanged() {
        let current = UserDataSchema.migrations
        #expect(current.map(\.identifier) == Self.journal.map(\.identifier), "a journal migration was added, renamed or removed: list it here")
        for (index, (identifier, fingerprint)) in Self.journal.enumerated() where index < current.count {
            #expect(
                Self.fingerprint(current[index].sql) == fingerprint,
                "the SQL of shipped journal migration \"\(identifier)\" changed (fingerprint \(String(Self.fingerprint(current[index].sql), radix: 16))): add a new migration instead"
            )
        }
    }

    @Test func everyMigrationIsListedHere() {
        #expect(
            CacheSchema.migrations.map(\.identifier) == Self.shipped.map(\.identifier),
            "a new migration needs its line in MigrationHistoryTests.shipped")
    }

    /// v5 → v6: a cache with items and no search index gets one row per stored list, filled by
    /// the migration's follow-up (`CacheSchema.followUps`, outside the fingerprinted history),
    /// and searching it gives the scan's answers without scanning any list.
    @Test func v6IndexesEveryStoredListForSearch() async throws {
        let dir = try TempDir()
        let path = dir.path("library.sqlite")
        let idA = "0123456789abcdefABCDEF", idB = "1123456789abcdefABCDEF", idC = "2123456789abcdefABCDEF"
        do {
            let old = try DatabasePool(path: path)
            try CacheSchema.migrator.migrate(old, upTo: "v5: items keep their album's id and release date")
            try await old.write { db in
                for (order, id, list) in [(0, idA, 1), (1, idB, 2), (2, idC, 3)] {
                    try db.execute(
                        sql: """
                            INSERT INTO playlist (id, sort_order, name, owner_id, snapshot_id, track_count, collaborative, is_public, items_key)
                                VALUES (?, ?, ?, 'me', 's1', 2, 0, 1, ?)
                            """, arguments: [id, order, "List \(order)", list])
                }
                // A: positions 0, 1, 2; B: positions with gaps; C (list 3): no items. An artist with
                // an escape, an album with diacritics, text that looks like SQL or FTS syntax.
                let rows: [(Int64, String, String, String?)] = [
                    (1 << 24 | 0, "River", #"["Léon","A \"B\""]"#, "Río"), (1 << 24 | 1, "'); DROP TABLE item;--", "[]", nil),
                    (1 << 24 | 2, "NEAR(a b) OR \"c\"*", #"["x"]"#, "^:-"), (2 << 24 | 3, "river deep", #"["Ünder"]"#, "Album"),
                    (2 << 24 | 17, "Halo", #"["Beyoncé"]"#, nil),
                ]
                for (key, name, artists, album) in rows {
                    try db.execute(
                        sql: "INSERT INTO item (key, kind, uri, name, artists, album, duration_ms) VALUES (?, 'track', 'u', ?, ?, ?, 1)",
                        arguments: [key, name, artists, album])
                }
            }
            try old.close()
        }
        let cache = try LibraryCache.open(path: path, verify: true, warn: { text in Issue.record("an upgraded cache is not damaged: \(text)") })
        let rows = try cache.pool.read { db in try Row.fetchAll(db, sql: "SELECT list, folded, positions FROM item_search ORDER BY list") }
        #expect(rows.map { $0["list"] as Int64 } == [1, 2, 3])
        #expect((rows[1]["positions"] as Data?) == Data([3, 0, 0, 0, 17, 0, 0, 0]), "B's positions are stored; A's are 0, 1, 2")
        #expect((rows[0]["positions"] as Data?) == nil && (rows[2]["folded"] as Data?) == Data())
        #expect((rows[1]["folded"] as Data?) == Data("river deep\u{1F}under\u{1F}album\u{1E}halo\u{1F}beyonce\u{1F}\u{1E}".utf8))
        let stamp = try await cache.pool.read { db in try String.fetchOne(db, sql: "SELECT folding FROM item_search_state") }
        #expect(stamp == SearchIndex.foldingStamp)
        for query in ["river", "r", "leon, a \"b\"", "rio", "drop table", "near(", "\"c\"*", "^:-", "beyonce", "zzqx", "e"] {
            let needle = SearchText.foldedBytes(query)
            let indexed = try cache.indexedSearch(needle, limit: 10)
            #expect(try indexed.matches == cache.searchByScan(needle, limit: 10) && indexed.scannedLists == 0, "\(query)")
        }
        #expect(try cache.search(SearchText.foldedBytes("river"), limit: 10).map { "\($0.playlistName)#\($0.item.position)" } == ["List 0#0", "List 1#3"])
    }

    /// v6 → v7: items keep their rows with the new columns unknown, and every list is fetched
    /// again by the next sync (snapshots and Liked Songs' fingerprint forgotten), which fills them.
    @Test func v7KeepsItemsAndMakesTheNextSyncFillTheExportColumns() async throws {
        let dir = try TempDir()
        let path = dir.path("library.sqlite")
        let id = "0123456789abcdefABCDEF"
        do {
            let old = try DatabasePool(path: path)
            try CacheSchema.migrator.migrate(old, upTo: "v6: a folded-text index of each list for search")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO playlist (id, sort_order, name, owner_id, snapshot_id, track_count, collaborative, is_public, items_key, fingerprint)
                            VALUES (?, 0, 'Old', 'me', 's1', 1, 0, 1, 1, 'f')
                        """, arguments: [id])
                try db.execute(
                    sql:
                        "INSERT INTO item (key, kind, uri, name, artists, album, duration_ms) VALUES (?, 'track', 'spotify:track:x', 'Song', '[\"A\"]', 'Al', 5)",
                    arguments: [1 << 24 | 3])
            }
            try old.close()
        }
        let cache = try LibraryCache.open(path: path, verify: true, warn: { text in Issue.record("an upgraded cache is not damaged: \(text)") })
        let ref = PlaylistRef.playlist(try #require(SpotifyID(id)))
        let kept = try #require(try cache.entries(of: ref))
        #expect(kept.map(\.name) == ["Song"] && kept.map(\.position) == [3])
        #expect(
            kept.allSatisfy {
                $0.artistIDs == nil && $0.discNumber == nil && $0.trackNumber == nil && $0.explicit == nil && $0.isrc == nil && $0.addedBy == nil
            })
        let state = try await cache.storedState()[id]
        #expect(state?.snapshotID == nil && state?.fingerprint == nil, "the next sync fetches the list again")

        // And what a sync writes now is read back as it was written.
        let entry = CachedEntry(
            position: 0, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", name: "N",
            artists: ["A", "B"], album: nil, durationMS: 1, addedAt: nil, artistIDs: ["0OdUWJ0sBjDrqHygGUXeCF", ""],
            discNumber: 1, trackNumber: 0, explicit: false, isrc: "USRC17607839", addedBy: "someone")
        let meta = PlaylistMeta(id: id, name: "Old", ownerID: "me", ownerName: nil, snapshotID: "s2", total: 1, collaborative: false, isPublic: true)
        try await cache.replaceEntries(of: meta, trackCount: 1, items: [entry])
        #expect(try cache.entries(of: ref) == [entry])
    }

    @Test func theFingerprintSeesAOneCharacterChange() {
        #expect(Self.fingerprint("CREATE TABLE a (x)") != Self.fingerprint("CREATE TABLE a (y)"))
        #expect(Self.fingerprint("") == 0xCBF2_9CE4_8422_2325)
    }
}
