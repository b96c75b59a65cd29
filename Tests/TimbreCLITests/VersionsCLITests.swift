import Foundation
import Testing
import TimbreTestSupport

/// Playlist versions through the CLI against the sandbox: changes made from outside (the
/// sandbox's `mutate`, as another app would) seen by syncs, an edit by timbre, a deletion; what
/// `playlist log`, `playlist diff` and `playlists --deleted` say, checked against the server.
@Suite(.serialized, .tags(.integration), .integrationTier) struct VersionsCLITests {
    typealias Setup = SyncCLITests.Setup

    /// The small library, signed in by refresh token (the sync tests' set-up).
    func setUp() async throws -> Setup { try await SyncCLITests().setUp("small") }

    func parse(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// The user's own playlist with the most entries, no null ones (the cache leaves nulls out) and no
    /// track twice (so the counts of moves are plain).
    /// One of the user's playlists changed from outside since the first sync — reordered, then
    /// its first entry removed — and synced again: its id, its entries (with their dates) before,
    /// and its entries now.
    func changedOwnPlaylist(_ s: Setup) async throws -> (id: String, original: [String], originalDated: [String], changed: [String]) {
        await sync(s)
        let (id, original) = try await ownPlaylist(s)
        let originalDated = try await s.sandbox.datedEntries(of: id)
        try await s.sandbox.mutate(playlist: id, action: "reorder")
        try await s.sandbox.mutate(playlist: id, action: "remove_first")
        await sync(s)
        return (id, original, originalDated, try await s.sandbox.entries(of: id))
    }

    func ownPlaylist(_ s: Setup) async throws -> (id: String, entries: [String]) {
        let model = try await s.sandbox.library(includeItems: false)
        var best: (String, [String])?
        for playlist in model["playlists"] as? [[String: Any]] ?? [] {
            guard let id = playlist["id"] as? String, (playlist["owner_id"] as? String) == s.sandbox.info.userID,
                (playlist["collaborative"] as? Bool) == false
            else { continue }
            let entries = try await s.sandbox.entries(of: id)
            if !entries.contains(""), Set(entries).count == entries.count, entries.count > (best?.1.count ?? 4) { best = (id, entries) }
        }
        let found = try #require(best, "the sandbox user owns a playlist with entries")
        return (found.0, found.1)
    }

    func log(_ s: Setup, _ ref: String) async throws -> [[String: Any]] {
        let result = await s.cli.invoke(["playlist", "log", ref, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(parse(result.stdout) as? [[String: Any]], "\(result.stdout)")
    }

    func sync(_ s: Setup) async {
        let result = await s.cli.invoke(["sync", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func outsideChangesAndEditsBecomeVersions() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            await sync(s)
            let (id, original) = try await ownPlaylist(s)
            let n = original.count
            var versions = try await log(s, id)
            #expect(versions.count == 1)
            #expect(versions.first?["source"] as? String == "sync" && versions.first?["entries"] as? Int == n)

            // Reordered from outside: every entry but one moved, none added or removed.
            try await s.sandbox.mutate(playlist: id, action: "reorder")
            #expect(try await s.sandbox.entries(of: id) == original.reversed())
            await sync(s)
            versions = try await log(s, id)
            #expect(versions.map { $0["version"] as? Int } == [2, 1], "newest first")
            let reordered = try #require(versions.first)
            #expect(reordered["source"] as? String == "sync" && reordered["edit"] is NSNull)
            #expect(reordered["entries"] as? Int == n && reordered["added"] as? Int == 0 && reordered["removed"] as? Int == 0)
            #expect(reordered["moved"] as? Int == n - 1)
            let diff = await s.cli.invoke(["playlist", "diff", id, "--json"])
            let moved = try #require((parse(diff.stdout) as? [String: Any])?["moved"] as? [[String: Any]], "\(diff.stdout) \(diff.stderr)")
            #expect(moved.count == n - 1)
            #expect(moved.allSatisfy { ($0["from"] as? Int ?? 0) >= 1 && ($0["to"] as? Int ?? 0) >= 1 }, "positions count from 1")

            // Renamed from outside.
            try await s.sandbox.mutate(playlist: id, action: "rename", name: "Renamed Outside")
            await sync(s)
            versions = try await log(s, id)
            #expect(versions.first?["version"] as? Int == 3 && versions.first?["name"] as? String == "Renamed Outside")
            let text = await s.cli.invoke(["playlist", "log", id])
            #expect(text.stdout.contains("renamed “Renamed Outside”"), "\(text.stdout)")

            // An edit by timbre: source edit with the journal's id; the server holds the result.
            let removed = await s.cli.invoke(["playlist", "remove", id, "--position", "1", "--json"])
            #expect(removed.status == 0, "\(removed.stderr)")
            let journalID = try #require((parse(removed.stdout) as? [String: Any])?["journal_id"] as? Int)
            #expect(try await s.sandbox.entries(of: id) == Array(original.reversed().dropFirst()))
            versions = try await log(s, id)
            #expect(versions.first?["source"] as? String == "edit" && versions.first?["edit"] as? Int == journalID)
            #expect(versions.first?["removed"] as? Int == 1 && versions.first?["entries"] as? Int == n - 1)

            // Cleared from outside; then the diffs between named versions.
            try await s.sandbox.mutate(playlist: id, action: "clear")
            await sync(s)
            versions = try await log(s, id)
            #expect(versions.first?["version"] as? Int == 5 && versions.first?["entries"] as? Int == 0)
            #expect(versions.first?["removed"] as? Int == n - 1)
            let fromFirst = await s.cli.invoke(["playlist", "diff", id, "1", "--json"])
            let removedAll = try #require((parse(fromFirst.stdout) as? [String: Any])?["removed"] as? [[String: Any]])
            #expect(removedAll.map { $0["uri"] as? String } == original.map { Optional($0) })
            #expect(removedAll.map { $0["position"] as? Int } == Array(1...n))
            let oneToFour = await s.cli.invoke(["playlist", "diff", id, "3", "4"])
            #expect(oneToFour.status == 0 && oneToFour.stdout.contains("- #1 "), "\(oneToFour.stdout)")

            // An unknown version: exit 2, a clear message, nothing on stdout.
            let unknown = await s.cli.invoke(["playlist", "diff", id, "9"])
            #expect(unknown.status == 2 && unknown.stderr.contains("no version 9") && unknown.stdout.isEmpty, "\(unknown.stderr)")

            // Deleted from outside: gone from the library, kept in the versions.
            try await s.sandbox.mutate(playlist: id, action: "delete")
            await sync(s)
            let deleted = await s.cli.invoke(["playlists", "--deleted", "--json"])
            let gone = try #require(parse(deleted.stdout) as? [[String: Any]], "\(deleted.stdout)")
            #expect(gone.map { $0["id"] as? String } == [id])
            #expect(gone.first?["last_version"] as? Int == 5 && gone.first?["entries"] as? Int == 0)
            #expect(gone.first?["name"] as? String == "Renamed Outside" && gone.first?["deleted_at"] is String)
            #expect(try await log(s, id).count == 5, "a deleted playlist's versions stay")
            #expect(try await log(s, "Renamed Outside").count == 5, "and its last name finds it")

            let prune = await s.cli.invoke(["history", "--prune"])
            #expect(prune.status == 0 && prune.stdout.contains("Nothing to prune"), "\(prune.stdout)")
        }
    }

    /// `playlist delete` (Spotify's unfollow) by timbre: the playlist's state before it is kept and
    /// it is listed as deleted at once; following it again (undo) takes it off the list.
    @Test func aPlaylistDeletedByTimbreIsListedWithItsLastVersion() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            await sync(s)
            let (id, entries) = try await ownPlaylist(s)
            let deleted = await s.cli.invoke(["playlist", "delete", id, "--yes"])
            #expect(deleted.status == 0, "\(deleted.stderr)")
            let model = try await s.sandbox.library(includeItems: false)
            #expect(!(model["playlists"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == id }, "unfollowed on the server")
            let listed = await s.cli.invoke(["playlists", "--deleted", "--json"])
            let gone = try #require(parse(listed.stdout) as? [[String: Any]], "\(listed.stdout)")
            #expect(gone.map { $0["id"] as? String } == [id])
            #expect(gone.first?["entries"] as? Int == entries.count && gone.first?["last_version"] as? Int == 1)
            let text = await s.cli.invoke(["playlists", "--deleted"])
            #expect(text.stdout.contains(id) && text.stdout.contains("v1"), "\(text.stdout)")
            #expect(await s.cli.invoke(["undo"]).status == 0)
            // Followed again by the undo: no longer listed, before any sync.
            let undone = await s.cli.invoke(["playlists", "--deleted", "--json"])
            #expect((parse(undone.stdout) as? [[String: Any]])?.isEmpty == true, "\(undone.stdout)")
            // The redo deletes it again; its undo brings it back, and a sync agrees.
            #expect(await s.cli.invoke(["redo"]).status == 0)
            let redone = await s.cli.invoke(["playlists", "--deleted", "--json"])
            #expect((parse(redone.stdout) as? [[String: Any]])?.map { $0["id"] as? String } == [id], "\(redone.stdout)")
            #expect(await s.cli.invoke(["undo"]).status == 0)
            await sync(s)
            let after = await s.cli.invoke(["playlists", "--deleted", "--json"])
            #expect((parse(after.stdout) as? [[String: Any]])?.isEmpty == true, "\(after.stdout)")
        }
    }

    /// Paste, undo, redo: each step of the journal that changed the playlist is a version — the
    /// undo's too —, named by its step and the edit it undid or redid (`undo 7`, `redo 7`; JSON
    /// keeps `source: edit` and adds `step`); the undone paste is not taken for a deletion; and the
    /// comparison of two versions lists no entry as moved to the position it had.
    @Test func undoAndRedoAreVersionsOfTheirOwn() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            await sync(s)
            let (id, original) = try await ownPlaylist(s)
            let n = original.count
            let pasted = await s.cli.invoke(["playlist", "add", id, original[0], original[1], "--position", "3", "--json"])
            #expect(pasted.status == 0, "\(pasted.stderr)")
            let journalID = try #require((parse(pasted.stdout) as? [String: Any])?["journal_id"] as? Int)
            let withPaste = Array(original[..<2]) + [original[0], original[1]] + Array(original[2...])
            #expect(try await s.sandbox.entries(of: id) == withPaste)

            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == original)
            #expect(await s.cli.invoke(["redo"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == withPaste)

            let versions = try await log(s, id)
            #expect(versions.map { $0["version"] as? Int } == [4, 3, 2, 1], "\(versions)")
            #expect(versions.map { $0["source"] as? String } == ["edit", "edit", "edit", "sync"], "the contract's enum stays")
            #expect(versions.map { $0["step"] as? String } == ["redo", "undo", nil, nil])
            #expect(versions.prefix(3).allSatisfy { $0["edit"] as? Int == journalID })
            #expect(versions.map { $0["entries"] as? Int } == [n + 2, n, n + 2, n])
            #expect(versions.map { $0["added"] as? Int } == [2, 0, 2, 0])
            #expect(versions.map { $0["removed"] as? Int } == [0, 2, 0, 0])
            #expect(versions.map { $0["moved"] as? Int } == [0, 0, 0, 0])

            let text = await s.cli.invoke(["playlist", "log", id])
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.contains("redo \(journalID)") && $0.contains("+2 −0 ~0") }, "\(text.stdout)")
            #expect(lines.contains { $0.contains("undo \(journalID)") && $0.contains("+0 −2 ~0") }, "\(text.stdout)")
            #expect(lines.contains { $0.contains("edit \(journalID)") && $0.contains("+2 −0 ~0") }, "\(text.stdout)")

            // The undone paste left the playlist in the library.
            let deleted = await s.cli.invoke(["playlists", "--deleted", "--json"])
            #expect((parse(deleted.stdout) as? [[String: Any]])?.isEmpty == true, "\(deleted.stdout)")

            // Between the paste and its undo: two removed, nothing "moved" to where it was.
            let diff = await s.cli.invoke(["playlist", "diff", id, "2", "3"])
            #expect(diff.status == 0, "\(diff.stderr)")
            #expect(!diff.stdout.contains("\n~ "), "\(diff.stdout)")
            #expect(diff.stdout.contains("+0 −2 ~0"), "\(diff.stdout)")
            #expect(diff.stdout.split(separator: "\n").filter { $0.hasPrefix("- ") }.count == 2, "\(diff.stdout)")
        }
    }

    /// A name built to attack a terminal and the storage: the log shows it inert, JSON carries it exactly.
    @Test func aHostileNameStaysInert() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            await sync(s)
            let (id, _) = try await ownPlaylist(s)
            let model = try await s.sandbox.library(includeItems: false)
            let original = (model["playlists"] as? [[String: Any]] ?? []).first { $0["id"] as? String == id }?["name"] as? String
            let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}'; DROP TABLE playlist_version; --" + String(repeating: "é", count: 5000)
            try await s.sandbox.mutate(playlist: id, action: "rename", name: hostile)
            await sync(s)
            let versions = try await log(s, id)
            #expect(versions.first?["name"] as? String == hostile)
            let text = await s.cli.invoke(["playlist", "log", id])
            #expect(text.status == 0)
            #expect(!text.stdout.contains("\u{1B}") && !text.stdout.contains("\u{202E}") && !text.stdout.contains("\u{07}"))
            #expect(text.stdout.split(separator: "\n").allSatisfy { $0.count < 400 }, "a huge name is cut short")
            let kept = try await log(s, id)
            #expect(kept.count == 2, "the table is still there")
            #expect(kept.last?["name"] as? String == original, "version 1 is the state before the rename (recorded before the sync stored the new name)")
        }
    }
}
