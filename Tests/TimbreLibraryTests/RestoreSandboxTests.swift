import Foundation
import SandboxCore
import Testing
import TimbreCore
import TimbreNet
import TimbreTestSupport

@testable import TimbreLibrary

/// A playlist restored to a version, and a deleted playlist brought back, against the sandbox over
/// TLS, through `Library.perform` with a real cache and journal: every test asserts what the
/// SANDBOX holds afterwards — the entries, and the added dates of the ones that stayed.
/// SandboxCore has a `Library` and a `SpotifyID` of its own.
typealias Door = TimbreLibrary.Library
typealias PlaylistID = TimbreCore.SpotifyID

@Suite(.tags(.integration), .integrationTier) struct RestoreSandboxTests {
    /// The door, with a journal in the harness's folder.
    func library(_ h: Harness) throws -> (library: Door, editor: PlaylistEditor, journal: EditJournal) {
        let data = try UserData(path: h.dir.path("data/timbre.sqlite"))
        let editor = PlaylistEditor(api: h.api, cache: h.cache, journal: data.journal)
        return (Door(folders: { data.folders }, editor: { editor }), editor, data.journal)
    }

    /// The user's largest playlist whose entries all name a track (no null entry, no local file).
    func ownPlaylist(_ h: Harness) async throws -> SandboxPlaylistInfo {
        let model = try await h.model()
        var best: SandboxPlaylistInfo?
        for playlist in model.playlists where playlist.summary["owner_id"] as? String == model.userID {
            let info = try await h.sandbox.playlistInfo(playlist.id)
            guard !info.collaborative, info.items.allSatisfy({ $0.kind == "track" && $0.uri != nil }) else { continue }
            if info.items.count > best?.items.count ?? 5 { best = info }
        }
        return try #require(best, "the sandbox user owns a playlist of tracks")
    }

    /// Each track's added dates, sorted (copies of a track are interchangeable).
    static func dates(_ items: [SandboxEntry]) -> [String: [String]] {
        var dates: [String: [String]] = [:]
        for item in items { dates[item.uri ?? "", default: []].append(item.addedAt ?? "") }
        return dates.mapValues { $0.sorted() }
    }

    static func counts(_ uris: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for uri in uris { counts[uri, default: 0] += 1 }
        return counts
    }

    @Test func aRestoredPlaylistEqualsTheVersionAndKeepsTheDatesOfWhatStayed() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let (library, _, journal) = try library(h)
            let playlist = try await ownPlaylist(h)
            let id = try #require(PlaylistID(playlist.id))
            let version = playlist.items.map { $0.uri ?? "" }
            // The playlist moves on: someone removes its first entry and appends one; the user adds a
            // second copy of the third and moves two.
            try await h.sandbox.mutate(playlist: playlist.id, action: "remove_first")
            try await h.sandbox.mutate(playlist: playlist.id, action: "append")
            _ = try await h.sync()
            _ = try await library.perform(.entries(id, .add(uris: [version[2]], position: 0)))
            _ = try await library.perform(.entries(id, .move(start: 1, length: 2, to: 4)))
            let moved = try await h.sandbox.playlistInfo(playlist.id).items
            let movedURIs = moved.map { $0.uri ?? "" }
            #expect(movedURIs != version)

            let writesBefore = try await h.sandbox.writeRequests().count
            let dry = try #require(try await library.perform(.entries(id, .become(to: version)), dryRun: true).edit)
            #expect(try await h.sandbox.writeRequests().count == writesBefore, "a dry run sends nothing")
            #expect(try await h.sandbox.entries(of: playlist.id) == movedURIs)

            let outcome = try #require(try await library.perform(.entries(id, .become(to: version))).edit)
            let restored = try await h.sandbox.playlistInfo(playlist.id).items
            #expect(restored.map { $0.uri ?? "" } == version, "the sandbox holds the version exactly")
            #expect(try await h.sandbox.writeRequests().count - writesBefore == outcome.writes.count, "each write of the plan sent once")
            #expect(outcome.writes == dry.writes && outcome.counts == dry.counts, "the dry run priced the same plan")
            #expect(outcome.counts.added >= 1 && outcome.counts.removed >= 1)
            // Every track held as many times before as the version holds kept its added dates.
            let (have, want) = (Self.counts(movedURIs), Self.counts(version))
            let before = Self.dates(moved), after = Self.dates(restored)
            let same = want.keys.filter { have[$0] == want[$0] }
            #expect(same.count >= Set(version).count - 3, "only the first, the third and the appended track differ")
            for uri in same { #expect(after[uri] == before[uri], "\(uri) kept its dates") }
            // The copy added and the entry brought back are dated today: not the version's dates.
            #expect(after[version[2]] != Self.dates(playlist.items)[version[2]])
            #expect(try h.cache.entries(of: .playlist(id))?.map(\.uri) == version, "the cache holds what Spotify holds")
            #expect(try journal.history().first?.op == .restore)

            // Undo: the list before the restore, with the dates of what stayed.
            _ = try await library.perform(.undo())
            let undone = try await h.sandbox.playlistInfo(playlist.id).items
            #expect(undone.map { $0.uri ?? "" } == movedURIs)
            for uri in same { #expect(Self.dates(undone)[uri] == before[uri], "\(uri) kept its dates through the undo") }
            #expect(try journal.history().first?.state == .undone)
        }
    }

    /// The answer of the restore's removal is lost after the sandbox applied it: the editor reads
    /// the playlist, sees the step done and goes on — no write sent twice, the version exactly.
    @Test func aRestoreWhoseAnswerIsLostIsReconciledNotResent() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let (library, _, journal) = try library(h)
            let playlist = try await ownPlaylist(h)
            let id = try #require(PlaylistID(playlist.id))
            let version = playlist.items.map { $0.uri ?? "" }
            try await h.sandbox.mutate(playlist: playlist.id, action: "append")
            _ = try await h.sync()
            _ = try await library.perform(.entries(id, .move(start: 0, length: 1, to: 3)))
            _ = try await library.perform(.entries(id, .removePositions([5])))
            try await h.sandbox.clearRequests()
            try await h.sandbox.addFaults([Fault(kind: .applyThenReset, method: "DELETE", pathContains: "/items", count: 1)])
            let outcome = try #require(try await library.perform(.entries(id, .become(to: version))).edit)
            #expect(try await h.sandbox.entries(of: playlist.id) == version)
            let writes = try await h.sandbox.writeRequests().filter { $0.path.hasSuffix("/items") }
            #expect(writes.count == outcome.writes.count && writes.filter { $0.method == "DELETE" }.count == 1, "\(writes.map(\.method))")
            #expect(try journal.history().first?.state == .done)
        }
    }

    /// A playlist the user deleted (unfollowed) that Spotify still has comes back by one follow;
    /// one that Spotify has no more is created anew with its details and entries, once.
    @Test func aDeletedPlaylistIsFollowedAgainOrCreatedAnew() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let (library, _, journal) = try library(h)
            let tracks = Array(try await ownPlaylist(h).items.compactMap(\.uri).prefix(5))

            // Unfollowed: followed again; the undo unfollows it again.
            let kept = try await made(h, library, "Still There", tracks)
            _ = try await library.perform(.delete([kept]))
            #expect(try await !h.sandbox.followedPlaylistIDs().contains(kept.rawValue))
            let followed = try #require(try await library.perform(.revive(kept, PlaylistDetails(name: "Still There"), entries: tracks)).edit)
            #expect(followed.revival == .followed && followed.playlist == .playlist(kept) && followed.warnings.isEmpty)
            #expect(try await h.sandbox.followedPlaylistIDs().contains(kept.rawValue))
            #expect(try await h.sandbox.entries(of: kept.rawValue) == tracks)
            #expect(followed.revival == .followed && followed.writes.isEmpty && followed.libraryWrites == 1 && followed.journalID != nil)
            let inLibrary = try #require(try await library.perform(.revive(kept, PlaylistDetails(name: "Still There"), entries: tracks)).edit)
            #expect(inLibrary.ending == .unchanged("“Still There” is in your library"))
            _ = try await library.perform(.undo())
            #expect(try await !h.sandbox.followedPlaylistIDs().contains(kept.rawValue))

            // Gone from Spotify: a new playlist with the name, description, privacy and entries.
            let gone = try await made(h, library, "Gone For Good", tracks)
            try await h.sandbox.mutate(playlist: gone.rawValue, action: "delete")
            try await h.sandbox.clearRequests()
            let details = PlaylistDetails(name: "Gone For Good", description: "brought back", isPublic: false)
            let dry = try #require(try await library.perform(.revive(gone, details, entries: tracks), dryRun: true).edit)
            #expect(dry.revival == .created(previous: gone.rawValue) && dry.playlist == nil && dry.counts.added == tracks.count)
            #expect(try await h.sandbox.writeRequests().isEmpty, "a dry run sends nothing")
            #expect(dry.writes.count + dry.libraryWrites == 2 && dry.dryRun && dry.journalID == nil)
            let created = try #require(try await library.perform(.revive(gone, details, entries: tracks)).edit)
            let createdID = try #require(created.playlist?.id)
            #expect(created.revival == .created(previous: gone.rawValue) && createdID != gone)
            let info = try await h.sandbox.playlistInfo(createdID.rawValue)
            #expect(info.items.compactMap(\.uri) == tracks && info.name == "Gone For Good" && info.description == "brought back")
            #expect(!info.isPublic && info.followed)
            #expect(created.writes.count + created.libraryWrites == 2 && created.counts.added == 5 && created.journalID != nil)
            #expect(try await h.sandbox.writeRequests().filter { $0.path == "/v1/me/playlists" }.count == 1, "created once")
            let newest = try journal.history().first
            #expect(newest?.op == .restore && newest?.playlist == created.playlist)
            _ = try await library.perform(.undo())
            #expect(try await !h.sandbox.playlistInfo(createdID.rawValue).followed, "the undo deletes (unfollows) what it created")
            _ = try await library.perform(.redo())
            #expect(try await h.sandbox.playlistInfo(createdID.rawValue).followed)
        }
    }

    /// The entries of a re-created playlist fail to arrive: the edit stays interrupted with the new
    /// id journalled, and the next command adds what is missing — never a second playlist.
    @Test func anInterruptedReCreationIsFinishedWithoutCreatingTwice() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let (library, editor, journal) = try library(h)
            let tracks = Array(try await ownPlaylist(h).items.compactMap(\.uri).prefix(5))
            let gone = try await made(h, library, "Lost Mix", tracks)
            try await h.sandbox.mutate(playlist: gone.rawValue, action: "delete")
            try await h.sandbox.clearRequests()
            try await h.sandbox.addFaults([Fault(kind: .status, method: "POST", pathContains: "/items", count: 1_000, status: 503)])
            await #expect(throws: (any Error).self) { try await library.perform(.revive(gone, PlaylistDetails(name: "Lost Mix"), entries: tracks)) }
            let running = try #require(try journal.running().first)
            let created = try #require(running.playlist?.id, "the new id is journalled before any entry is sent").rawValue
            #expect(created != gone.rawValue)
            #expect(try await h.sandbox.entries(of: created).isEmpty)

            try await h.sandbox.clearFaults()
            let notes = try await editor.finishInterrupted()
            #expect(notes.count == 1)
            #expect(try await h.sandbox.entries(of: created) == tracks)
            #expect(try await h.sandbox.writeRequests().filter { $0.path == "/v1/me/playlists" }.count == 1, "created once")
            #expect(try journal.entry(running.id)?.state == .done)
            #expect(try h.cache.entries(of: .playlist(try #require(PlaylistID(created))))?.map(\.uri) == tracks)

            // Abandoned instead: nothing more is sent, and what it leaves is said.
            let again = try await made(h, library, "Lost Again", tracks)
            try await h.sandbox.mutate(playlist: again.rawValue, action: "delete")
            try await h.sandbox.addFaults([Fault(kind: .status, method: "POST", pathContains: "/items", count: 1_000, status: 503)])
            await #expect(throws: (any Error).self) { try await library.perform(.revive(again, PlaylistDetails(name: "Lost Again"), entries: tracks)) }
            let stopped = try #require(try journal.running().first)
            try await h.sandbox.clearFaults()
            let leaves = try await editor.abandon(stopped.id)
            let state = try journal.entry(stopped.id)?.state
            #expect(leaves.contains("the playlist it created") && state == .failed)
            let left = try await h.sandbox.entries(of: stopped.playlist?.description ?? "")
            let finished = try await editor.finishInterrupted()
            #expect(left.isEmpty && finished.isEmpty, "nothing more is sent")
        }
    }

    /// A new playlist of the user's holding `tracks`.
    func made(_ h: Harness, _ library: Door, _ name: String, _ tracks: [String]) async throws -> PlaylistID {
        let created = try #require(try await library.perform(.create(PlaylistDetails(name: name))).edit)
        let id = try #require(created.playlist?.id)
        _ = try await library.perform(.entries(id, .add(uris: tracks, position: nil)))
        #expect(try await h.sandbox.entries(of: id.rawValue) == tracks)
        return id
    }
}
