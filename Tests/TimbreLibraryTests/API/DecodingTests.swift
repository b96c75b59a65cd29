import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

@Suite struct DecodingTests {
    private func page(_ json: String, fingerprint: Bool = false) throws -> EntryPage {
        try EntryPage.decode(Data(json.utf8), fingerprint: fingerprint)
    }

    private func items(_ json: String) throws -> (items: [CachedEntry], malformed: [String]) {
        let (rows, malformed) = SyncEngine.rows(of: [try page(json)])
        return (rows.items, malformed)
    }

    static let track =
        #"{"id":"4uLU6hMCjMI75M1A2tKUQC","uri":"spotify:track:4uLU6hMCjMI75M1A2tKUQC","name":"Song","type":"track","duration_ms":213000,"is_local":false,"artists":[{"name":"A"},{"name":"B"}],"album":{"name":"Album","images":null},"popularity":7,"brand_new_field":{"x":1}}"#

    @Test func shape2026UsesItem() throws {
        let decoded = try items(
            #"{"items":[{"added_at":"2024-01-01T00:00:00Z","is_local":false,"item":\#(Self.track),"video_thumbnail":{"url":null}}],"total":1,"next":null}"#)
        #expect(
            decoded.items == [
                CachedEntry(
                    position: 0, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC",
                    name: "Song", artists: ["A", "B"], album: "Album", durationMS: 213000, addedAt: "2024-01-01T00:00:00Z")
            ])
        #expect(decoded.malformed.isEmpty)
    }

