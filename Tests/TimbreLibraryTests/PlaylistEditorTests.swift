import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// The edit layer against an in-memory Spotify with the real write semantics, a real SQLite cache
/// and journal: each test asserts what the SERVER holds afterwards.
@Suite struct PlaylistEditorTests {
    static let a = "spotify:track:aaaaaaaaaaaaaaaaaaaaaa", b = "spotify:track:bbbbbbbbbbbbbbbbbbbbbb"
    static let c = "spotify:track:cccccccccccccccccccccc", d = "spotify:track:dddddddddddddddddddddd"
    static var id: SpotifyID { SpotifyID(FakeSpotify.playlistID) ?? SpotifyID("0000000000000000000000")! }

    /// A folder with a cache synced from `server` and an empty journal.
    struct Setup {
        let dir: URL
        let server: FakeSpotify
        let cache: LibraryCache
        let journal: EditJournal
        var editor: PlaylistEditor { PlaylistEditor(api: server, cache: cache, journal: journal) }

        /// An edit whose first write failed, settled in front of the user: nothing applied, so it
        /// ended failed, and nothing sends it later (the server back up, the next command finds
        /// nothing to finish and the list is still `original`).
        func expectFailedAndNeverSent(_ original: [String]) async throws {
            #expect(try journal.history().first?.state == .failed)
            server.state.withLock { $0.downAfter = nil }
            #expect(try await editor.finishInterrupted().isEmpty)
            #expect(server.entries == original && server.writes == 0)
        }
    }

    func setUp(_ entries: [String]) async throws -> Setup {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let server = FakeSpotify(entries: entries)
        let cache = try LibraryCache.open(path: dir.appendingPathComponent("cache/library.sqlite").path, warn: { _ in })
        _ = try await SyncEngine(api: server, cache: cache, options: SyncOptions(playlists: [Self.id])).run()
        return Setup(dir: dir, server: server, cache: cache, journal: try UserData(path: dir.appendingPathComponent("data/timbre.sqlite").path).journal)
    }

    func cached(_ s: Setup) throws -> [String] { try s.cache.entries(of: .playlist(Self.id))?.map(\.uri) ?? [] }

    @Test func removingOneCopyKeepsTheOthersAndUndoRedoAreExact() async throws {
        let original = [Self.a, Self.b, Self.a, Self.c, Self.a]
        let s = try await setUp(original)
        defer { try? FileManager.default.removeItem(at: s.dir) }

        let outcome = try await s.editor.apply(.removePositions([2]), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.b, Self.c, Self.a], "only the copy at 2 is gone")
        #expect(try cached(s) == s.server.entries, "write-through: the cache holds what Spotify holds")
        #expect(outcome.counts.removed == 1 && outcome.writes.count == 3, "remove every a, put back the runs at 0 and 3")
        #expect(try s.journal.history().first?.state == .done)

