import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreApp
@testable import TimbreLibrary

/// How an edit's outcome is told (`EditReport`): the CLI's sentence and `--json`, and the
/// interface's line with its own undo key. The library's tests check the outcomes themselves
/// (counts, writes, journal); these check the words each kind of outcome gets.
@Suite struct EditReportTests {
    static let road = PlaylistRef.playlist(SpotifyID.test("37i9dQZF1DXcBWIGoYBM5M"))
    static let song = "spotify:track:eeeeeeeeeeeeeeeeeeeeee"

    static func outcome(
        _ operation: LibraryChange.Operation, name: String = "Road Trip", writes: Int = 0, journalID: Int64? = nil, dryRun: Bool = false,
        _ change: (inout EditOutcome) -> Void = { _ in }
    ) -> EditOutcome {
        let all = (0..<writes).map { EntryWrite.reorder(start: $0, insertBefore: $0 + 2, length: 1) }
        var outcome = EditOutcome(operation: operation, playlist: road, playlistName: name, snapshotID: "s", writes: all, journalID: journalID, dryRun: dryRun)
        change(&outcome)
        return outcome
    }

    static func json(_ outcome: EditOutcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(EditReport.json(outcome).serialized().utf8)) as? [String: Any])
    }

    @Test func aRestoreSaysWhatCameBackMovedAndWentAndWhichDatesAreToday() throws {
        let restored = Self.outcome(.restore, writes: 4, journalID: 7) { $0.counts = .init(added: 1, removed: 1, moved: 2) }
        #expect(
            EditReport.sentence(restored)
                == "Restored “Road Trip”: 1 entry back, 2 moved, 1 removed; 1 re-added entry is dated today (4 writes) · edit 7, `timbre undo` reverts it")
        let dry = Self.outcome(.restore, writes: 4, dryRun: true) { $0.counts = .init(added: 1, removed: 1, moved: 2) }
        #expect(
            EditReport.sentence(dry)
                == "would have restored “Road Trip”: 1 entry back, 2 moved, 1 removed; 1 re-added entry would be dated today (4 writes; nothing was sent)")
        let json = try Self.json(restored)
        #expect(json["op"] as? String == "restore" && json["dates_reset"] as? Int == 1 && json["added"] as? Int == 1 && json["journal_id"] as? Int == 7)
    }

    @Test func aKeptCopyPutBackIsSaidToBeDatedToday() {
        let restored = Self.outcome(.restore, writes: 2, journalID: 3) { $0.counts = .init(removed: 1, readded: 1) }
        #expect(
            EditReport.sentence(restored)
                == "Restored “Road Trip”: 1 removed; 1 re-added entry is dated today — 1 kept copy among them, as Spotify's remove takes every copy of a track (2 writes) · edit 3, `timbre undo` reverts it"
        )
    }

    @Test func anUndoNamesTheEditItUndidThenWhatItDid() {
        let undone = Self.outcome(.undo, writes: 3, journalID: 7) {
            $0.counts = .init(added: 1, removed: 1, moved: 2)
            $0.replayed = "restored “Road Trip” to version 3"
        }
        #expect(
            EditReport.sentence(undone)
                == "Undid edit 7 (restored “Road Trip” to version 3): put back 1 entry, took out 1 entry, moved 2 entries back in “Road Trip” (3 writes) · `timbre redo` applies it again"
        )
        #expect(EditReport.sentence(undone, redo: "U").hasSuffix(" · U applies it again"), "the interface names its own key")
    }

    @Test func aStoppedShuffleSaysTheOrderIsPartWayAndHowToPutItBack() throws {
        let stopped = Self.outcome(.shuffle, name: "Road", writes: 3, journalID: 4) { $0.ending = .stopped(done: 3, total: 10) }
        #expect(
            EditReport.sentence(stopped, undo: "u")
                == "Shuffle stopped after 3 of 10 moves: the order of “Road” is part-way, every entry is there and keeps its date; u puts the old order back (edit 4)"
        )
        let json = try Self.json(stopped)
        #expect(json["stopped"] as? Bool == true && json["moves_done"] as? Int == 3 && json["moves_planned"] as? Int == 10)
        let untouched = Self.outcome(.sort, name: "Road") { $0.ending = .stopped(done: 0, total: 1) }
        #expect(EditReport.sentence(untouched) == "Sort stopped after 0 of 1 move: no entry of “Road” had moved; nothing changed")
    }

    @Test func aDeletedPlaylistBroughtBackSaysHow() throws {
        let followed = Self.outcome(.restore, name: "Still There", journalID: 5) {
            $0.revival = .followed
            $0.libraryWrites = 1
        }
        #expect(EditReport.sentence(followed) == "Followed “Still There” again, as Spotify still holds it (1 write) · edit 5, `timbre undo` reverts it")
        let created = Self.outcome(.restore, name: "Gone For Good", writes: 1, journalID: 9) {
            $0.revival = .created(previous: SpotifyID.test("0123456789abcdefABCDEF").rawValue)
            $0.counts = .init(added: 5)
            $0.libraryWrites = 1
        }
        #expect(
            EditReport.sentence(created)
                == "Created “Gone For Good” again as a new playlist \(Self.road) with 5 entries, all dated today (2 writes) · edit 9, `timbre undo` reverts it"
        )
        var dry = created
        dry.dryRun = true
        dry.playlist = nil
        dry.journalID = nil
        #expect(
            EditReport.sentence(dry)
                == "would have created “Gone For Good” again as a new playlist with 5 entries, all dated today (2 writes; nothing was sent)")
        let json = try Self.json(created)
        #expect(json["revived"] as? String == "created" && json["previous_playlist"] as? String == SpotifyID.test("0123456789abcdefABCDEF").rawValue)
    }

    @Test func hostileNamesAreShownNotRun() {
        let hostile = Self.outcome(.shuffle, name: "\u{1B}]52;c;ZXZpbA==\u{07}Road", writes: 1, journalID: 2) { $0.ending = .stopped(done: 1, total: 2) }
        let said = EditReport.sentence(hostile)
        #expect(!said.contains("\u{1B}") && !said.contains("\u{07}"), "\(said)")
    }
}
