import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Big edits say what they cost before they spend it, and what they said is what the sandbox
/// counts (issue #42 items 4 and 7): dedupe, import, `playlist restore`, `restore` and `backup`
/// print "… this sends about N requests (of the day's quota) …" on stderr before their first
/// write; `--dry-run --json` carries N as `requests`; an undo of a paste costs at most the paste
/// plus one; a deleted playlist restored to a version gets its entries back in the same run.
extension SyncCLITests {
    /// N of the line "VERB …: this sends about N requests (of the day's quota), …" on stderr.
    func announced(_ stderr: String, _ verb: String) -> Int? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix(verb) && $0.contains("this sends about ") }) else { return nil }
        let after = line.components(separatedBy: "this sends about ").dropFirst().first ?? ""
        return Int(after.prefix { $0.isNumber || $0 == "," }.replacingOccurrences(of: ",", with: ""))
    }

    /// `count` tracks not in `entries` (from Liked Songs, each once).
    func tracksOutside(_ s: Setup, _ entries: [String], _ count: Int) async throws -> [String] {
        let inside = Set(entries)
        var seen = Set<String>()
        let outside = try await s.sandbox.likedURIs().filter { $0.hasPrefix("spotify:track:") && !inside.contains($0) && seen.insert($0).inserted }
        try #require(outside.count >= count)
        return Array(outside.prefix(count))
    }

    /// The playlist as the cache lists it: `uri @ added_at`, in order.
    func cachedDated(_ s: Setup, _ id: String) async -> [String] {
        await cachedEntries(s, id).map { "\($0["uri"] as? String ?? "") @ \($0["added_at"] as? String ?? "null")" }
    }

    @Test func anUndoOfAPasteCostsAtMostThePastePlusOneAndLeavesEveryEntryAsItWas() async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, entries) = try await VersionsCLITests().ownPlaylist(s)
            let before = try await s.sandbox.datedEntries(of: id)
            let pasted = try await tracksOutside(s, entries, 2)

            // The paste (what the interface's p sends: an add at a place): the snapshot, the add.
            try await s.sandbox.clearRequests()
            let paste = await s.cli.invoke(["playlist", "add", id] + pasted + ["--position", "3"])
            #expect(paste.status == 0, "\(paste.stderr)")
            let pasteRequests = try await apiRequests(s)
            #expect(pasteRequests.count == 2, "\(pasteRequests)")
            #expect(try await s.sandbox.entries(of: id) == Array(entries[..<2]) + pasted + Array(entries[2...]))

            // Its undo: planned on the cache (one snapshot read), the removal, the cache derived
            // (was: the whole list read before and after, 7 requests).
            try await s.sandbox.clearRequests()
            let undo = await s.cli.invoke(["undo"])
            #expect(undo.status == 0, "\(undo.stderr)")
            let undoRequests = try await apiRequests(s)
            #expect(undoRequests.count <= pasteRequests.count + 1, "\(undoRequests)")
            #expect(!undoRequests.contains { $0.hasPrefix("GET") && $0.hasSuffix("/items") }, "no page of the list is read: \(undoRequests)")
            // On the sandbox: every entry back, in order, each with its own added_at.
            #expect(try await s.sandbox.datedEntries(of: id) == before)
            // The cache is the sandbox's, and a sync finds nothing to read.
            #expect(await cachedDated(s, id) == before.filter { !$0.hasPrefix(" @") })
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            #expect(try await !apiRequests(s).contains { $0.contains("/playlists/\(id)/items") })

            // Its redo: the same cost as the paste, the same entries.
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["redo"]).status == 0)
            #expect(try await apiRequests(s).count <= pasteRequests.count + 1)
            #expect(try await s.sandbox.entries(of: id) == Array(entries[..<2]) + pasted + Array(entries[2...]))
            #expect(await cachedEntries(s, id).map { $0["uri"] as? String ?? "" } == (try await s.sandbox.entries(of: id)))
        }
    }

    @Test func aDedupeAndAnImportSayTheirCostBeforeTheyWriteAndTheDryRunCarriesIt() async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, entries) = try await VersionsCLITests().ownPlaylist(s)
            let tracks = entries.filter { $0.hasPrefix("spotify:track:") }
            // Two later copies of tracks already there.
            #expect(await s.cli.invoke(["playlist", "add", id, tracks[0], tracks[1]]).status == 0)

            try await s.sandbox.clearRequests()
            let dry = await s.cli.invoke(["playlist", "dedupe", id, "--dry-run", "--json"])
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = try #require(parse(dry.stdout) as? [String: Any], "\(dry.stdout)")
            let wouldSend = try #require(plan["requests"] as? Int)
            #expect(try await s.sandbox.writeRequests().isEmpty)

            try await s.sandbox.clearRequests()
            let dedupe = await s.cli.invoke(["playlist", "dedupe", id, "--json"])
            #expect(dedupe.status == 0, "\(dedupe.stderr)")
            let sent = try await apiRequests(s).count
            let outcome = try #require(parse(dedupe.stdout) as? [String: Any], "\(dedupe.stdout)")
            #expect(outcome["requests"] as? Int == sent, "`requests` is what the sandbox counted")
            #expect(announced(dedupe.stderr, "Dedupe “") == sent, "said before the writes: \(dedupe.stderr)")
            #expect(wouldSend == sent, "the dry run's figure is what the run sent")
            #expect(try await s.sandbox.entries(of: id) == entries)

            // An import of three URIs the playlist lacks.
            let rows = try await tracksOutside(s, entries, 3)
            let file = s.cli.home.appendingPathComponent("import.txt")
            try Data(rows.joined(separator: "\n").utf8).write(to: file)
            try await s.sandbox.clearRequests()
            let dryImport = await s.cli.invoke(["import", file.path, "--into", id, "--dry-run", "--json"])
            #expect(dryImport.status == 0, "\(dryImport.stderr)")
            let importPlan = try #require(parse(dryImport.stdout) as? [String: Any], "\(dryImport.stdout)")
            #expect(try await s.sandbox.writeRequests().isEmpty)
            try await s.sandbox.clearRequests()
            let imported = await s.cli.invoke(["import", file.path, "--into", id, "--json"])
            #expect(imported.status == 0, "\(imported.stderr)")
            let importSent = try await apiRequests(s).count
            #expect((parse(imported.stdout) as? [String: Any])?["requests"] as? Int == importSent, "\(imported.stdout)")
            #expect(announced(imported.stderr, "Import into “") == importSent, "\(imported.stderr)")
            #expect(importPlan["requests"] as? Int == importSent, "\(dryImport.stdout)")
            #expect(try await s.sandbox.entries(of: id) == entries + rows)
            #expect(await cachedEntries(s, id).map { $0["uri"] as? String ?? "" } == entries + rows)
        }
    }

    @Test func aBackupAndARestoreSayTheirCostAndARestoreReportsEveryRequestItSent() async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            let (file, backup) = try await backUp(s)
            let backupSent = try await apiRequests(s).count
            #expect(announced(backup.stderr, "Backup") == backupSent, "\(backup.stderr)")

            // A playlist deleted since: the restore follows it back.
            let (id, entries) = try await VersionsCLITests().ownPlaylist(s)
            #expect(await s.cli.invoke(["playlist", "delete", id, "--yes"]).status == 0)
            try await s.sandbox.clearRequests()
            let dry = await s.cli.invoke(["restore", file, "--dry-run", "--json"])
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = try #require(parse(dry.stdout) as? [String: Any], "\(dry.stdout)")
            try await s.sandbox.clearRequests()
            let restore = await s.cli.invoke(["restore", file, "--json"])
            #expect(restore.status == 0, "\(restore.stderr)")
            let sent = try await apiRequests(s).count
            let summary = try #require(parse(restore.stdout) as? [String: Any], "\(restore.stdout)")
            // Every request of the command, the syncs before and after included (it used to count
            // only those between them).
            #expect(summary["requests"] as? Int == sent, "\(summary)")
            #expect((summary["restore_requests"] as? Int ?? 0) >= 1 && (summary["restore_requests"] as? Int ?? 0) < sent, "\(summary)")
            // Said before the first write, about what was sent: within one request a playlist.
            let said = try #require(announced(restore.stderr, "Restore of the backup"), "\(restore.stderr)")
            #expect(abs(said - sent) <= 3, "said \(said), sent \(sent)")
            #expect(abs((plan["requests"] as? Int ?? 0) - sent) <= 3, "the dry run's \(plan["requests"] ?? "nil"), sent \(sent)")
            #expect(try await s.sandbox.followedPlaylistIDs().contains(id))
            #expect(try await s.sandbox.entries(of: id) == entries)
            let text = await s.cli.invoke(["restore", file])
            #expect(text.status == 0 && text.stderr.contains("request"), "\(text.stderr)")
        }
    }

    /// A playlist deleted in timbre (unfollowed: Spotify keeps it) and restored to an older version:
    /// followed again AND made equal to that version in one run (it used to need a second run).
    @Test func aDeletedPlaylistRestoredToAVersionGetsItsEntriesBackInTheSameRun() async throws {
        let versions = VersionsCLITests()
        let s = try await versions.setUp()
        try await withCleanup({ await s.cleanUp() }) {
            let (id, original, originalDated, changed) = try await versions.changedOwnPlaylist(s)
            let changedDated = try await s.sandbox.datedEntries(of: id)
            #expect(await s.cli.invoke(["playlist", "delete", id, "--yes"]).status == 0)
            #expect(try await !s.sandbox.followedPlaylistIDs().contains(id))

            try await s.sandbox.clearRequests()
            let dry = await s.cli.invoke(["playlist", "restore", id, "--to", "1", "--dry-run", "--json"])
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = try #require(versions.parse(dry.stdout) as? [String: Any], "\(dry.stdout)")
            #expect(plan["revived"] as? String == "followed" && plan["added"] as? Int == 1, "\(dry.stdout)")
            #expect(try await s.sandbox.writeRequests().isEmpty)

            try await s.sandbox.clearRequests()
            let restored = await s.cli.invoke(["playlist", "restore", id, "--to", "1", "--json"])
            #expect(restored.status == 0, "\(restored.stderr)")
            let sent = try await apiRequests(s).count
            let outcome = try #require(versions.parse(restored.stdout) as? [String: Any], "\(restored.stdout)")
            #expect(outcome["revived"] as? String == "followed", "\(restored.stdout)")
            #expect(outcome["requests"] as? Int == sent, "\(restored.stdout)")
            let said = try #require(announced(restored.stderr, "Restore “"), "\(restored.stderr)")
            #expect(abs(said - sent) <= 1, "said \(said), sent \(sent)")
            #expect(abs((plan["requests"] as? Int ?? 0) - sent) <= 1, "dry run \(plan["requests"] ?? "nil"), sent \(sent)")
            // On the sandbox, in this one run: followed, version 1's entries in its order, every
            // entry that stayed with its own date.
            #expect(try await s.sandbox.followedPlaylistIDs().contains(id))
            #expect(try await s.sandbox.entries(of: id) == original)
            let after = try await s.sandbox.datedEntries(of: id)
            let kept = Set(changed)
            for (old, new) in zip(originalDated, after) where kept.contains(String(old.split(separator: " ").first ?? "")) {
                #expect(old == new, "a kept entry's date changed: \(old) → \(new)")
            }
            // The cache is the sandbox's (the entry put back is dated by each side's clock: left out).
            let back = Set(original).subtracting(changed)
            func stayed(_ dated: [String]) -> [String] { dated.filter { !back.contains(String($0.split(separator: " ").first ?? "")) } }
            #expect(stayed(await cachedDated(s, id)) == stayed(after))
            #expect(await cachedEntries(s, id).map { $0["uri"] as? String ?? "" } == original)
            // Undo: the entries as Spotify held them; again: unfollowed.
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.datedEntries(of: id) == changedDated)
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await !s.sandbox.followedPlaylistIDs().contains(id))
        }
    }
}