        _ = try await s.editor.undo()
        #expect(s.server.entries == original)
        #expect(try cached(s) == original)
        #expect(try s.journal.history().first?.state == .undone)
        _ = try await s.editor.redo()
        #expect(s.server.entries == [Self.a, Self.b, Self.c, Self.a])
        // Nothing left to redo; one undo more brings the original back again.
        await #expect(throws: NothingToUndo.self) { try await s.editor.redo() }
        _ = try await s.editor.undo()
        #expect(s.server.entries == original)
    }

    @Test func anUndoOnAChangedPlaylistConflictsUnlessForced() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        _ = try await s.editor.apply(.removePositions([1]), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.c])
        // Someone adds d at the front; the removed b belongs between a and c still.
        s.server.state.withLock {
            $0.entries.insert(Self.d, at: 0)
            $0.version += 1
        }
        let writes = s.server.writes
        await #expect(throws: EditConflict.self) { try await s.editor.undo() }
        #expect(s.server.writes == writes, "nothing written")
        _ = try await s.editor.undo(force: true)
        // b goes back at the index it had (1); d, added meanwhile, stays.
        #expect(s.server.entries == [Self.d, Self.b, Self.a, Self.c])
        #expect(try s.journal.history().contains { $0.state == .undone })
    }

    @Test func aLostAnswerIsReconciledNotResent() async throws {
        let s = try await setUp([Self.a, Self.b])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock { $0.loseAnswerOf = [1] }
        _ = try await s.editor.apply(.add(uris: [Self.c], position: nil), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.b, Self.c], "added once")
        #expect(s.server.writes == 1)
        // A lost answer of a write that did not happen: read, see it missing, send it once more.
        let t = try await setUp([Self.a, Self.b, Self.c, Self.d])
        defer { try? FileManager.default.removeItem(at: t.dir) }
        t.server.state.withLock { $0.loseAnswerOf = [1] }
        _ = try await t.editor.apply(.move(start: 3, length: 1, to: 0), to: Self.id)
        #expect(t.server.entries == [Self.d, Self.a, Self.b, Self.c], "moved once, not twice")
        #expect(t.server.writes == 1)
    }

    @Test func aConflictWritesNothingAndForceFindsTheSameEntries() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        // Someone else inserts at the front after the sync: the cached position 1 (b) is now 2.
        s.server.state.withLock {
            $0.entries.insert(Self.d, at: 0)
            $0.version += 1
        }
        await #expect(throws: EditConflict.self) { try await s.editor.apply(.removePositions([1]), to: Self.id) }
        #expect(s.server.writes == 0)
        #expect(s.server.entries == [Self.d, Self.a, Self.b, Self.c])
        _ = try await s.editor.apply(.removePositions([1]), to: Self.id, options: .init(force: true))
        #expect(s.server.entries == [Self.d, Self.a, Self.c], "b removed, as the user meant")
    }

    @Test func aCacheThatForgotItsSnapshotIsCheckedEntryByEntry() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        // As after the v5 upgrade: the cached snapshot is unknown.
        try await s.cache.pool.write { db in try db.execute(sql: "UPDATE playlist SET snapshot_id = NULL") }
        s.server.state.withLock {
            $0.entries.insert(Self.d, at: 0)
            $0.version += 1
        }
        await #expect(throws: EditConflict.self) { try await s.editor.apply(.removePositions([1]), to: Self.id) }
        #expect(s.server.writes == 0)
        // The same entries: no conflict, whatever the snapshot.
        s.server.state.withLock {
            $0.entries.removeFirst()
            $0.version += 1
        }
        _ = try await s.editor.apply(.removePositions([1]), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.c])
    }

    @Test func anotherUsersPlaylistIsRefusedBeforeAnyWrite() async throws {
        let s = try await setUp([Self.a])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        // Another user's playlist (a new snapshot: the cache, which holds it as the user's, is not current).
        s.server.state.withLock {
            $0.owner = "someone-else"
            $0.version += 1
        }
        await #expect(throws: NotPermitted.self) { try await s.editor.apply(.add(uris: [Self.b], position: nil), to: Self.id) }
        #expect(s.server.writes == 0)
        s.server.state.withLock { $0.collaborative = true }
        _ = try await s.editor.apply(.add(uris: [Self.b], position: nil), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.b], "a collaborative playlist can be changed")
    }

    @Test func aForbiddenWriteEndsTheEditWithNothingChanged() async throws {
        let s = try await setUp([Self.a, Self.b])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock { $0.forbidden = true }
        await #expect(throws: NotPermitted.self) { try await s.editor.apply(.removePositions([0]), to: Self.id) }
        #expect(s.server.entries == [Self.a, Self.b])
        #expect(try s.journal.history().first?.state == .failed, "nothing of it reached Spotify: over, not interrupted")
        #expect(try s.journal.running().isEmpty)
    }

    @Test func likesSendOnlyWhatChangesAndUndo() async throws {
        let s = try await setUp([Self.a])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock { $0.liked = [Self.b] }
        let uris = (0..<45).map { "spotify:track:\(String(format: "%022d", $0))" } + [Self.b]
        let outcome = try await s.editor.library(uris, save: true, as: .like, dryRun: false)
        #expect(outcome.counts.added == 45, "b was liked already")
        #expect(s.server.state.current.libraryWrites == 2, "45 items: ceil(45/40) writes")
        #expect(Set(s.server.state.current.liked) == Set(uris))
        #expect(try s.cache.entries(of: .liked) == nil, "no Liked Songs cached before: left for the next sync, never read in full by a like")
        _ = try await s.editor.undo()
        #expect(s.server.state.current.liked == [Self.b], "undo unlikes only what the edit liked")
        let none = try await s.editor.library([Self.c], save: false, as: .unlike, dryRun: false)
        #expect(none.counts.removed == 0 && none.journalID == nil, "nothing to unlike: nothing sent, nothing journalled")
    }

    @Test func fuzzyDedupeKeepsTheFirstOfEachSongOnTheServer() async throws {
        let e = "spotify:track:eeeeeeeeeeeeeeeeeeeeee", f = "spotify:track:ffffffffffffffffffffff"
        // a, its remaster e, a again, b, e again (a duplicate of a duplicate), f (the same title, another artist).
        let s = try await setUp([Self.a, e, Self.a, Self.b, e, f])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock {
            $0.metadata = [
                Self.a: ("Heroes", "David Bowie", 371_000), e: ("Heroes - 2017 Remaster", "David Bowie", 372_000),
                Self.b: ("Warszawa", "David Bowie", 380_000), f: ("Heroes", "Blondie", 371_000),
            ]
            $0.version += 1
        }
        // The names are Spotify's, and the user saw them: synced (edits plan on a current cache).
        _ = try await SyncEngine(api: s.server, cache: s.cache, options: SyncOptions(playlists: [Self.id])).run()
        let exact = try await s.editor.apply(.dedupe(fuzzy: false), to: Self.id, dryRun: true)
        #expect(exact.duplicates.map(\.position) == [2, 4])
        let fuzzy = try await s.editor.apply(.dedupe(fuzzy: true), to: Self.id)
        #expect(fuzzy.duplicates.map(\.position) == [1, 2, 4] && fuzzy.duplicates.map(\.duplicateOf) == [0, 0, 0])
        #expect(s.server.entries == [Self.a, Self.b, f], "one of each song, in order")
        _ = try await s.editor.undo()
        #expect(s.server.entries == [Self.a, e, Self.a, Self.b, e, f])
    }

    @Test func localFilesAreNeverRemovedBecauseTheyCannotBeAddedBack() async throws {
        let local = "spotify:local:Artist:Album:Home+Demo:180"
        let s = try await setUp([Self.a, local, Self.b, local, Self.a])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        await #expect(throws: InvalidEdit.self) { try await s.editor.apply(.removePositions([3]), to: Self.id) }
        #expect(s.server.writes == 0)
        // Dedupe removes the track's copy and leaves the local file's, saying so.
        let outcome = try await s.editor.apply(.dedupe(fuzzy: false), to: Self.id)
        #expect(s.server.entries == [Self.a, local, Self.b, local])
        #expect(outcome.warnings.contains { $0.contains("local files") })
    }

    @Test func aPlaylistCannotGrowPast10000Entries() async throws {
        let s = try await setUp((0..<9_990).map { _ in Self.a })
        defer { try? FileManager.default.removeItem(at: s.dir) }
        await #expect(throws: InvalidEdit.self) {
            try await s.editor.apply(.add(uris: Array(repeating: Self.b, count: 11), position: nil), to: Self.id)
        }
        #expect(s.server.writes == 0 && s.server.entries.count == 9_990)
        #expect(try s.journal.history().isEmpty, "refused before the journal")
    }

    @Test func aDryRunSendsNoWrite() async throws {
        let s = try await setUp([Self.a, Self.b, Self.a])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let plan = try await s.editor.apply(.removePositions([0]), to: Self.id, dryRun: true)
        #expect(plan.writes == [.removeEvery(uris: [Self.a]), .add(uris: [Self.a], position: 1)])
        #expect(plan.journalID == nil)
        #expect(s.server.writes == 0 && s.server.entries == [Self.a, Self.b, Self.a])
        #expect(try s.journal.history().isEmpty)
    }

    /// The process dies after k writes of a long edit (k at every point of it); the next command
    /// that opens the journal finishes it, and the playlist holds exactly the entries asked for.
    @Test func anInterruptedEditIsFinishedByTheNextCommand() async throws {
        // 300 entries from 7 tracks: removing 40 scattered positions needs many re-adds.
        let original = (0..<300).map {
            [
                Self.a, Self.b, Self.c, Self.d, "spotify:track:eeeeeeeeeeeeeeeeeeeeee",
                "spotify:track:ffffffffffffffffffffff", "spotify:track:gggggggggggggggggggggg",
            ][($0 * 7 + $0 / 5) % 7]
        }
        let positions = stride(from: 3, to: 300, by: 7).prefix(40).map { $0 }
        let targets = Set(positions)
        let expected = original.enumerated().filter { !targets.contains($0.offset) }.map(\.element)
        let writes = try EntryEdit.remove(positions: positions).plan(on: original).writes.count
        #expect(writes > 3)
        for diesAfter in 0..<writes {
            let s = try await setUp(original)
            defer { try? FileManager.default.removeItem(at: s.dir) }
            s.server.state.withLock { $0.downAfter = diesAfter }
            await #expect(throws: (any Error).self) { try await s.editor.apply(.removePositions(positions), to: Self.id) }
            if diesAfter == 0 {
                try await s.expectFailedAndNeverSent(original)
                continue
            }
            // Part of it applied: it stays interrupted, told, and the next command sends the rest.
            #expect(try s.journal.running().count == 1, "after \(diesAfter) writes the edit is interrupted")
            #expect(try s.journal.running().first?.told != nil)
            s.server.state.withLock { $0.downAfter = nil }
            let notes = try await s.editor.finishInterrupted()
            #expect(notes.count == 1)
            #expect(s.server.entries == expected, "died after \(diesAfter) of \(writes) writes")
            #expect(s.server.writes == writes, "no write sent twice")
            #expect(try s.journal.history().first?.state == .done)
            #expect(try cached(s) == expected)
        }
    }
}
