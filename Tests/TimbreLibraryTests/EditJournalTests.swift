import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// The journal's bookkeeping on a real SQLite file.
@Suite struct EditJournalTests {
    func journal() throws -> (EditJournal, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-journal-\(UUID().uuidString)")
        return (try UserData(path: dir.appendingPathComponent("data/timbre.sqlite").path).journal, dir)
    }

    func record(_ journal: EditJournal, _ n: Int) throws -> Int64 {
        try journal.begin(
            op: .add, playlist: .playlist(Self.playlist), summary: "edit \(n)", change: .entries(.insert(uris: ["u\(n)"], position: 0), before: []))
    }

    static let playlist = SpotifyID("37i9dQZF1DXcBWIGoYBM5M")!

    /// The playlist an edit concerns comes back typed: an id, Liked Songs, or nothing yet (a
    /// creation Spotify has not answered); a stored value that is none of these reads as nothing.
    @Test func thePlaylistComesBackTyped() throws {
        let (journal, dir) = try journal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let edit = try record(journal, 1)
        let liked = try journal.begin(op: .like, playlist: .liked, summary: "like 1", change: .library(LibraryEdit(uris: ["spotify:track:x"], save: true)))
        let created = try journal.begin(op: .create, playlist: nil, summary: "created", change: .library(LibraryEdit(uris: [], save: true)))
        #expect(try journal.entry(edit)?.playlist == .playlist(Self.playlist))
        #expect(try journal.entry(liked)?.playlist == .liked)
        #expect(try journal.entry(created)?.playlist == nil)
        try journal.update(created, change: .library(LibraryEdit(uris: ["spotify:playlist:\(Self.playlist)"], save: true)), playlist: .playlist(Self.playlist))
        #expect(try journal.entry(created)?.playlist == .playlist(Self.playlist))
        let details = DetailsEdit(playlist: Self.playlist, old: PlaylistDetails(name: "a"), new: PlaylistDetails(name: "b"))
        let changed = try journal.begin(op: .edit, playlist: .playlist(Self.playlist), summary: "renamed", change: .details(details))
        #expect(try journal.entry(changed)?.change == .details(details))
    }

    /// Entries put back (`EntryEdit.putBack`) are stored under their old name, "restore": rows
    /// written before the rename still read, and new rows read the same way.
    @Test func entriesPutBackKeepTheirStoredName() throws {
        let row = #"{"restore":{"entries":[{"position":1,"uri":"spotify:track:a"}]}}"#
        let edit = EntryEdit.putBack(entries: [.init(position: 1, uri: "spotify:track:a")])
        #expect(try JSONDecoder().decode(EntryEdit.self, from: Data(row.utf8)) == edit)
        let written = String(decoding: try JSONEncoder().encode(edit), as: UTF8.self)
        #expect(written.hasPrefix(#"{"restore":"#), "\(written)")
        let (journal, dir) = try journal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let id = try journal.begin(op: .add, playlist: .playlist(Self.playlist), summary: "put back", change: .entries(edit, before: ["spotify:track:b"]))
        #expect(try journal.entry(id)?.change == .entries(edit, before: ["spotify:track:b"]))
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
