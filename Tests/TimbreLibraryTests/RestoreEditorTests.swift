import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// `EntryChange.become(to:)` through the one door (`Library.perform`) against the in-memory
/// Spotify: the server ends equal to the list, the edit is one journal entry that undoes, redoes
/// and is finished after the process died at any write.
extension PlaylistEditorTests {
    static let e = "spotify:track:eeeeeeeeeeeeeeeeeeeeee", f = "spotify:track:ffffffffffffffffffffff"

    func library(_ s: Setup) -> Library {
        Library(folders: { throw InvalidEdit(message: "no folders in this test", hint: nil) }, editor: { s.editor })
    }

    @Test func restoringMakesTheServerEqualToTheListAndUndoRedoAreExact() async throws {
        let (a, b, c, d) = (Self.a, Self.b, Self.c, Self.d)
        let now = [a, b, c, a, d, Self.e]
        let version = [d, a, b, Self.f, a, c]
        let s = try await setUp(now)
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let library = library(s)

        let dry = try await library.perform(.entries(Self.id, .become(to: version)), dryRun: true).edit
        #expect(s.server.writes == 0 && s.server.entries == now, "a dry run sends nothing")
        #expect(dry?.operation == .restore && dry?.counts.added == 1 && dry?.counts.removed == 1)
        #expect(try s.journal.history().isEmpty)

        let outcome = try #require(try await library.perform(.entries(Self.id, .become(to: version))).edit)
        #expect(s.server.entries == version)
        #expect(try cached(s) == version, "write-through: the cache holds what Spotify holds")
        // e removed, f added, d moved to the top; no copy of a, b or c taken out.
        #expect(outcome.counts.added == 1 && outcome.counts.removed == 1 && outcome.counts.moved >= 1 && outcome.counts.readded == 0)
        #expect(outcome.writes.count == dry?.writes.count, "the dry run priced the same plan")
        #expect(!outcome.writes.contains { if case .removeEvery(let uris) = $0 { return uris != [Self.e] } else { return false } })
        // What the words are made of (TimbreAppTests.EditReportTests words them): one entry back
        // and dated today, the moves, one gone, the journal's edit; the dry run the same, unsent.
        let edit = try #require(outcome.journalID)
        #expect(outcome.operation == .restore && outcome.ending == .changed && !outcome.dryRun && outcome.playlistName == "Road Trip")
        #expect(dry?.counts == outcome.counts && dry?.dryRun == true && dry?.journalID == nil)
        let entry = try #require(try s.journal.history().first)
        #expect(entry.op == .restore && entry.state == .done && entry.id == outcome.journalID)

        let undone = try #require(try await library.perform(.undo()).edit)
        #expect(s.server.entries == now)
        // The undo names the edit it undid, by what that edit did, then what it did itself.
        #expect(undone.operation == .undo && undone.journalID == edit && undone.replayed == entry.summary)
        #expect(undone.counts.removed == 1 && undone.counts.added == 1, "took out the entry brought back, put back the one removed")
        #expect(try cached(s) == now)
        _ = try await library.perform(.redo())
        #expect(s.server.entries == version)
        let again = try #require(try await library.perform(.entries(Self.id, .become(to: version))).edit)
        #expect(again.ending == .unchanged("“Road Trip” already holds exactly those entries") && s.server.entries == version)
    }

