import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// An edit on a current cache: one read of the snapshot, the writes, and a cache derived from the
/// plan (issue #33 item 1). Against the in-memory Spotify with a log of every call.
@Suite struct EditBudgetTests {
    static let a = PlaylistEditorTests.a, b = PlaylistEditorTests.b, c = PlaylistEditorTests.c, d = PlaylistEditorTests.d
    static var id: SpotifyID { PlaylistEditorTests.id }

    struct Setup {
        let dir: URL
        let server: FakeSpotify
        /// The same fake: its log is what these tests count.
        var api: FakeSpotify { server }
        let cache: LibraryCache
        let editor: PlaylistEditor
    }

    func setUp(_ entries: [String]) async throws -> Setup {
        let base = try await PlaylistEditorTests().setUp(entries)
        base.server.calls.withLock { $0 = [] }
        return Setup(dir: base.dir, server: base.server, cache: base.cache, editor: base.editor)
    }

    var path: String { "playlists/\(Self.id.rawValue)" }

    @Test func aMoveOnACurrentCacheIsTheSnapshotAndTheMove() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c, Self.d])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let outcome = try await s.editor.apply(.move(start: 0, length: 1, to: 1), to: Self.id)
        #expect(s.api.log == ["GET \(path)", "ME", "PUT \(path)/items"], "the user once, no read after")
        #expect(s.server.entries == [Self.b, Self.a, Self.c, Self.d])
        let cached = try #require(try s.cache.playlist(.playlist(Self.id)))
        #expect(try s.cache.entries(of: .playlist(Self.id))?.map(\.uri) == s.server.entries)
        #expect(cached.snapshotID == "snap\(s.server.state.current.version)" && outcome.snapshotID == cached.snapshotID)

        // The next edit knows the user: the snapshot and the writes alone.
        s.api.calls.withLock { $0 = [] }
        _ = try await s.editor.apply(.removePositions([2]), to: Self.id)
        #expect(s.api.log == ["GET \(path)", "DELETE \(path)/items"])
        #expect(s.server.entries == [Self.b, Self.a, Self.d])
        #expect(try s.cache.entries(of: .playlist(Self.id))?.map(\.uri) == s.server.entries)
    }

    @Test func aChangeElsewhereIsReadBeforePlanning() async throws {
        let s = try await setUp([Self.a, Self.b, Self.c])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.server.state.withLock {
            $0.entries.insert(Self.d, at: 0)
            $0.version += 1
        }
        // Positions are the ones the user saw: entry 1 (a) is now at 1 on Spotify.
        _ = try await s.editor.apply(.removePositions([0]), to: Self.id, options: .init(force: true))
        #expect(s.server.entries == [Self.d, Self.b, Self.c])
        #expect(s.api.log.prefix(3) == ["GET \(path)", "ME", "GET \(path)/items"])
        #expect(try s.cache.entries(of: .playlist(Self.id))?.map(\.uri) == s.server.entries)
        #expect(try s.cache.playlist(.playlist(Self.id))?.snapshotID == "snap\(s.server.state.current.version)")
    }

    @Test func aTrackTheCacheHasNeverSeenIsNamedByTheCatalog() async throws {
        let s = try await setUp([Self.a, Self.b])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        s.api.catalog.withLock { $0[Self.c] = "Lonely Song" }
        _ = try await s.editor.apply(.add(uris: [Self.c], position: 1), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.c, Self.b])
        #expect(s.api.log == ["GET \(path)", "ME", "POST \(path)/items", "GET tracks/\(Self.c.dropFirst(14))"])
        let entries = try #require(try s.cache.entries(of: .playlist(Self.id)))
        #expect(entries.map(\.uri) == s.server.entries)
        #expect(entries[1].name == "Lonely Song" && entries[1].addedBy == "listener" && entries[1].addedAt != nil)
        #expect(entries[2].addedAt == "2024-01-01T00:00:00Z", "b was not touched")
    }

    @Test func aTrackNobodyCanNameIsReadAfter() async throws {
        let s = try await setUp([Self.a, Self.b])
        defer { try? FileManager.default.removeItem(at: s.dir) }
        _ = try await s.editor.apply(.add(uris: [Self.c], position: nil), to: Self.id)
        #expect(s.server.entries == [Self.a, Self.b, Self.c])
        #expect(s.api.log.suffix(2) == ["GET \(path)/items", "GET \(path)"], "named from Spotify's list: \(s.api.log)")
        #expect(try s.cache.entries(of: .playlist(Self.id))?.map(\.uri) == s.server.entries)
    }

    @Test func derivingKeepsRowsMovesThemAndDatesWhatSpotifyAdds() throws {
        func entry(_ uri: String, _ position: Int, _ date: String = "2024-01-01T00:00:00Z") -> CachedEntry {
            CachedEntry(position: position, kind: .track, id: nil, uri: uri, name: "n" + uri.suffix(1), artists: [], album: nil, durationMS: 1, addedAt: date)
        }
        let before = [Self.a, Self.b, Self.a, Self.c]
        // The entry at 1 has no row (Spotify cannot name it): it stays a gap where the plan takes it.
        let rows = [entry(Self.a, 0), entry(Self.a, 2, "2024-02-02T00:00:00Z"), entry(Self.c, 3)]
        let plan = try EntryEdit.remove(positions: [0]).plan(on: before)
        let derived = try #require(
            PlaylistEditor.derive(plan, before: rows, known: [Self.a: rows[0]], addedAt: "2026-11-26T12:00:00Z", addedBy: "listener"))
        // Every a removed, the kept one (was at 2) added back at 1: a new added date, by the user.
        #expect(derived.map(\.position) == [1, 2])
        #expect(derived.map(\.uri) == [Self.a, Self.c])
        #expect(derived[0].addedAt == "2026-11-26T12:00:00Z" && derived[0].addedBy == "listener")
        #expect(derived[1].addedAt == "2024-01-01T00:00:00Z", "an entry that stays keeps its date")
        let move = try EntryEdit.move(start: 3, length: 1, to: 0).plan(on: before)
        let moved = try #require(PlaylistEditor.derive(move, before: rows, known: [:], addedAt: "now", addedBy: nil))
        #expect(moved.map(\.position) == [0, 1, 3] && moved.map(\.uri) == [Self.c, Self.a, Self.a])
        #expect(moved.allSatisfy { $0.addedAt != "now" })
        let add = try EntryEdit.insert(uris: [Self.d], position: 0).plan(on: before)
        #expect(PlaylistEditor.derive(add, before: rows, known: [:], addedAt: "now", addedBy: nil) == nil, "no row for d: read instead")
    }
}
