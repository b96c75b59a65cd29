import Foundation
import GRDB
import Testing
import TimbreCore

@testable import TimbreLibrary

/// The versions' storage on a real user-data file, their encoding and their comparison.
@Suite struct PlaylistVersionsTests {
    static let playlist = "0123456789abcdefABCDEF"

    func state(_ uris: [String], name: String = "Road", at seconds: Double = 1_800_000_000, dates: [String?]? = nil) -> PlaylistState {
        PlaylistState(
            playlist: Self.playlist,
            details: PlaylistDetailsState(name: name, isPublic: false, collaborative: false, snapshotID: "snap-\(uris.count)-\(name)"),
            entries: uris.enumerated().map { index, uri in
                VersionEntry(uri: uri, addedAt: dates?[index] ?? "2024-03-0\(index % 9 + 1)T10:00:0\(index % 10)Z", addedBy: index % 2 == 0 ? "alice" : nil)
            },
            seenAt: Date(timeIntervalSince1970: seconds))
    }

    // MARK: Encoding

    /// Every kind of entry comes back exactly: usual dates (before and after 1970, out of order),
    /// an unusual date kept as text, none, adders and none.
    @Test func entriesRoundTripThroughTheBlob() throws {
        let dir = try TempDir()
        let versions = try UserData(path: dir.path("timbre.sqlite")).versions
        let dates: [String?] = [
            "2024-03-01T10:00:00Z", "1969-12-31T23:59:59Z", "2020-02-29T00:00:00Z", nil, "2024-03-01T10:00:00.5Z", "not a date",
            "0001-01-01T00:00:00Z", "2024-13-01T00:00:00Z",
        ]
        let uris = ["spotify:track:a", "spotify:track:b", "spotify:track:a", "spotify:local:x:y:z:1", "spotify:episode:e", "u", "v", "w"]
        let recorded = state(uris, dates: dates)
        try versions.record(recorded, source: .sync)
        let (version, entries) = try versions.state(1, of: Self.playlist)
        #expect(entries == recorded.entries)
        #expect(version.entryCount == uris.count)
        #expect(version.details == recorded.details)
    }

    @Test func varintsAndDatesRoundTrip() {
        for value: UInt64 in [0, 1, 127, 128, 300, 1 << 35, UInt64.max] {
            var bytes: [UInt8] = []
            VersionCoding.appendVarint(value, to: &bytes)
            var offset = 0
            #expect(VersionCoding.readVarint(bytes, &offset) == value)
            #expect(offset == bytes.count)
        }
        for value: Int64 in [0, -1, 1, Int64.min, Int64.max, -86_400] {
            #expect(VersionCoding.unzigzag(VersionCoding.zigzag(value)) == value)
        }
        for text in ["1970-01-01T00:00:00Z", "2026-11-26T11:20:49Z", "1900-03-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            #expect(VersionCoding.seconds(text).map(VersionCoding.text) == text)
        }
        #expect(VersionCoding.seconds("2026-02-30T00:00:00Z") == nil, "a date that does not exist is kept as text")
        #expect(VersionCoding.decode([0x02, 0x01]) == nil, "another format")
        #expect(VersionCoding.decode([VersionCoding.format, 0x81]) == nil, "a cut varint")
    }

    /// Entries added a few seconds apart take a few bytes each, not the 60-odd of their text.
    @Test func aVersionIsCompact() {
        let coded = (0..<1000).map { VersionCoding.Coded(uri: Int64(100_000 + $0), user: 3, date: .seconds(1_700_000_000 + Int64($0) * 40)) }
        let blob = VersionCoding.encode(coded)
        #expect(blob.count <= 8 + 1000 * 6, "the first date whole, then 6 bytes an entry")
        #expect(VersionCoding.decode(blob) == coded)
    }

    // MARK: Recording

