import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// A write that fails in front of the user is settled in front of the user (the playlist read at
/// once: applied or not, said so, the journal done or failed), and an unrelated command later
/// never sends it; a write a killed process had in flight is waited out before the next command
/// reconciles, so it is never applied twice.
extension SyncCLITests {
    /// The writes the sandbox saw to playlist `id`.
    func writes(_ s: Setup, to id: String) async throws -> [SandboxRequestRecord] {
        try await s.sandbox.writeRequests().filter { $0.path.contains(id) }
    }

    func newestEdit(_ s: Setup) async -> [String: Any] {
        (parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []).first ?? [:]
    }

    /// A fault on the next `count` requests of `method` to playlist `id`'s items.
    func itemsFault(_ kind: Fault.Kind, _ method: String, _ id: String, status: Int? = nil, count: Int = 1, ms: Int? = nil) -> Fault {
        var fault = Fault(kind: kind, pathContains: "/v1/playlists/\(id)/items", count: count, status: status, ms: ms)
        fault.method = method
        return fault
    }

    @Test func aMoveAnswered503AfterApplyingIsReportedAppliedAndDone() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            var moved = original
            moved.insert(moved.remove(at: 0), at: 1)
            try await s.sandbox.addFaults([itemsFault(.applyThenStatus, "PUT", id, status: 503)])
            try await s.sandbox.clearRequests()
            let move = await s.cli.invoke(["playlist", "move", id, "--position", "1", "--to", "2"])
            #expect(move.status == 0, "\(move.stderr)")
            #expect(move.stderr.contains("but Spotify applied it"), "\(move.stderr)")
            #expect(try await s.sandbox.entries(of: id) == moved)
            #expect(try await writes(s, to: id).count == 1, "applied once, never resent")
            #expect(await newestEdit(s)["state"] as? String == "done")

            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["playlist", "create", "Unrelated"]).status == 0)
            #expect(try await writes(s, to: id).isEmpty, "nothing is sent to the moved playlist")
            #expect(try await s.sandbox.entries(of: id) == moved)
        }
    }

    @Test func aMoveAnswered503WithoutApplyingEndsFailedAndIsNeverSentLater() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // Every attempt (the first and three after a read each) answered 503, none applied.
            try await s.sandbox.addFaults([itemsFault(.status, "PUT", id, status: 503, count: 4)])
            try await s.sandbox.clearRequests()
            let move = await s.cli.invoke(["playlist", "move", id, "--position", "1", "--to", "2"])
            #expect(move.status == 1, "\(move.stderr)")
            #expect(move.stderr.contains("the move did not reach Spotify (HTTP 503) — nothing changed"), "\(move.stderr)")
            #expect(try await s.sandbox.entries(of: id) == original)
            let edit = await newestEdit(s)
            #expect(edit["state"] as? String == "failed", "\(edit)")

            try await s.sandbox.clearFaults()
            try await s.sandbox.clearRequests()
            let other = await s.cli.invoke(["playlist", "create", "Unrelated"])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(try await writes(s, to: id).isEmpty, "the move the user saw fail is never sent")
            #expect(try await s.sandbox.entries(of: id) == original)
        }
    }

    @Test func aFailedMoveWhosePlaylistCannotBeReadIsCheckedNotPushedLater() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // The move answered 503 (not applied) 3 s late; once the sandbox has it, every read of
            // the playlist is refused for an hour.
            try await s.sandbox.addFaults([itemsFault(.status, "PUT", id, status: 503), itemsFault(.latency, "PUT", id, ms: 3_000)])
            try await s.sandbox.clearRequests()
            async let moving = s.cli.invoke(["playlist", "move", id, "--position", "1", "--to", "2"])
            while try await writes(s, to: id).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            var unreadable = Fault(kind: .status, pathContains: "/v1/playlists/\(id)", count: 50, status: 429, retryAfter: 3_600)
            unreadable.method = "GET"
            try await s.sandbox.addFaults([unreadable])
            let move = await moving
            #expect(move.status != 0, "\(move.stderr)")
            #expect(move.stderr.contains("could not be read to check whether it was applied"), "\(move.stderr)")
            let told = await newestEdit(s)
            #expect(told["state"] as? String == "interrupted", "\(told)")
            let listed = await s.cli.invoke(["history"])
            #expect(listed.stdout.contains("never resends it"), "\(listed.stdout)")

            try await s.sandbox.clearFaults()
            try await s.sandbox.clearRequests()
            // The hour's wait is kept for the profile (issue #42): forgotten here, as a user who knows better would.
            #expect(await s.cli.invoke(["quota", "--reset"]).status == 0)
            let other = await s.cli.invoke(["playlist", "create", "Unrelated"])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(other.stderr.contains("did not reach Spotify, as you were told"), "\(other.stderr)")
            #expect(try await writes(s, to: id).isEmpty, "checked, never pushed")
            #expect(try await s.sandbox.entries(of: id) == original)
            let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(history.first { $0["id"] as? Int == told["id"] as? Int }?["state"] as? String == "failed")
        }
    }

    /// A new playlist of the user's holding `uris`.
    func playlist(_ s: Setup, _ name: String, _ uris: [String]) async throws -> String {
        let created = await s.cli.invoke(["playlist", "create", name])
        let id = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created.status == 0 && id.count == 22, "\(created.stderr)")
        let added = await s.cli.invoke(["playlist", "add", id, "-"], stdin: uris.joined(separator: "\n"))
        #expect(added.status == 0, "\(added.stderr.prefix(500))")
        return id
    }

    /// `count` distinct track URIs from the sandbox's playlists.
    func distinctTracks(_ s: Setup, _ count: Int) async throws -> [String] {
        var seen = Set<String>(), tracks: [String] = []
        for playlist in try await s.sandbox.library(includeItems: false)["playlists"] as? [[String: Any]] ?? [] {
            guard let id = playlist["id"] as? String else { continue }
            // Well-formed ids only (the library holds malformed ones on purpose).
            for uri in try await s.sandbox.entries(of: id)
            where uri.hasPrefix("spotify:track:") && uri.dropFirst(14).count == 22
                && uri.dropFirst(14).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
                && seen.insert(uri).inserted
            {
                tracks.append(uri)
            }
            if tracks.count >= count { break }
        }
        return Array(tracks.prefix(count))
    }

    /// Runs `arguments` and SIGKILLs the process while the sandbox holds one of its writes (the
    /// `hold` fault taken: the request arrived and is not applied yet).
    func killWhileHeld(_ s: Setup, _ hold: Fault, _ arguments: [String]) async throws {
        try await s.sandbox.addFaults([hold])
        let process = Process()
        process.executableURL = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre")
        process.arguments = arguments
        process.environment = s.cli.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        while !process.hasEnded, try await !s.sandbox.pendingFaults().isEmpty {
            try await Task.sleep(for: .milliseconds(5))
        }
        let held = try await s.sandbox.pendingFaults().isEmpty
        kill(process.processIdentifier, SIGKILL)
        while !process.hasEnded { try await Task.sleep(for: .milliseconds(10)) }
        #expect(held, "the write was held when the process was killed")
    }

    /// The case: a rewrite of 600 entries killed while one of its POSTs is held by the
    /// server (applied only 2 s later), then `timbre sync` at once: it waits that write out, so
    /// the list ends exactly sorted, 600 of 600, none twice.
    @Test(arguments: [600]) func aRewriteKilledWithAPostInFlightIsWaitedOutNotSentTwice(entries: Int) async throws {
        let s = try await setUp("medium")
        try await withCleanup({ await s.cleanUp() }) {
            try s.cli.configure(for: s.sandbox, extra: "request_timeout = 4")
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let tracks = try await distinctTracks(s, entries)
            #expect(tracks.count == entries)
            let target = try await playlist(s, "Held rewrite", tracks)
            let reference = try await playlist(s, "Reference", tracks)
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            #expect(await s.cli.invoke(["playlist", "sort", reference, "--by", "title", "--rewrite"]).status == 0)
            let intended = try await s.sandbox.entries(of: reference)
            #expect(intended != tracks && intended.sorted() == tracks.sorted())

            try await s.sandbox.clearRequests()
            // The rewrite: a PUT of the first 100, then POSTs of 100; the first POST held 2 s.
            try await killWhileHeld(s, itemsFault(.hold, "POST", target, ms: 2_000), ["playlist", "sort", target, "--by", "title", "--rewrite"])
            let sync = await s.cli.invoke(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stderr.contains("for a write the stopped process may still have in flight"), "\(sync.stderr)")
            #expect(sync.stderr.contains("finished edit"), "\(sync.stderr)")
            let after = try await s.sandbox.entries(of: target)
            #expect(after.count == entries, "\(after.count) of \(entries) entries")
            #expect(Set(after).count == after.count, "\(after.count - Set(after).count) entries twice")
            #expect(after == intended, "exactly the sorted list")
            let posts = try await writes(s, to: target).filter { $0.method == "POST" }
            #expect(posts.count == (entries - 100 + 99) / 100, "each POST once: \(posts.count)")
            print("held-POST kill: \(tracks.count) entries before, \(after.count) after, \(after.count - Set(after).count) twice")
        }
    }

    /// A move (one PUT) held by the server 2 s when its process is killed; an unrelated command at
    /// once: the move is applied once, every entry keeps its added date.
    @Test func aMoveKilledInFlightIsWaitedOutAndAppliedOnce() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            try s.cli.configure(for: s.sandbox, extra: "request_timeout = 4")
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            var moved = original
            moved.insert(moved.remove(at: 0), at: 3)
            let dated = Set(try await s.sandbox.datedEntries(of: id))

            try await s.sandbox.clearRequests()
            try await killWhileHeld(s, itemsFault(.hold, "PUT", id, ms: 2_000), ["playlist", "move", id, "--position", "1", "--to", "4"])
            let other = await s.cli.invoke(["playlist", "create", "Unrelated"])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(other.stderr.contains("for a write the stopped process may still have in flight"), "\(other.stderr)")
            #expect(try await s.sandbox.entries(of: id) == moved, "moved once")
            #expect(Set(try await s.sandbox.datedEntries(of: id)) == dated, "every date kept")
            #expect(try await writes(s, to: id).count == 1, "the held move only")
            let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(history.first { $0["op"] as? String == "move" }?["state"] as? String == "done")
        }
    }
}
