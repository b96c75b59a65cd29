import Foundation
import Testing

@testable import TimbreLibrary

/// The journal's bookkeeping on a real SQLite file.
@Suite struct EditJournalTests {
    func journal() throws -> (EditJournal, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-journal-\(UUID().uuidString)")
        return (try UserData(path: dir.appendingPathComponent("data/timbre.sqlite").path).journal, dir)
    }

    func record(_ journal: EditJournal, _ n: Int) throws -> Int64 {
        try journal.begin(op: "add", playlist: "p", summary: "edit \(n)", change: .entries(.insert(uris: ["u\(n)"], position: 0), before: []))
    }

    @Test func theNewest200AreKeptAndNeverOneInFlight() throws {
        let (journal, dir) = try journal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try record(journal, 0)  // left running: an interrupted edit is never pruned
        for n in 1...205 { try journal.finish(try record(journal, n), .done) }
        let all = try journal.history(limit: 1_000)
        #expect(all.count == EditJournal.keep + 1)
        #expect(all.first?.summary == "edit 205")
        #expect(all.contains { $0.id == first && $0.state == .running })
        #expect(!all.contains { $0.summary == "edit 5" }, "the oldest finished ones go")
    }

    @Test func aNewEditEndsTheRedoOfUndoneOnes() throws {
        let (journal, dir) = try journal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try record(journal, 1)
        try journal.finish(a, .done)
        let b = try record(journal, 2)
        try journal.finish(b, .done)
        try journal.finish(b, .undone)
        try journal.finish(a, .undone)
        #expect(try journal.nextRedo()?.id == a, "redo takes the oldest undone edit first")
        #expect(try journal.lastDone() == nil)
        let c = try record(journal, 3)
        try journal.finish(c, .done)
        #expect(try journal.nextRedo() == nil, "a new edit clears the redo stack")
        #expect(try journal.lastDone()?.id == c)
        // What was asked survives the round trip through SQLite.
        #expect(try journal.entry(c)?.change == .entries(.insert(uris: ["u3"], position: 0), before: []))
    }
}