    @Test func aVersionIsRecordedOnlyWhenSomethingChanged() throws {
        let dir = try TempDir()
        let versions = try UserData(path: dir.path("timbre.sqlite")).versions
        #expect(try versions.record(state(["a", "b", "c"]), source: .sync)?.version == 1)
        #expect(try versions.record(state(["a", "b", "c"]), source: .sync) == nil, "the same list and details: no version")
        let renamed = try #require(try versions.record(state(["a", "b", "c"], name: "Road 2"), source: .edit, edit: 7))
        #expect(renamed.version == 2 && renamed.renamed && renamed.edit == 7 && renamed.source == .edit)
        let changed = try #require(try versions.record(state(["c", "a", "d"], name: "Road 2"), source: .sync))
        #expect((changed.added, changed.removed, changed.moved) == (1, 1, 1))
        let log = try versions.versions(of: Self.playlist)
        #expect(log.map(\.version) == [3, 2, 1])
        #expect(log.map(\.renamed) == [false, true, false])
        #expect(try versions.latest(of: Self.playlist)?.version == 3)
        #expect(throws: UnknownVersion.self) { try versions.state(9, of: Self.playlist) }
    }

    @Test func aDeletedPlaylistKeepsItsVersionsUntilItComesBack() throws {
        let dir = try TempDir()
        let versions = try UserData(path: dir.path("timbre.sqlite")).versions
        try versions.record(state(["a", "b"]), source: .sync)
        try versions.markDeleted(Self.playlist, at: Date(timeIntervalSince1970: 1_800_000_100))
        let deleted = try versions.deleted()
        #expect(deleted.map(\.id) == [Self.playlist])
        #expect(deleted.first?.last.version == 1 && deleted.first?.last.entryCount == 2)
        #expect(try versions.deletedMatching("ROAD").map(\.id) == [Self.playlist])
        try versions.markPresent([Self.playlist])
        #expect(try versions.deleted().isEmpty)
        #expect(try versions.versions(of: Self.playlist).count == 1)
    }

    // MARK: Retention

    /// Old versions go, but never the newest 20 of a playlist; a manual prune also drops the texts
    /// only pruned versions used.
    @Test func pruningKeepsTheNewestTwenty() throws {
        let dir = try TempDir()
        let versions = try UserData(path: dir.path("timbre.sqlite")).versions
        for day in 0..<30 {
            try versions.record(state(["keep", "day-\(day)"], at: 1_800_000_000 + Double(day) * 86_400), source: .sync)
        }
        // Everything is older than the cutoff: only the minimum stays.
        let report = try versions.prune(before: Date(timeIntervalSince1970: 1_900_000_000), collectTexts: true)
        #expect(report.versions == 10 && report.playlists == 1)
        #expect(report.texts == 10, "day-0 … day-9 are used by no kept version")
        let kept = try versions.versions(of: Self.playlist)
        #expect(kept.count == PlaylistVersions.minimumKept)
        #expect(kept.last?.version == 11 && kept.first?.version == 30)
        #expect(try versions.state(11, of: Self.playlist).entries.map(\.uri) == ["keep", "day-10"])
        // Versions newer than the cutoff all stay, however many.
        for day in 30..<45 { try versions.record(state(["keep", "day-\(day)"], at: 1_800_000_000 + Double(day) * 86_400), source: .sync) }
        // Versions 11…45 (days 10…44); before day 20: versions 11…20.
        #expect(try versions.prune(before: Date(timeIntervalSince1970: 1_800_000_000 + 20 * 86_400)).versions == 10)
        #expect(try versions.versions(of: Self.playlist).count == 25)
        #expect(try versions.prune(before: Date(timeIntervalSince1970: 0)).versions == 0)
    }

    @Test func historyKeepIsReadFromConfig() throws {
        #expect(try Config.parse("history_keep = \"30d\"").historyKeepSeconds == 30 * 86_400)
        #expect(try Config.parse("history_keep = \"2y\"").historyKeepSeconds == 2 * 365 * 86_400)
        #expect(try Config.parse("").historyKeepSeconds == 365 * 86_400)
        #expect(throws: ConfigError.self) { try Config.parse("history_keep = \"forever\"") }
        #expect(throws: ConfigError.self) { try Config.parse("history_keep = \"-3d\"") }
    }
}

