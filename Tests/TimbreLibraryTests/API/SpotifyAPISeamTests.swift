import Foundation
import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

@Suite struct SpotifyAPISeamTests {
    static let playlistID = "0123456789abcdefABCDEF"
    static var playlist: PlaylistRef { SpotifyID(playlistID).map(PlaylistRef.playlist) ?? .liked }
    static let trackID = "4uLU6hMCjMI75M1A2tKUQC"
    static let otherID = "7ouMYWpwJ422jRcDASZB7P"

    static func entry(_ id: String, field: String = "item", added: String = "2024-01-01T00:00:00Z") -> String {
        """
        {"added_at": "\(added)", "is_local": false, "\(field)": {"id": "\(id)", "uri": "spotify:track:\(id)", "name": "Song \(id.prefix(4))",
         "type": "track", "duration_ms": 200000, "is_local": false, "artists": [{"name": "Artist"}], "album": {"name": "Album"}}}
        """
    }

    static func library(snapshot: String, entries: [String], playlists: Bool = true) -> [String: String] {
        let playlist = """
            {"id": "\(playlistID)", "name": "Road Trip", "owner": {"id": "listener", "display_name": "A Listener"},
             "snapshot_id": "\(snapshot)", "collaborative": false, "public": true, "items": {"total": \(entries.count)}}
            """
        return [
            "me/playlists": #"{"items": [\#(playlists ? playlist : "")], "next": null, "total": \#(playlists ? 1 : 0)}"#,
            "playlists/\(playlistID)/items": #"{"items": [\#(entries.joined(separator: ","))], "next": null, "total": \#(entries.count)}"#,
            "me/tracks": #"{"items": [\#(entry(otherID, field: "track"))], "next": null, "total": 1}"#,
        ]
    }

    private func cache() throws -> (LibraryCache, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-seam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (try LibraryCache.open(path: dir.appendingPathComponent("library.sqlite").path, warn: { _ in }), dir)
    }

    @Test func aTrackTwiceIsTwoEntriesAndBothAreKept() async throws {
        let (cache, dir) = try cache()
        defer { try? FileManager.default.removeItem(at: dir) }
        let api = FakeSpotify(scripted: Self.library(snapshot: "s1", entries: [Self.entry(Self.trackID), Self.entry(Self.otherID), Self.entry(Self.trackID)]))
        let report = try await SyncEngine(api: api, cache: cache, options: SyncOptions()).run()
        #expect(report.status == .ok)
        #expect(report.updated == 1 && report.likedUpdated)
        let entries = try #require(try cache.entries(of: Self.playlist))
        #expect(entries.map(\.position) == [0, 1, 2])
        #expect(entries.map(\.id) == [Self.trackID, Self.otherID, Self.trackID])
        #expect(try cache.entries(of: .liked)?.map(\.id) == [Self.otherID])
        #expect(try cache.playlist(.liked)?.ownerID == "listener", "Liked Songs belong to the user `me` named")
    }

    @Test func anUnchangedSnapshotIsNotFetchedAgainAndAnEmptyListRemovesNothing() async throws {
        let (cache, dir) = try cache()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = FakeSpotify(scripted: Self.library(snapshot: "s1", entries: [Self.entry(Self.trackID)]))
        _ = try await SyncEngine(api: first, cache: cache, options: SyncOptions()).run()

        let again = FakeSpotify(scripted: Self.library(snapshot: "s1", entries: []))
        let report = try await SyncEngine(api: again, cache: cache, options: SyncOptions()).run()
        #expect(report.unchanged == 1 && report.updated == 0)
        #expect(!again.asked.contains { $0.hasPrefix("playlists/") }, "\(again.asked)")
        #expect(try cache.entries(of: Self.playlist)?.count == 1)

        // Spotify listing no playlists at all while the cache holds one: a glitch, not a deletion.
        let empty = FakeSpotify(scripted: Self.library(snapshot: "s2", entries: [], playlists: false))
        let glitch = try await SyncEngine(api: empty, cache: cache, options: SyncOptions()).run()
        #expect(glitch.removed == 0)
        #expect(glitch.warnings.contains { $0.contains("listed no playlists") })
        #expect(try cache.entries(of: Self.playlist)?.map(\.id) == [Self.trackID])
    }
}
