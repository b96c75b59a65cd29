import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// `timbre backup` and `timbre restore` through the real CLI: the medium library backed up from
/// one sandbox and restored into a second one started as an empty account (`--account empty`),
/// asserted on the second sandbox's state; a restore killed (SIGKILL) mid-way and run again; a
/// restore into the account it came from; hostile files.
@Suite(.serialized, .tags(.integration), .integrationTier) struct BackupCLITests {
    struct Side {
        let sandbox: SandboxProcess
        let cli: TimbreCLI
    }

    /// The source sandbox (medium library) and a second one whose signed-in user owns, follows and
    /// likes nothing, each with its own profile; `body` gets them and a folder for files.
    func withTwoAccounts(_ targetArguments: [String] = [], _ body: (Side, Side, URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await withCleanup({ try? FileManager.default.removeItem(at: folder) }) {
            try await withSide(.medium, []) { source in
                try await withSide(.medium, ["--account", "empty"] + targetArguments) { target in
                    try await body(source, target, folder)
                }
            }
        }
    }

    func withSide(_ size: LibrarySize, _ arguments: [String], _ body: (Side) async throws -> Void) async throws {
        let sandbox = try await SandboxProcess.start(library: size, extraArguments: ["--refresh-rotation", "same"] + arguments)
        try await withCleanup({ await sandbox.stop() }) {
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
            try await withCleanup({ cli.remove() }) {
                try cli.configure(for: sandbox, extra: TimbreCLI.killedEditsRequestTimeout)
                try await body(Side(sandbox: sandbox, cli: cli))
            }
        }
    }

    func parse(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    func read(_ file: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    /// A backup of the source with one local folder holding an owned and a followed playlist.
    func backUp(_ source: Side, to file: URL) async throws -> [String: Any] {
        #expect(await source.cli.invoke(["sync", "--quiet"]).status == 0)
        let model = try await source.sandbox.library(includeItems: false)
        let playlists = model["playlists"] as? [[String: Any]] ?? []
        let owned = playlists.first { $0["owner_id"] as? String == source.sandbox.info.userID }?["id"] as? String ?? ""
        let other = playlists.first { $0["owner_id"] as? String != source.sandbox.info.userID }?["id"] as? String ?? ""
        #expect(await source.cli.invoke(["folder", "create", "Mix"]).status == 0)
        #expect(await source.cli.invoke(["folder", "add", "Mix", owned, other]).status == 0)
        let backup = await source.cli.invoke(["backup", "-o", file.path])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stderr.contains("Backed up"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A second backup to the same file is refused without --force, and nothing changes.
        let again = await source.cli.invoke(["backup", "-o", file.path])
        #expect(again.status == 2 && again.stderr.contains("exists already"), "\(again.stderr)")
        // An empty file (what mktemp leaves) holds nothing to lose: it is replaced.
        let empty = file.deletingLastPathComponent().appendingPathComponent("empty.json")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        #expect(await source.cli.invoke(["backup", "-o", empty.path]).status == 0)
        #expect(try Data(contentsOf: empty).count > 1_000)
        return try read(file)
    }

    /// The target holds the backup: the followed playlists, then one new playlist per owned one
    /// with the same details and entries in order (restore creates the last first, so Spotify's
    /// list ends in the backup's order), the same likes in order, the folder mapped.
    func expectRestored(_ backup: [String: Any], in target: Side) async throws {
        let owned = backup["playlists"] as? [[String: Any]] ?? []
        let followed = (backup["followed"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
        let ids = try await target.sandbox.followedPlaylistIDs()
        #expect(ids.count == owned.count + followed.count, "\(ids.count) playlists, expected \(owned.count) + \(followed.count)")
        #expect(Array(ids.prefix(followed.count)) == followed)
        var mapping: [String: String] = [:]
        for (playlist, id) in zip(owned, ids.dropFirst(followed.count)) {
            let info = try await target.sandbox.playlistInfo(id)
            let name = playlist["name"] as? String ?? ""
            #expect(info.name == name)
            #expect(info.ownerID == target.sandbox.info.userID)
            #expect(info.isPublic == playlist["public"] as? Bool && info.collaborative == playlist["collaborative"] as? Bool, "\(name)")
            #expect((info.description ?? "") == (playlist["description"] as? String ?? ""), "\(name)")
            let uris = (playlist["entries"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }.filter { !$0.hasPrefix("spotify:local:") }
            #expect(info.items.map { $0.uri ?? "" } == uris, "\(name): the entries in order")
            mapping[playlist["id"] as? String ?? ""] = id
        }
        // Each song once (the generated library likes a few twice; Spotify likes a song once), in order.
        #expect(try await target.sandbox.likedURIs() == uniqueLikes(backup))
        let folders = parse(await target.cli.invoke(["folder", "list", "--json"]).stdout) as? [[String: Any]] ?? []
        let backedUp = (backup["folders"] as? [[String: Any]] ?? []).first?["playlists"] as? [String] ?? []
        let mix = folders.first { $0["name"] as? String == "Mix" }
        let inMix = (mix?["playlists"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
        #expect(inMix == backedUp.map { mapping[$0] ?? $0 }, "\(folders)")
    }

    func uniqueLikes(_ backup: [String: Any]) -> [String] {
        var seen = Set<String>()
        return (backup["liked"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }.filter { seen.insert($0).inserted }
    }

    @Test func aBackupRestoredIntoAnEmptyAccountGivesTheSameLibrary() async throws {
        try await withTwoAccounts { source, target, folder in
            let file = folder.appendingPathComponent("backup.json")
            let backup = try await backUp(source, to: file)
            #expect(backup["format"] as? String == "timbre-backup" && backup["version"] as? Int == 1)
            let owned = backup["playlists"] as? [[String: Any]] ?? []
            let liked = backup["liked"] as? [[String: Any]] ?? []
            #expect(!owned.isEmpty && liked.count == 800)

            // The dry run reads (the sync) and writes nothing.
            let dry = await target.cli.invoke(["restore", file.path, "--dry-run", "--json"])
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = parse(dry.stdout) as? [String: Any] ?? [:]
            #expect(plan["created"] as? Int == owned.count)
            #expect(plan["liked"] as? Int == uniqueLikes(backup).count)
            #expect((plan["requests"] as? Int ?? 0) > owned.count)
            #expect(try await target.sandbox.writeRequests().isEmpty)
            let text = await target.cli.invoke(["restore", file.path, "--dry-run"])
            #expect(text.stdout.contains("at Spotify's pace") && text.stdout.contains("create \(owned.count) playlists"), "\(text.stdout)")

            let restore = await target.cli.invoke(["restore", file.path, "--json"])
            #expect(restore.status == 0, "\(restore.stderr)")
            let summary = parse(restore.stdout) as? [String: Any] ?? [:]
            #expect(summary["created"] as? Int == owned.count)
            #expect(summary["liked"] as? Int == uniqueLikes(backup).count)
            #expect(summary["status"] as? String == "ok")
            try await expectRestored(backup, in: target)

            // Again: everything is there, nothing is written.
            try await target.sandbox.clearRequests()
            let second = parse(await target.cli.invoke(["restore", file.path, "--json"]).stdout) as? [String: Any] ?? [:]
            #expect(second["created"] as? Int == 0 && second["followed"] as? Int == 0 && second["liked"] as? Int == 0, "\(second)")
            #expect(try await target.sandbox.writeRequests().isEmpty)
        }
    }

    @Test func aRestoreIntoTheAccountItCameFromWritesNothing() async throws {
        try await withSide(.medium, []) { source in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-backup-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try await withCleanup({ try? FileManager.default.removeItem(at: folder) }) {
                let file = folder.appendingPathComponent("b.json")
                let backup = try await backUp(source, to: file)
                try await source.sandbox.clearRequests()
                let restore = await source.cli.invoke(["restore", file.path, "--json"])
                #expect(restore.status == 0, "\(restore.stderr)")
                let summary = parse(restore.stdout) as? [String: Any] ?? [:]
                let playlists = (backup["playlists"] as? [Any] ?? []).count, followed = (backup["followed"] as? [Any] ?? []).count
                #expect(summary["skipped_playlists"] as? Int == playlists)
                #expect(summary["skipped_liked"] as? Int == uniqueLikes(backup).count)
                #expect(summary["skipped"] as? Int == playlists + followed + uniqueLikes(backup).count)
                #expect(summary["created"] as? Int == 0 && summary["restore_requests"] as? Int == 0, "\(summary)")
                #expect(try await source.sandbox.writeRequests().isEmpty)
                // Every liked entry of the file is accounted for: liked already, or repeating a song
                // listed before it (800 = 757 + 43, not 757 and 43 unsaid).
                let liked = (backup["liked"] as? [Any] ?? []).count
                let repeated = liked - uniqueLikes(backup).count
                #expect(repeated > 0, "the medium library's Liked Songs repeat some songs")
                #expect(summary["repeated_liked"] as? Int == repeated, "\(summary)")
                let accounted = ["liked", "skipped_liked", "repeated_liked"].reduce(0) { $0 + (summary[$1] as? Int ?? 0) }
                #expect(accounted == liked, "\(summary)")
                let dry = await source.cli.invoke(["restore", file.path, "--dry-run"])
                #expect(dry.stdout.contains("\(repeated) liked entries repeat a song listed before"), "\(dry.stdout)")

                // A playlist deleted since the backup comes back as itself (followed again: its id,
                // entries and dates), not as a copy.
                let id = ((backup["playlists"] as? [[String: Any]])?.first?["id"] as? String) ?? ""
                #expect(await source.cli.invoke(["playlist", "delete", id, "--yes"]).status == 0)
                let entries = try await source.sandbox.playlistInfo(id).items
                try await source.sandbox.clearRequests()
                let back = await source.cli.invoke(["restore", file.path, "--json"])
                #expect(back.status == 0, "\(back.stderr)")
                #expect((parse(back.stdout) as? [String: Any])?["followed"] as? Int == 1, "\(back.stdout)")
                let writes = try await source.sandbox.writeRequests()
                #expect(writes.map(\.path) == ["/v1/me/library"], "\(writes.map(\.path))")
                #expect(try await source.sandbox.followedPlaylistIDs().contains(id))
                #expect(try await source.sandbox.playlistInfo(id).items == entries)
            }
        }
    }

    @Test func aRestoreKilledAnywhereAndRunAgainCreatesNothingTwice() async throws {
        try await withTwoAccounts { source, target, folder in
            let file = folder.appendingPathComponent("backup.json")
            let backup = try await backUp(source, to: file)
            // Every write answered 15 ms late, so the kills land in the middle; the first create's
            // answer is lost after it was applied (the restore must find it, not make another).
            var slow = Fault(kind: .latency, pathContains: "/v1/", count: 1_000_000, ms: 15)
            slow.method = "POST"
            try await target.sandbox.addFaults([slow, Fault(kind: .applyThenReset, method: "POST", pathContains: "/v1/me/playlists", count: 1)])
            let dry = parse(await target.cli.invoke(["restore", file.path, "--dry-run", "--json"]).stdout) as? [String: Any] ?? [:]
            let writes = dry["restore_requests"] as? Int ?? 0
            try #require(writes > 20)
            var generator = SystemRandomNumberGenerator()
            // Three kills whose writes add up to less than the restore needs, so each lands mid-way.
            for k in [3, Int.random(in: 1..<(writes / 3), using: &generator), Int.random(in: 1..<(writes / 3), using: &generator)] {
                try await runKilled(target, afterWrites: k, ["restore", file.path])
            }
            // The kills left the restore part-way: some playlists made, and the last run had work left.
            #expect(try await target.sandbox.followedPlaylistIDs().count > 0)
            let last = await target.cli.invoke(["restore", file.path, "--json"])
            #expect(last.status == 0, "\(last.stderr)")
            let summary = parse(last.stdout) as? [String: Any] ?? [:]
            let left = ["created", "resumed", "followed", "liked"].reduce(0) { $0 + (summary[$1] as? Int ?? 0) }
            #expect(left > 0, "the kills interrupted nothing: \(summary)")
            try await expectRestored(backup, in: target)
            // No playlist twice: the account owns exactly one per backed-up playlist.
            let model = try await target.sandbox.library(includeItems: false)
            let mine = (model["playlists"] as? [[String: Any]] ?? []).filter { $0["owner_id"] as? String == target.sandbox.info.userID }
            #expect(mine.count == (backup["playlists"] as? [Any])?.count)
            let creates = try await target.sandbox.writeRequests().filter { $0.method == "POST" && $0.path == "/v1/me/playlists" }
            #expect(creates.count == mine.count, "\(creates.count) creates for \(mine.count) playlists")
        }
    }

    @Test func hostileFilesAreRefusedOrInert() async throws {
        try await withSide(.small, ["--account", "empty"]) { target in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-backup-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try await withCleanup({ try? FileManager.default.removeItem(at: folder) }) {
                let hostile = "Evil \u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{9B}31m name"
                let good: [String: Any] = [
                    "format": "timbre-backup", "version": 1, "created_at": "2026-11-26T00:00:00Z", "account": ["id": "x", "name": hostile],
                    "playlists": [
                        [
                            "id": "0123456789abcdefABCDEF", "name": hostile, "description": hostile, "public": false, "collaborative": false,
                            "entries": [],
                        ]
                    ],
                    "followed": [], "folders": [], "liked": [],
                ]
                var huge = good
                huge["playlists"] = [(good["playlists"] as? [[String: Any]] ?? [])[0].merging(["name": String(repeating: "A", count: 200_000)]) { $1 }]
                var newer = good
                newer["version"] = 7
                let files: [(String, Data, String)] = [
                    ("broken", Data("{\"format\": \"timbre-backup\", \"version\": 1, \"playlists\": [".utf8), "not valid JSON"),
                    ("huge", try JSONSerialization.data(withJSONObject: huge), "longer than 100,000 characters"),
                    ("newer", try JSONSerialization.data(withJSONObject: newer), "newer timbre"),
                    ("csv", Data("Track URI,Track Name\n".utf8), "not valid JSON"),
                ]
                try await target.sandbox.clearRequests()
                for (name, data, words) in files {
                    let path = folder.appendingPathComponent(name).path
                    try data.write(to: URL(fileURLWithPath: path))
                    let result = await target.cli.invoke(["restore", path])
                    #expect(result.status == 2, "\(name): \(result.stderr)")
                    #expect(result.stderr.contains(words), "\(name): \(result.stderr)")
                }
                #expect(try await target.sandbox.requests().isEmpty, "a refused file sends nothing")

                // Escape sequences are data: sent as the name, never to the terminal.
                let path = folder.appendingPathComponent("good.json").path
                try JSONSerialization.data(withJSONObject: good).write(to: URL(fileURLWithPath: path))
                for arguments in [["restore", path, "--dry-run"], ["restore", path]] {
                    let result = await target.cli.invoke(arguments)
                    #expect(result.status == 0, "\(result.stderr)")
                    #expect(!(result.stdout + result.stderr).contains("\u{1B}") && !(result.stdout + result.stderr).contains("\u{9B}"))
                }
                let ids = try await target.sandbox.followedPlaylistIDs()
                #expect(ids.count == 1)
                #expect(try await target.sandbox.playlistInfo(ids.first ?? "").name == hostile)

                // A followed playlist Spotify no longer has: the rest is restored, it is named, exit 3.
                var gone = good
                gone["playlists"] = []
                gone["followed"] = [["id": "ZZZZZZZZZZZZZZZZZZZZZZ", "name": "Gone", "owner": "someone"]]
                let gonePath = folder.appendingPathComponent("gone.json").path
                try JSONSerialization.data(withJSONObject: gone).write(to: URL(fileURLWithPath: gonePath))
                let partial = await target.cli.invoke(["restore", gonePath, "--json"])
                #expect(partial.status == 3, "\(partial.stderr)")
                let summary = parse(partial.stdout) as? [String: Any] ?? [:]
                #expect(summary["status"] as? String == "partial")
                let notDone = summary["not_done"] as? [[String: Any]] ?? []
                #expect(notDone.map { $0["id"] as? String } == ["ZZZZZZZZZZZZZZZZZZZZZZ"] && notDone.first?["what"] as? String == "follow", "\(summary)")
                let text = await target.cli.invoke(["restore", gonePath])
                #expect(text.status == 3 && text.stderr.contains("not restored: follow ZZZZZZZZZZZZZZZZZZZZZZ"), "\(text.stderr)")
            }
        }
    }

    /// Runs the real binary and SIGKILLs it once the sandbox has seen `k` more writes (or when it
    /// ends first).
    func runKilled(_ side: Side, afterWrites k: Int, _ arguments: [String]) async throws {
        try await runTimbreKilled(afterWrites: k, on: side.sandbox, environment: side.cli.environment, arguments)
    }
}