    @Test func aTrackHeldFewerTimesIsSaidToComeBackDatedToday() async throws {
        let s = try await setUp([Self.a, Self.b, Self.a, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let outcome = try #require(try await library(s).perform(.entries(Self.id, .become(to: [Self.a, Self.b, Self.c]))).edit)
        #expect(s.server.entries == [Self.a, Self.b, Self.c])
        #expect(outcome.counts.removed == 1 && outcome.counts.readded == 1 && outcome.counts.added == 0)
        #expect(outcome.writes.count == 2 && outcome.journalID != nil)
        #expect(outcome.entries == ["#3 Song aaaa — A"], "the dry run names the copy that goes")
    }

    @Test func anUndoOfARestoreOnAChangedPlaylistWritesNothing() async throws {
        let s = try await setUp([Self.a, Self.b])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        _ = try await library(s).perform(.entries(Self.id, .become(to: [Self.b, Self.c])))
        s.server.state.withLock {
            $0.entries.append(Self.d)
            $0.version += 1
        }
        let writes = s.server.writes
        await #expect(throws: EditConflict.self) { try await library(s).perform(.undo()) }
        await #expect(throws: InvalidEdit.self, "forced, it would drop d: refused") { try await library(s).perform(.undo(force: true)) }
        #expect(s.server.writes == writes && s.server.entries == [Self.b, Self.c, Self.d])
    }

    @Test func aBadListIsRefusedBeforeAnyRequest() async throws {
        let s = try await setUp([Self.a])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        for bad in [["not a uri"], [""], ["spotify:track:"], ["spotify:playlist:37i9dQZF1DXcBWIGoYBM5M"], Array(repeating: Self.a, count: 10_001)] {
            await #expect(throws: InvalidEdit.self) { try await library(s).perform(.entries(Self.id, .become(to: bad))) }
        }
        #expect(s.server.writes == 0)
        // A local file the playlist does not hold cannot be added: said before anything is written.
        let local = "spotify:local:Artist:Album:Home+Demo:180"
        await #expect(throws: InvalidEdit.self) { try await library(s).perform(.entries(Self.id, .become(to: [Self.a, local]))) }
        #expect(try s.server.writes == 0 && s.journal.history().isEmpty)
    }

    @Test func aReviveNamesItsPlaylistAndChecksItsDetailsFirst() throws {
        let change = LibraryChange.revive(Self.id, PlaylistDetails(name: "  Road Trip ", collaborative: true), entries: [Self.a])
        #expect(change.operation == .restore && change.playlist == Self.id)
        #expect(try change.validated() == .revive(Self.id, PlaylistDetails(name: "Road Trip"), entries: [Self.a]), "trimmed; never collaborative")
        #expect(throws: InvalidEdit.self) { try LibraryChange.revive(Self.id, PlaylistDetails(name: " "), entries: []).validated() }
        #expect(throws: InvalidEdit.self) { try LibraryChange.revive(Self.id, PlaylistDetails(name: "n"), entries: ["spotify:album:x"]).validated() }
        #expect(LibraryChange.entries(Self.id, .become(to: [])).operation == .restore)
    }

    /// The process dies after k writes of a restore (k at every point of it); the next command
    /// that opens the journal finishes it, and the playlist is the list asked for.
    @Test func anInterruptedRestoreIsFinishedByTheNextCommand() async throws {
        let u = (0..<130).map { "spotify:track:\(String(format: "%022d", $0))" }
        var original = Array(u[0..<120])
        for (position, track) in [(10, Self.a), (30, Self.b), (50, Self.a), (70, Self.b), (90, Self.a)] { original.insert(track, at: position) }
        // Three tracks gone, one copy of a gone (every a taken out, two put back), two added, two moved.
        var version = original.filter { ![u[5], u[6], u[60]].contains($0) }
        version.remove(at: try #require(version.indices.filter { version[$0] == Self.a }.dropFirst().first))
        version.insert(u[125], at: 20)
        version.insert("spotify:track:gggggggggggggggggggggg", at: 100)
        version.insert(version.remove(at: try #require(version.firstIndex(of: u[110]))), at: 3)
        version.append(version.removeFirst())
        let plan = try EntryEdit.become(target: version).plan(on: original)
        #expect(plan.writes.count > 3)
        for diesAfter in 0..<plan.writes.count {
            let s = try await setUp(original)
            defer { try? FileManager.default.removeItem(at: s.dir) }
            s.server.state.withLock { $0.downAfter = diesAfter }
            await #expect(throws: (any Error).self) { try await library(s).perform(.entries(Self.id, .become(to: version))) }
            if diesAfter == 0 {
                try await s.expectFailedAndNeverSent(original)
                continue
            }
            #expect(try s.journal.running().count == 1, "after \(diesAfter) writes the restore is interrupted")
            s.server.state.withLock { $0.downAfter = nil }
            let notes = try await s.editor.finishInterrupted()
            #expect(notes.count == 1)
            #expect(s.server.entries == version, "died after \(diesAfter) of \(plan.writes.count) writes")
            #expect(s.server.writes == plan.writes.count, "no write sent twice")
            #expect(try s.journal.history().first?.state == .done)
            #expect(try cached(s) == version)
        }
    }
}