    @Test func legacyShapeUsesTrack() throws {
        let decoded = try items(#"{"href":"x","items":[{"added_at":null,"added_by":null,"track":\#(Self.track)}],"total":1}"#)
        #expect(decoded.items.map(\.id) == ["4uLU6hMCjMI75M1A2tKUQC"])
        #expect(decoded.items.first?.addedAt == nil)
    }

    @Test func nullEntriesKeepTheOtherPositions() throws {
        let decoded = try items(#"{"items":[{"item":null},{"track":null,"added_at":null},{"item":\#(Self.track)},null,{"item":\#(Self.track)}],"total":5}"#)
        #expect(decoded.items.map(\.position) == [2, 4], "duplicates survive, nulls leave gaps")
        #expect(decoded.malformed.count == 1, "a non-object entry is reported")
    }

    @Test func localFilesAndEpisodesAreKept() throws {
        let local =
            #"{"added_at":null,"is_local":true,"item":{"id":null,"uri":"spotify:local:Local+Artist:Home+Tapes:My+Song:123","name":"My Song","type":"track","duration_ms":123000,"is_local":true,"artists":[{"name":"Local Artist","id":null}],"album":{"name":"Home Tapes","id":null}}}"#
        let episode =
            #"{"added_at":"2025-02-03T04:05:06Z","item":{"id":"0123456789abcdefABCDEF","uri":"spotify:episode:0123456789abcdefABCDEF","name":"Ep 1","type":"episode","duration_ms":3600000,"show":{"name":"The Show","publisher":"P"},"images":null}}"#
        let decoded = try items(#"{"items":[\#(local),\#(episode)],"total":2}"#)
        #expect(
            decoded.items == [
                CachedEntry(
                    position: 0, kind: .local, id: nil, uri: "spotify:local:Local+Artist:Home+Tapes:My+Song:123", name: "My Song",
                    artists: ["Local Artist"], album: "Home Tapes", durationMS: 123000, addedAt: nil),
                CachedEntry(
                    position: 1, kind: .episode, id: "0123456789abcdefABCDEF", uri: "spotify:episode:0123456789abcdefABCDEF", name: "Ep 1",
                    artists: ["The Show"], album: "The Show", durationMS: 3600000, addedAt: "2025-02-03T04:05:06Z"),
            ])
    }

    @Test func malformedIDsAreSkippedAndReported() throws {
        let short = Self.track.replacingOccurrences(of: "4uLU6hMCjMI75M1A2tKUQC", with: "4uLU6hMCjMI75M1A2tKUQ")
        let dash = Self.track.replacingOccurrences(of: "4uLU6hMCjMI75M1A2tKUQC", with: "4uLU6hMCjMI75M1A2tKU-C")
        let decoded = try items(#"{"items":[{"item":\#(short)},{"item":\#(dash)},{"item":\#(Self.track)}],"total":3}"#)
        #expect(decoded.items.map(\.position) == [2])
        #expect(decoded.malformed.count == 2)
    }

    @Test func fieldsOfUnexpectedTypesReadAsMissing() throws {
        let odd =
            #"{"items":[{"added_at":12,"item":{"id":"4uLU6hMCjMI75M1A2tKUQC","name":null,"type":"track","duration_ms":"long","artists":null,"album":null}}],"total":"many"}"#
        let decoded = try page(odd)
        #expect(decoded.total == nil)
        let item = decoded.rows.items.first
        #expect(item?.name == "" && item?.artists == [] && item?.album == nil && item?.durationMS == 0 && item?.addedAt == nil)
        #expect(item?.uri == "spotify:track:4uLU6hMCjMI75M1A2tKUQC")
    }

    @Test func hostileNamesAreKeptExactly() throws {
        let names = [
            "'); DROP TABLE playlists;--", "\u{1B}]0;pwned\u{07}", "\u{1B}[31mred", "\u{9B}2J", "e\u{301}", "a\"b,c\nd\r\ne\tf", "👩‍👩‍👧 🇸🇪 日本 한국 مرحبا שלום",
        ]
        for name in names {
            let encoded = String(decoding: try JSONSerialization.data(withJSONObject: [name], options: [.fragmentsAllowed]), as: UTF8.self).dropFirst()
                .dropLast()
            let json = Self.track.replacingOccurrences(of: #""name":"Song""#, with: #""name":\#(encoded)"#)
            #expect(try items(#"{"items":[{"item":\#(json)}],"total":1}"#).items.first?.name == name)
        }
    }

    @Test func positionsCountAcrossPagesAndMalformedEntries() throws {
        let first = try page(#"{"items":[{"item":\#(Self.track)},null,{"item":null}],"total":5}"#)
        let second = try page(#"{"items":[{"item":{"id":"short","type":"track"}},{"track":\#(Self.track)}],"total":5}"#)
        #expect(first.entries == 3 && second.entries == 2)
        let (rows, malformed) = SyncEngine.rows(of: [first, second])
        #expect(rows.items.map(\.position) == [0, 4])
        #expect(malformed == ["an entry that is not an object", "track id 'short'"])
    }

    @Test func aRepeatedFieldKeepsItsLastValue() throws {
        let json =
            #"{"items":[{"item":{"id":"nope"}}],"items":[{"item":{"name":"x","name":"Song","id":"4uLU6hMCjMI75M1A2tKUQC","artists":[{"name":"A"},{"name":null},7,{"name":"B","name":"C"}],"album":{"name":"One","name":"Two"}}}],"total":1}"#
        let decoded = try page(json)
        #expect(decoded.malformed.isEmpty)
        #expect(decoded.rows.items.map(\.name) == ["Song"])
        #expect(decoded.rows.items.first?.artists == ["A", "C"])
        #expect(decoded.rows.items.first?.album == "Two")
    }

    @Test func textIsRepairedLikeReadString() throws {
        // Invalid UTF-8 and a lone surrogate escape become U+FFFD, as `JSONReader.readString` does.
        var body = Array(#"{"items":[{"item":{"id":"4uLU6hMCjMI75M1A2tKUQC","name":"a"#.utf8)
        body += [0xFF, 0xC3]
        body += Array(#"b","album":{"name":"\ud800x \u00e9"}}}],"total":1}"#.utf8)
        let item = try EntryPage.decode(Data(body)).rows.items.first
        #expect(item?.name == "a\u{FFFD}\u{FFFD}b")
        #expect(item?.album == "\u{FFFD}x é")
    }

    @Test func storedArtistsAreTheJSONThatJSONValueWrites() {
        let names = ["plain", "'); DROP TABLE item;--", "\u{1B}]0;pwned\u{07}", "\u{9B}2J", "a\"b\\c\nd\u{7F}", "\u{2028}\u{2029}", "👩‍👩‍👧 日本", ""]
        let item = CachedEntry(
            position: 0, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "u", name: "n", artists: names, album: nil,
            durationMS: 1, addedAt: nil)
        let rows = EntryRows([item])
        #expect(rows.string(rows.rows[0].artists) == JSONValue.array(names.map(JSONValue.string)).serialized())
        #expect(rows.items == [item])
    }

    /// The Liked Songs fingerprint is the one earlier versions stored: an unchanged Liked Songs
    /// is not fetched again after an upgrade.
    @Test func likedFingerprintIsStable() throws {
        let json =
            #"{"items":[{"added_at":"2024-01-01T00:00:00Z","track":\#(Self.track)},7,{"added_at":null,"track":null},{"track":{"id":"bad","name":"Sch\u00f6n","uri":"spotify:track:bad"}}],"total":4}"#
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0x1F) &* 0x0000_0100_0000_01B3
        }
        for text in [
            "4", "2024-01-01T00:00:00Z", "spotify:track:4uLU6hMCjMI75M1A2tKUQC", "Song", "-", "-", "-", "-", "-", "-", "-", "spotify:track:bad", "Schön",
        ] {
            mix(text)
        }
        #expect(try page(json, fingerprint: true).fingerprint == String(hash, radix: 16))
        #expect(try page(json).fingerprint == nil)
        #expect(try page(json.replacingOccurrences(of: "Song", with: "Song!"), fingerprint: true).fingerprint != String(hash, radix: 16))
    }

    @Test func brokenJSONIsAnError() {
        #expect(throws: (any Error).self) { try page(#"{"items":[{"item":{"id":"#) }
        #expect(throws: (any Error).self) { try page(#"{"total":3}"#) }
    }

    @Test func playlistObjectsInBothShapes() throws {
        let modern =
            #"{"collaborative":false,"description":null,"id":"37i9dQZF1DXcBWIGoYBM5M","images":null,"items":{"href":"h","total":50},"name":"N","owner":{"id":"alice.k","display_name":null},"public":true,"snapshot_id":"s1","type":"playlist"}"#
        let legacy =
            #"{"collaborative":true,"id":"37i9dQZF1DXcBWIGoYBM5M","images":[],"name":"N","owner":{"id":"u"},"public":null,"snapshot_id":"s2","tracks":{"href":"h","total":7}}"#
        let list = try API.decode(Data(#"{"items":[\#(modern),\#(legacy)],"total":2,"next":null}"#.utf8), as: API.Page<API.Playlist>.self)
        let warnings = Locked<[String]>([])
        let metas = list.items.compactMap { $0.flatMap { SyncEngine.meta($0, warnings: warnings) } }
        #expect(
            metas == [
                PlaylistMeta(
                    id: "37i9dQZF1DXcBWIGoYBM5M", name: "N", ownerID: "alice.k", ownerName: nil, snapshotID: "s1", total: 50, collaborative: false,
                    isPublic: true),
                // `tracks{…}` and no `items{…}`: a server of the older shape, read through `/tracks`.
                PlaylistMeta(
                    id: "37i9dQZF1DXcBWIGoYBM5M", name: "N", ownerID: "u", ownerName: nil, snapshotID: "s2", total: 7, collaborative: true, isPublic: false,
                    legacyShape: true),
            ])
        let bad = try API.decode(Data(#"{"id":"not-an-id","name":"x"}"#.utf8), as: API.Playlist.self)
        #expect(SyncEngine.meta(bad, warnings: warnings) == nil)
        #expect(warnings.current.count == 1)
    }

    @Test func itemJSONAndCSVFollowTheContract() {
        let item = CachedEntry(
            position: 3, kind: .local, id: nil, uri: "spotify:local:A:B:T:1", name: "Say \"hi\", now\nplease",
            artists: ["A", "B, C"], album: nil, durationMS: 1000, addedAt: nil)
        // Spotify's index 3 is the fourth entry: what timbre prints counts from 1.
        #expect(
            item.json.serialized()
                == #"{"position":4,"kind":"local","id":null,"uri":"spotify:local:A:B:T:1","name":"Say \"hi\", now\nplease","artists":["A","B, C"],"album":null,"duration_ms":1000,"added_at":null}"#
        )
        #expect(CachedEntry.csvHeader == "position,name,artists,album,duration_ms,added_at,uri")
        #expect(item.csvRow == "4,\"Say \"\"hi\"\", now\nplease\",\"A; B, C\",,1000,,spotify:local:A:B:T:1")
    }

    @Test func csvFromHostileNamesCarriesNoEscapeAndNoFormula() {
        let item = CachedEntry(
            position: 0, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC",
            name: "=1+1\u{1B}[2J", artists: ["@SUM(A1)", "\u{9B}x"], album: "+cmd|' /C calc'!A0", durationMS: 5, addedAt: nil)
        let row = item.csvRow
        #expect(!row.unicodeScalars.contains { $0.value == 0x1B || (0x80...0x9F).contains($0.value) })
        #expect(row == "1,\"'=1+1[2J\",\"'@SUM(A1); x\",\"'+cmd|' /C calc'!A0\",5,,spotify:track:4uLU6hMCjMI75M1A2tKUQC")
    }

    @Test func playlistJSONFollowsTheContract() {
        let playlist = CachedPlaylist(
            id: "liked", name: "Liked Songs", ownerID: "u", ownerName: nil, snapshotID: nil, trackCount: 812,
            collaborative: false, isPublic: false, syncedAt: Date(timeIntervalSince1970: 1_795_341_600), unavailable: false)
        #expect(
            playlist.json.serialized()
                == #"{"id":"liked","name":"Liked Songs","owner_id":"u","owner_name":null,"snapshot_id":null,"track_count":812,"collaborative":false,"public":false,"synced_at":"2026-11-22T10:00:00Z"}"#
        )
    }

    @Test func reportJSONFollowsTheContract() {
        var report = SyncReport(
            status: .partial, checked: 60, updated: 3, unchanged: 56, failed: 1, removed: 0, likedUpdated: true, likedCount: 800,
            itemsWritten: 412, requests: 19, warnings: ["w"], durationMS: 1840, rateLimitedMS: 2000)
        #expect(
            report.json.serialized()
                == #"{"status":"partial","playlists":{"checked":60,"updated":3,"unchanged":56,"failed":1,"removed":0},"liked":{"updated":true,"count":800},"items_written":412,"requests":19,"warnings":["w"],"duration_ms":1840,"rate_limited_ms":2000,"to_read":[]}"#
        )
        // `to_read` (issue #42): the lists still to read, Liked Songs as `liked`.
        report.toRead = [SyncReport.ListRef(id: "liked", name: "Liked Songs"), SyncReport.ListRef(id: "37i9dQZF1DXcBWIGoYBM5M", name: "Mix")]
        #expect(
            report.json.serialized().hasSuffix(
                #""to_read":[{"id":"liked","name":"Liked Songs"},{"id":"37i9dQZF1DXcBWIGoYBM5M","name":"Mix"}]}"#))
        #expect(report.exitStatus == .partial)
    }

    /// What `export` writes besides the rest: artist ids (one per kept name, "" for an artist with
    /// none or a malformed one), disc and track number, explicit, ISRC, who added the entry; wrong
    /// types read as unknown; every column survives joining pages.
    @Test func exportColumnsAreReadAndSurviveJoiningPages() throws {
        let full =
            #"{"id":"4uLU6hMCjMI75M1A2tKUQC","uri":"spotify:track:4uLU6hMCjMI75M1A2tKUQC","name":"Song","type":"track","duration_ms":1,"disc_number":2,"track_number":11,"explicit":true,"external_ids":{"ean":"x","isrc":"USRC17607839"},"artists":[{"id":"0OdUWJ0sBjDrqHygGUXeCF","name":"A, B"},{"name":"No id"},{"id":"bad,id","name":"C"},{"id":"1OdUWJ0sBjDrqHygGUXeCF"}],"album":{"id":"2OdUWJ0sBjDrqHygGUXeCF","name":"Al"}}"#
        let odd =
            #"{"id":"5uLU6hMCjMI75M1A2tKUQC","name":"Odd","type":"track","disc_number":"2","track_number":-3,"explicit":"yes","external_ids":null,"artists":[{"id":null,"name":"Z"}]}"#
        let json =
            #"{"items":[{"added_at":"2024-01-01T00:00:00Z","added_by":{"id":"someone","type":"user","uri":"spotify:user:someone"},"item":\#(full)},{"added_by":null,"item":\#(odd)}],"total":2}"#
        let decoded = try items(json)
        #expect(decoded.items.count == 2)
        let first = try #require(decoded.items.first), second = try #require(decoded.items.last)
        #expect(first.artists == ["A, B", "No id", "C"], "an artist without a name is not kept")
        #expect(first.artistIDs == ["0OdUWJ0sBjDrqHygGUXeCF", "", ""])
        #expect(first.discNumber == 2 && first.trackNumber == 11 && first.explicit == true)
        #expect(first.isrc == "USRC17607839" && first.addedBy == "someone" && first.albumID == "2OdUWJ0sBjDrqHygGUXeCF")
        #expect(second.artistIDs == nil && second.discNumber == nil && second.trackNumber == nil && second.explicit == nil)
        #expect(second.isrc == nil && second.addedBy == nil)

        var rows = EntryRows(decoded.items)
        rows.append(EntryRows(decoded.items), positionOffset: 2)
        #expect(rows.items.map(\.artistIDs) == [first.artistIDs, nil, first.artistIDs, nil])
        #expect(rows.items.map(\.isrc) == [first.isrc, nil, first.isrc, nil] && rows.items.map(\.addedBy) == ["someone", nil, "someone", nil])
        #expect(rows.items.map(\.trackNumber) == [11, nil, 11, nil] && rows.items.map(\.explicit) == [true, nil, true, nil])
    }

    /// A chunk fetched in several pages is joined with `append`: every column of the later pages
    /// survives it — album id and release date were once lost after the first 50 entries, so
    /// `sort --by year` and `stats` saw only the first page's years.
    @Test func joiningPagesKeepsEveryColumn() {
        func entries(_ range: Range<Int>) -> [CachedEntry] {
            range.map {
                CachedEntry(
                    position: $0 - range.lowerBound, kind: .track, id: "id\($0)", uri: "spotify:track:\($0)", name: "n\($0)",
                    artists: ["a\($0)"], album: "al\($0)", durationMS: $0, addedAt: "2020-01-01T00:00:0\($0 % 10)Z",
                    albumID: "album\($0)", releaseDate: "19\(60 + $0)")
            }
        }
        var rows = EntryRows(entries(0..<3))
        rows.append(EntryRows(entries(3..<5)), positionOffset: 3)
        let expected = entries(0..<5).enumerated().map { offset, entry in
            var entry = entry
            entry.position = offset
            return entry
        }
        #expect(rows.items == expected)
        #expect(rows.items.compactMap(\.year) == [1960, 1961, 1962, 1963, 1964])
    }
}
