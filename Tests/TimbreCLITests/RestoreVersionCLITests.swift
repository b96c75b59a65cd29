import Foundation
import Testing
import TimbreTestSupport

/// `timbre playlist restore REF --to V` against the sandbox (#36's done-when): a playlist changed
/// from outside is put back to an older version exactly, in order, with every entry that stayed
/// keeping its date added ON THE SANDBOX; `undo` takes the restore back; a playlist deleted
/// outside is created anew from its last version.
@Suite(.serialized, .tags(.integration), .integrationTier) struct RestoreVersionCLITests {
    let versions = VersionsCLITests()

    @Test func aVersionComesBackInOrderWithTheDatesOfWhatStayedAndUndoTakesItBack() async throws {
        let s = try await versions.setUp()
        try await withCleanup({ await s.cleanUp() }) {
            // Changed from outside: reordered, then its first entry removed; seen by a sync.
            let (id, original, originalDated, changed) = try await versions.changedOwnPlaylist(s)
            #expect(try await versions.log(s, id).count == 2)

            // A dry run sends nothing and says what it would do.
            try await s.sandbox.clearRequests()
            let dry = await s.cli.invoke(["playlist", "restore", id, "--to", "1", "--dry-run", "--json"])
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = try #require(versions.parse(dry.stdout) as? [String: Any], "\(dry.stdout)")
            #expect(plan["op"] as? String == "restore" && plan["added"] as? Int == 1, "\(dry.stdout)")
            #expect(try await s.sandbox.writeRequests().isEmpty)

            let restored = await s.cli.invoke(["playlist", "restore", id, "--to", "1"])
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(restored.stdout.contains("Restored"), "\(restored.stdout)")
            #expect(try await s.sandbox.entries(of: id) == original, "exactly version 1's entries, in its order")
            // Every entry that stayed keeps its date added; only the one put back is dated today.
            let after = try await s.sandbox.datedEntries(of: id)
            let kept = Set(changed)
            for (old, new) in zip(originalDated, after) where kept.contains(String(old.split(separator: " ").first ?? "")) {
                #expect(old == new, "a kept entry's date changed: \(old) → \(new)")
            }
            // The restore is one edit: its own version, and undo takes it back.
            #expect(try await versions.log(s, id).first?["source"] as? String == "edit")
            let undone = await s.cli.invoke(["undo"])
            #expect(undone.status == 0, "\(undone.stderr)")
            #expect(try await s.sandbox.entries(of: id) == changed)
        }
    }

    /// Issue #36's fidelity: a track held twice (two entries, two dates), the list reversed from
    /// outside, then restored: per position the same entry with its own date — the two copies do
    /// not trade places — and undo puts each copy back where the reversal had it.
    @Test func copiesOfOneTrackComeBackEachWithItsOwnDateAndUndoPutsThemBack() async throws {
        let s = try await versions.setUp()
        try await withCleanup({ await s.cleanUp() }) {
            await versions.sync(s)
            let (id, original) = try await versions.ownPlaylist(s)
            // A second copy of a track already in it: dated now, the first keeps its older date.
            let twice = original[1]
            let added = await s.cli.invoke(["playlist", "add", id, twice])
            #expect(added.status == 0, "\(added.stderr)")
            await versions.sync(s)
            let version = try #require(try await versions.log(s, id).first?["version"] as? Int)
            let versionDated = try await s.sandbox.datedEntries(of: id)
            let copies = versionDated.filter { $0.hasPrefix(twice + " @ ") }
            #expect(copies.count == 2 && Set(copies).count == 2, "two copies with different dates: \(copies)")
            // Reversed from outside, seen by a sync.
            try await s.sandbox.mutate(playlist: id, action: "reorder")
            await versions.sync(s)
            let reversedDated = try await s.sandbox.datedEntries(of: id)
            #expect(reversedDated == Array(versionDated.reversed()))

            let restored = await s.cli.invoke(["playlist", "restore", id, "--to", String(version), "--json"])
            #expect(restored.status == 0, "\(restored.stderr)")
            let outcome = try #require(versions.parse(restored.stdout) as? [String: Any], "\(restored.stdout)")
            #expect(outcome["added"] as? Int == 0 && outcome["removed"] as? Int == 0, "moves only: \(restored.stdout)")
            // Per position, on the sandbox: the entry version \(version) had there, with its own date.
            let after = try await s.sandbox.datedEntries(of: id)
            #expect(after == versionDated, "each copy at its own place with its own date")
            // Undo: each copy back where the reversal had it, dates and all.
            let undone = await s.cli.invoke(["undo"])
            #expect(undone.status == 0, "\(undone.stderr)")
            #expect(try await s.sandbox.datedEntries(of: id) == reversedDated)
        }
    }

    @Test func aPlaylistDeletedOutsideIsCreatedAnewFromItsLastVersion() async throws {
        let s = try await versions.setUp()
        try await withCleanup({ await s.cleanUp() }) {
            await versions.sync(s)
            let (id, original) = try await versions.ownPlaylist(s)
            let name = try await s.sandbox.playlistInfo(id).name
            try await s.sandbox.mutate(playlist: id, action: "delete")
            await versions.sync(s)
            let restored = await s.cli.invoke(["playlist", "restore", id, "--to", "1", "--json"])
            #expect(restored.status == 0, "\(restored.stderr)")
            let outcome = try #require(versions.parse(restored.stdout) as? [String: Any], "\(restored.stdout)")
            let created = try #require(outcome["playlist"] as? String)
            #expect(created != id && outcome["revived"] as? String == "created", "\(restored.stdout)")
            let info = try await s.sandbox.playlistInfo(created)
            #expect(info.name == name && info.items.compactMap(\.uri) == original)
            // Unknown versions are a usage error naming the ones there are.
            let unknown = await s.cli.invoke(["playlist", "restore", id, "--to", "9"])
            #expect(unknown.status == 2 && unknown.stderr.contains("9"), "\(unknown.stderr)")
        }
    }
}