/// Which entries were added, removed and moved between two lists.
@Suite struct VersionDiffTests {
    @Test func copiesAreMatchedInOrderAndMovesAreTheFewest() {
        // The last entry to the front: one move, not n − 1.
        let moved = VersionDiff(from: ["a", "b", "c", "d"], to: ["d", "a", "b", "c"])
        #expect(moved.added.isEmpty && moved.removed.isEmpty)
        #expect(moved.moved == [VersionDiff.Move(uri: "d", from: 3, to: 0)])

        // Duplicates: the second copy of "a" removed (copies matched in order), "x" added at 1.
        let copies = VersionDiff(from: ["a", "b", "a", "c"], to: ["a", "x", "b", "c"])
        #expect(copies.removed == [VersionDiff.Change(position: 2, uri: "a")])
        #expect(copies.added == [VersionDiff.Change(position: 1, uri: "x")])
        #expect(copies.moved.isEmpty)

        // A reversal: all but one entry moved — the middle one, which is where it was.
        let reversed = VersionDiff(from: ["a", "b", "c", "d", "e"], to: ["e", "d", "c", "b", "a"])
        #expect(reversed.moved.count == 4)
        #expect(!reversed.moved.contains { $0.uri == "c" })

        #expect(VersionDiff(from: ["a", "a"], to: ["a", "a"]).isEmpty)
        let cleared = VersionDiff(from: ["a", "b"], to: [])
        #expect(cleared.removed.map(\.position) == [0, 1])
    }

    /// A move to the same position is no move: an entry whose neighbours moved around it, and
    /// which is where it was, is never listed "~ #5 → #5".
    @Test func anEntryAtItsOwnPositionIsNotMoved() {
        // "e" (position 4) stays at 4 while the ends swap around it.
        let swapped = VersionDiff(from: ["a", "b", "c", "d", "e", "f", "g"], to: ["g", "b", "c", "d", "e", "f", "a"])
        #expect(swapped.moved.allSatisfy { $0.from != $0.to }, "\(swapped.moved)")
        #expect(Set(swapped.moved.map(\.uri)) == ["a", "g"])
        // Two blocks exchanged with a fixed entry between them: the fixed one is never listed.
        let blocks = VersionDiff(from: ["a", "b", "x", "c", "d"], to: ["c", "d", "x", "a", "b"])
        #expect(!blocks.moved.contains { $0.uri == "x" }, "\(blocks.moved)")
        #expect(blocks.moved.count == 2)
        // Rotations with an insertion: no entry is ever listed with from == to.
        let base = ["a", "b", "c", "d", "e", "f"]
        for shift in 0..<6 {
            var new = Array(base[shift...] + base[..<shift])
            new.insert("z", at: shift)
            #expect(VersionDiff(from: base, to: new).moved.allSatisfy { $0.from != $0.to })
        }
    }

    @Test func theJSONCountsPositionsFromOne() {
        let diff = VersionDiff(from: ["a", "b"], to: ["b", "c", "a"])
        #expect(
            diff.json.serialized()
                == #"{"added":[{"position":2,"uri":"c"}],"removed":[],"moved":[{"uri":"b","from":2,"to":1}]}"#)
    }

    /// 100,000 entries shuffled: the comparison stays O(n log n) (no quadratic matching).
    @Test func aLargeShuffleIsComparedQuickly() {
        var rng = SystemRandomNumberGenerator()
        let old = (0..<100_000).map { "spotify:track:\($0 % 70_000)" }
        let new = old.shuffled(using: &rng)
        let diff = VersionDiff(from: old, to: new)
        #expect(diff.added.isEmpty && diff.removed.isEmpty)
        #expect(diff.moved.count > 90_000)
    }
}
