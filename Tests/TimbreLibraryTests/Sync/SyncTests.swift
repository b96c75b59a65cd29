import Foundation
import SandboxCore
import Testing
import TimbreCore
import TimbreNet
import TimbreTestSupport

@testable import TimbreLibrary

@Suite(.tags(.integration), .integrationTier) struct SyncTests {
    @Test func fullSyncMatchesTheModelAndResyncsCheaply() async throws {
        let h = try await Harness.start(.medium)
        try await withCleanup({ await h.stop() }) {
            try await h.sandbox.clearRequests()
            let report = try await h.sync()
            let model = try await h.model()
            try expectMatch(h.cache, model)
            let unreadable = model.playlists.filter { !$0.readable }.count
            #expect(unreadable >= 2)
            #expect(report.status == .ok, "\(report.warnings)")
            #expect(report.checked == 60 && report.updated == 60 - unreadable && report.unchanged == unreadable && report.failed == 0)
            #expect(report.likedUpdated && report.likedCount == 800)
            #expect(report.itemsWritten == model.playlists.filter(\.readable).map(\.storable.count).reduce(0, +) + model.liked.count)
            let malformed = model.playlists.filter { $0.readable && $0.malformedCount > 0 }.count
            #expect(report.warnings.filter { $0.contains("malformed id") }.count == malformed)
            #expect(report.warnings.filter { $0.contains("unavailable") }.count == unreadable)
            #expect(report.requests == (try await h.sandbox.requests().count))

            // Nothing changed: only the list pages, /me and the first liked page. (The unreadable
            // playlists are other users': by Spotify's rule they stay unreadable until they change.)
            try await h.sandbox.clearRequests()
            let again = try await h.sync()
            let requests = try await h.sandbox.requests()
            let retried = try await h.itemRequests().map(\.path)
            #expect(retried.isEmpty, "\(retried)")
            #expect(requests.count <= 2 + 2, "\(requests.map(\.path))")
            #expect(again.requests == requests.count)
            #expect(again.status == .ok && again.updated == 0 && again.unchanged == 60 && !again.likedUpdated && again.itemsWritten == 0)

            // One playlist changes: only it is refetched.
            let target = model.playlists[0].id
            try await h.sandbox.mutate(playlist: target, action: "append")
            try await h.sandbox.clearRequests()
            let third = try await h.sync()
            #expect(Set(try await h.itemRequests().map(\.path)) == ["/v1/playlists/\(target)/items"])
            #expect(third.updated == 1)
            try expectMatch(h.cache, try await h.model())
        }
    }

    @Test func removedPlaylistsLeaveAndSelectionRemovesNothing() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let model = try await h.model()
            let gone = model.playlists[2].id, changed = model.playlists[0].id, other = model.playlists[3].id
            try await h.sandbox.mutate(playlist: gone, action: "delete")
            try await h.sandbox.mutate(playlist: changed, action: "remove_first")
            try await h.sandbox.mutate(playlist: other, action: "rename", name: "Renamed")

            // A selection fetches only what it names and removes nothing.
            try await h.sandbox.clearRequests()
            guard let changedID = SpotifyID(changed) else {
                Issue.record("model id")
                return
            }
            let selected = try await h.sync(SyncOptions(playlists: [changedID]))
            #expect(selected.updated == 1 && selected.removed == 0 && !selected.likedUpdated)
            #expect(Set(try await h.itemRequests().map(\.path)) == ["/v1/playlists/\(changed)/items"])
            #expect(try h.cache.playlists().contains { $0.id == gone })
            #expect(!(try await h.sandbox.requests()).contains { $0.path.hasPrefix("/v1/me/tracks") })

            let full = try await h.sync()
            #expect(full.removed == 1)
            #expect(full.updated == 1, "the rename changed the snapshot")
            try expectMatch(h.cache, try await h.model())
        }
    }

    @Test func emptyPlaylistListNeverEmptiesTheCache() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            for playlist in try await h.model().playlists { try await h.sandbox.mutate(playlist: playlist.id, action: "delete") }
            let report = try await h.sync()
            #expect(report.removed == 0)
            #expect(report.warnings.contains { $0.contains("listed no playlists") })
            #expect(try h.cache.playlists().count == 10)
        }
    }

    @Test func legacyServerIsSyncedThroughTracks() async throws {
        let h = try await Harness.start(.small, ["--legacy"])
        try await withCleanup({ await h.stop() }) {
            let report = try await h.sync()
            #expect(report.status == .ok, "\(report.warnings)")
            try expectMatch(h.cache, try await h.model())
            let items = try await h.itemRequests()
            // Only the first few requests (one per playlist in flight) may try /items.
            #expect(items.filter { $0.path.hasSuffix("/items") }.count <= SyncEngine.playlistConcurrency)
            #expect(items.filter { $0.path.hasSuffix("/tracks") && $0.status == 200 }.allSatisfy { $0.query.contains("limit=50") })
        }
    }

    /// `limit=50` (the description's maximum) from the first request: no 400 "Invalid limit" and
    /// no request sent twice (a 100 that fell back to 50 wasted 89 of 641 requests).
    @Test func itemsAreRead50APageFromTheFirstRequest() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let items = try await h.itemRequests()
            #expect(!items.isEmpty)
            #expect(items.allSatisfy { $0.status != 400 })
            #expect(items.allSatisfy { $0.query.contains("limit=50") })
            #expect(items.allSatisfy { $0.query.contains("fields=") })
            try expectMatch(h.cache, try await h.model())

            // A server that would accept 100 is still asked for 50: the description's limit.
            let wide = try await Harness.start(.small, ["--items-limit-max", "100"])
            try await withCleanup({ await wide.stop() }) {
                _ = try await wide.sync()
                let wideItems = try await wide.itemRequests()
                #expect(wideItems.allSatisfy { $0.status != 400 && $0.query.contains("limit=50") })
                try expectMatch(wide.cache, try await wide.model())
            }
        }
    }

    @Test func emptyItemsGlitchLeavesTheCacheUntouched() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let model = try await h.model()
            guard let playlist = model.playlists.first(where: { $0.readable && $0.storable.count > 5 && $0.items.count <= 50 }), let id = SpotifyID(playlist.id)
            else {
                Issue.record("no playlist to glitch")
                return
            }
            let before = try h.cache.entries(of: .playlist(id))
            for total in ["keep", "zero"] {
                try await h.sandbox.addFaults([Fault(kind: .emptyItems, pathContains: "limit=50", count: 20, playlist: playlist.id, total: total)])
                let report = try await h.sync(SyncOptions(playlists: [id], force: true))
                #expect(report.updated == 0 && report.unchanged == 1, "\(total)")
                #expect(report.warnings.filter { $0.contains("Spotify") }.count == 1, "\(total): \(report.warnings)")
                #expect(try h.cache.entries(of: .playlist(id)) == before, "\(total)")
                try await h.sandbox.clearFaults()
            }
            // One glitch is absorbed by the refetch (the playlist fits in one page).
            try await h.sandbox.addFaults([Fault(kind: .emptyItems, pathContains: "limit=50", count: 1, playlist: playlist.id, total: "keep")])
            let report = try await h.sync(SyncOptions(playlists: [id], force: true))
            #expect(report.updated == 1 && !report.warnings.contains { $0.contains("Spotify") }, "\(report.warnings)")
            #expect(try h.cache.entries(of: .playlist(id)) == before)
        }
    }

    @Test func transientFaultsEndInACorrectCache() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            try await h.sandbox.addFaults([
                Fault(kind: .status, pathContains: "/me/playlists", count: 1, status: 429, retryAfter: 1),
                Fault(kind: .status, pathContains: "/items", count: 2, status: 503),
                Fault(kind: .status, pathContains: "/items", count: 1, status: 500),
                Fault(kind: .reset, pathContains: "/items", count: 2),
                Fault(kind: .malformed, pathContains: "/items", count: 1),
                Fault(kind: .reset, pathContains: "/me/tracks", count: 1),
                Fault(kind: .malformed, pathContains: "/me/tracks", count: 1),
            ])
            let report = try await h.sync()
            #expect(report.status == .ok, "\(report.warnings)")
            #expect(try await h.sandbox.requests().contains { $0.status == 429 })
            try expectMatch(h.cache, try await h.model())
        }
    }

    @Test func aPlaylistThatStaysMalformedFailsAlone() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            let model = try await h.model()
            let broken = model.playlists[0].id
            // Unreadable on every attempt the retry policy allows: the first and each retry.
            try await h.sandbox.addFaults([Fault(kind: .malformed, pathContains: "/playlists/\(broken)/items", count: RetryPolicy().maxRetries + 1)])
            let report = try await h.sync()
            #expect(report.status == .partial && report.exitStatus == .partial)
            #expect(report.failed == 1 && report.updated == model.playlists.filter(\.readable).count - 1)
            #expect(report.warnings.contains { $0.contains("unreadable response") })
            let id = try #require(SpotifyID(broken))
            #expect(try h.cache.entries(of: .playlist(id)) == [])
            #expect(try h.cache.playlist(.playlist(id))?.snapshotID == nil, "retried on the next sync")
            let next = try await h.sync()
            #expect(next.status == .ok && next.updated == 1)
            try expectMatch(h.cache, try await h.model())
        }
    }

    @Test func aCacheWriteThatFailsEndsTheRunAndLeavesNoListHalfWritten() async throws {
        let h = try await Harness.start(.medium)
        try await withCleanup({ await h.stop() }) {
            let model = try await h.model()
            let readable = model.playlists.filter { $0.readable && !$0.storable.isEmpty }
            let victim = readable[readable.count / 2].id
            // Lists are written several to a transaction: the one holding the victim is refused whole.
            try await h.cache.pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER refuse_victim BEFORE UPDATE OF items_key ON playlist WHEN NEW.id = '\(victim)'
                        BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END
                        """)
            }
            let error = await #expect(throws: CacheError.self) { try await h.sync() }
            #expect(error?.message.contains("simulated write failure") == true, "\(String(describing: error))")

            // Every list in the cache is whole; the victim's was never stored.
            let counts = Dictionary(uniqueKeysWithValues: model.playlists.map { ($0.id, $0.storable.count) })
            var stored = 0
            for listed in try h.cache.playlists() where !listed.isLiked && !listed.unavailable {
                guard let id = SpotifyID(listed.id), let (playlist, items) = try h.cache.playlistWithItems(.playlist(id)) else { continue }
                if playlist.snapshotID == nil {
                    #expect(items.isEmpty, "\(listed.id) has rows but no snapshot")
                } else {
                    #expect(items.count == counts[listed.id], "\(listed.id): \(items.count) of \(counts[listed.id] ?? -1)")
                    stored += 1
                }
            }
            let victimID = try #require(SpotifyID(victim))
            #expect(try h.cache.playlist(.playlist(victimID))?.snapshotID == nil)
            #expect(try h.cache.entries(of: .playlist(victimID)) == [])
            #expect(stored < readable.count)

            try await h.cache.pool.write { db in try db.execute(sql: "DROP TRIGGER refuse_victim") }
            let next = try await h.sync()
            #expect(next.status == .ok, "\(next.warnings)")
            try expectMatch(h.cache, try await h.model())
        }
    }

    @Test func signInProblemsEndTheRun() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            try await h.sandbox.expireAccessTokens()
            try await h.sandbox.revokeRefreshTokens()
            do {
                _ = try await h.sync()
                Issue.record("expected a sign-in error")
            } catch let error as any UserFacingError {
                #expect(error.exitStatus == .authenticationRequired)
            }
        }
    }

    @Test func selectionsOfLikedOrUnknownPlaylists() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            try await h.sandbox.clearRequests()
            let liked = try await h.sync(SyncOptions(liked: true, force: true))
            #expect(liked.status == .ok && liked.likedUpdated && liked.likedCount == 50 && liked.checked == 0)
            #expect(try await h.itemRequests().isEmpty)

            let unknown = try #require(SpotifyID("0000000000000000000000"))
            let missing = try await h.sync(SyncOptions(playlists: [unknown]))
            #expect(missing.status == .failed && missing.exitStatus == .failure && missing.failed == 1 && missing.removed == 0)
            #expect(missing.warnings.count == 1)
            #expect(try h.cache.playlists().count == 10)
        }
    }

    @Test func anUnreadablePlaylistListEndsTheRunAndKeepsTheCache() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            try await h.sandbox.addFaults([Fault(kind: .malformed, pathContains: "/me/playlists", count: RetryPolicy().maxRetries + 1)])
            await #expect(throws: SyncError.self) { try await h.sync() }
            try expectMatch(h.cache, try await h.model())
        }
    }

    @Test func readersNeverSeeAHalfWrittenPlaylist() async throws {
        let h = try await Harness.start(.medium)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            var expected: [String: Int] = [:]
            func record(_ model: Model) {
                for playlist in model.playlists where playlist.readable {
                    expected[playlist.summary["snapshot_id"] as? String ?? ""] = playlist.storable.count
                }
            }
            let before = try await h.model()
            record(before)
            for playlist in before.playlists.prefix(12) where playlist.readable {
                try await h.sandbox.mutate(playlist: playlist.id, action: playlist.storable.count % 2 == 0 ? "append" : "remove_first")
            }
            record(try await h.model())
            let snapshots = expected

            // Another connection (as the TUI would have) polls while a forced sync rewrites everything.
            let reader = try LibraryCache.open(path: h.cachePath, warn: { _ in })
            let stop = Locked(false)
            let polling = Task.detached { () -> (reads: Int, problems: [String]) in
                var reads = 0
                var problems: [String] = []
                while !stop.current {
                    do {
                        for listed in try reader.playlists() where !listed.isLiked && !listed.unavailable {
                            guard let id = SpotifyID(listed.id), let (playlist, items) = try reader.playlistWithItems(.playlist(id)),
                                let snapshot = playlist.snapshotID
                            else { continue }
                            if snapshots[snapshot] != items.count { problems.append("\(playlist.id) \(snapshot): \(items.count)") }
                        }
                        reads += 1
                    } catch {
                        problems.append("read failed: \(error)")
                    }
                }
                return (reads, problems)
            }
            let report = try await h.sync(SyncOptions(force: true))
            stop.withLock { $0 = true }
            let (reads, problems) = await polling.value
            #expect(report.status == .ok)
            #expect(reads > 3)
            #expect(problems == [])
            try expectMatch(h.cache, try await h.model())
        }
    }
}
