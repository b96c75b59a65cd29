import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// A write that fails in front of the user is settled at once; a write a stopped process may
/// still have in flight is waited out (on an injected clock) before the edit is reconciled.
extension PlaylistEditorTests {
    @Test func aLostAnswerOfAnAppliedWriteIsReportedApplied() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock { $0.loseAnswerOf = [1] }
        let outcome = try await s.editor.apply(.move(start: 0, length: 1, to: 2), to: Self.id)
        #expect(s.server.entries == [Self.b, Self.c, Self.a])
        #expect(s.server.writes == 1)
        #expect(try s.journal.history().first?.state == .done)
        #expect(outcome.warnings.contains { $0.contains("was lost (connection reset), but Spotify applied it") }, "\(outcome.warnings)")
    }

    @Test func aMoveAnswered503UntilTheRetriesEndEndsFailedAndIsNeverSent() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock { $0.unavailable = 4 }
        do {
            _ = try await s.editor.apply(.move(start: 0, length: 1, to: 2), to: Self.id)
            Issue.record("the move should have failed")
        } catch let error as WriteNotApplied {
            #expect(error.message.hasPrefix("the move did not reach Spotify (HTTP 503) — nothing changed"), "\(error.message)")
        }
        let entry = try #require(try s.journal.history().first)
        #expect(entry.state == .failed && entry.reason?.contains("did not reach Spotify") == true)
        // An unrelated command later: nothing is sent.
        #expect(try await s.editor.finishInterrupted().isEmpty)
        #expect(s.server.entries == [Self.a, Self.b, Self.c] && s.server.writes == 0)
        #expect(try cached(s) == [Self.a, Self.b, Self.c])
    }

    @Test func aWriteInFlightWhenItsProcessStoppedIsWaitedOutBeforeTheEditIsReconciled() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c, Self.d])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        // A stopped process's move, sent 1.5 s before "now" with a 5 s deadline; Spotify applies
        // it late — while the next process waits.
        let now = Date(timeIntervalSince1970: 1_000_000)
        let edit = EntryEdit.move(start: 3, length: 1, to: 0)
        let id = try s.journal.begin(op: .move, playlist: .playlist(Self.id), summary: "moved 1", change: .entries(edit, before: s.server.entries))
        try s.journal.sending(id, at: now.addingTimeInterval(-1.5), deadline: .seconds(5))
        #expect(try s.journal.entry(id)?.inFlightUntil == now.addingTimeInterval(3.5))
        let slept = Locked<[Duration]>([]), said = Locked<[String]>([])
        let server = s.server
        let clock = EditClock(
            now: { now },
            sleep: { duration in
                slept.withLock { $0.append(duration) }
                server.state.withLock { $0.entries = [Self.d, Self.a, Self.b, Self.c] }  // the late write lands
            },
            say: { line in said.withLock { $0.append(line) } })
        let editor = PlaylistEditor(api: s.server, cache: s.cache, journal: s.journal, clock: clock)
        let notes = try await editor.finishInterrupted()
        #expect(slept.current == [.milliseconds(3_500)])
        #expect(said.current == ["waiting 4 s for a write the stopped process may still have in flight"])
        #expect(notes.count == 1)
        #expect(s.server.entries == [Self.d, Self.a, Self.b, Self.c], "moved once, not twice")
        #expect(s.server.writes == 0, "nothing resent")
        #expect(try s.journal.entry(id)?.state == .done)

        // Sent longer ago than the deadline: no wait.
        let t = try await setUp([Self.a, Self.b])
        defer { try? FileManager.default.removeItem(at: t.dir) }
        let other = try t.journal.begin(
            op: .add, playlist: .playlist(Self.id), summary: "added 1", change: .entries(.insert(uris: [Self.c], position: 2), before: t.server.entries))
        try t.journal.sending(other, at: now.addingTimeInterval(-6), deadline: .seconds(5))
        let late = PlaylistEditor(
            api: t.server, cache: t.cache, journal: t.journal,
            clock: EditClock(now: { now }, sleep: { _ in Issue.record("no wait past the deadline") }, say: { _ in }))
        _ = try await late.finishInterrupted()
        #expect(t.server.entries == [Self.a, Self.b, Self.c] && t.server.writes == 1)
    }

    @Test func anEditToldFailedWithItsOutcomeUnknownIsCheckedNotResent() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let edit = EntryEdit.move(start: 0, length: 1, to: 2)
        let id = try s.journal.begin(op: .move, playlist: .playlist(Self.id), summary: "moved 1", change: .entries(edit, before: s.server.entries))
        try s.journal.tell(id, "Spotify did not answer (HTTP 503); the next command checks whether it was applied and never resends it")
        let notes = try await s.editor.finishInterrupted()
        #expect(notes.count == 1 && notes[0].contains("did not reach Spotify, as you were told"), "\(notes)")
        #expect(s.server.writes == 0 && s.server.entries == [Self.a, Self.b, Self.c])
        #expect(try s.journal.entry(id)?.state == .failed)
    }
}
