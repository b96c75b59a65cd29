import Foundation
import Testing
import TimbreTestSupport

/// `timbre sync`, `playlists` and `tracks` against the sandbox, signed in with
/// `TIMBRE_REFRESH_TOKEN` only (no keyring needed), configured only through config.toml. Most run
/// in-process (`invoke`); the real binary where only a process shows it (killed mid-sync, a reader
/// that leaves early, a sync process beside readers).
@Suite(.serialized, .tags(.integration), .integrationTier) struct SyncCLITests {
    struct Setup {
        let sandbox: SandboxProcess
        let cli: TimbreCLI
        func cleanUp() async {
            await sandbox.stop()
            cli.remove()
        }
    }

    func setUp(_ size: String = "medium", _ arguments: [String] = []) async throws -> Setup {
        let sandbox = try await SandboxProcess.start(
            library: size == "small" ? .small : .medium,
            extraArguments: ["--refresh-rotation", "same"] + arguments)
        do {
            let token = try await sandbox.mintRefreshToken()
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": token])
            try cli.configure(for: sandbox, extra: TimbreCLI.killedEditsRequestTimeout)
            return Setup(sandbox: sandbox, cli: cli)
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    func parse(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// The canonical items a client must store: nulls and malformed ids left out.
    private func expectedItems(_ items: [[String: Any]]) -> [[String: Any]] {
        items.filter { !["null", "malformed"].contains($0["kind"] as? String ?? "") }
    }

    private func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (is NSNull, nil), (nil, is NSNull), (is NSNull, is NSNull): return true
        case (let x as NSObject, let y as NSObject): return x.isEqual(y)
        default: return false
        }
    }

    private func compareItems(_ got: [[String: Any]], _ want: [[String: Any]], _ label: String) {
        #expect(got.count == want.count, "\(label): \(got.count) items, expected \(want.count)")
        for (g, w) in zip(got, want) {
            // timbre counts positions from 1; the sandbox, like Spotify, from 0.
            if !same(g["position"], (w["position"] as? Int).map { $0 + 1 }) {
                Issue.record("\(label) position \(w["position"] ?? "?"): position = \(String(describing: g["position"])), expected one more")
                return
            }
            for key in ["kind", "id", "uri", "name", "artists", "album", "duration_ms", "added_at"] where !same(g[key], w[key]) {
                Issue.record("\(label) position \(w["position"] ?? "?"): \(key) = \(String(describing: g[key])), expected \(String(describing: w[key]))")
                return
            }
        }
    }

    /// What `playlists --json` and `tracks --json` print equals the sandbox's model: every
    /// playlist's details, every readable playlist's entries, Liked Songs.
    func expectCacheEqualsSandbox(_ s: Setup) async throws {
        let model = try await s.sandbox.library()
        let sandboxPlaylists = model["playlists"] as? [[String: Any]] ?? []
        let cached = parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect(cached.first?["id"] as? String == "liked")
        #expect(cached.first?["name"] as? String == "Liked Songs")
        #expect(cached.dropFirst().map { $0["id"] as? String ?? "" } == sandboxPlaylists.map { $0["id"] as? String ?? "" })
        for (got, want) in zip(cached.dropFirst(), sandboxPlaylists) {
            for key in ["name", "owner_id", "owner_name", "snapshot_id", "track_count", "collaborative", "public"] where !same(got[key], want[key]) {
                Issue.record("playlist \(want["id"] ?? ""): \(key) = \(String(describing: got[key])), expected \(String(describing: want[key]))")
            }
        }
        for playlist in sandboxPlaylists where playlist["readable_in_development_mode"] as? Bool == true {
            let id = playlist["id"] as? String ?? ""
            let tracks = await s.cli.invoke(["tracks", id, "--json"])
            #expect(tracks.status == 0, "\(tracks.stderr)")
            compareItems(parse(tracks.stdout) as? [[String: Any]] ?? [], expectedItems(playlist["items"] as? [[String: Any]] ?? []), id)
        }
        let liked = parse(await s.cli.invoke(["tracks", "liked", "--json"]).stdout) as? [[String: Any]] ?? []
        compareItems(liked, expectedItems(model["liked"] as? [[String: Any]] ?? []), "liked")
    }

    @Test func fullSyncReproducesTheSandboxLibraryExactly() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            let sync = await s.cli.invoke(["sync", "--json"])
            #expect(sync.status == 0, "\(sync.stderr)")
            let report = parse(sync.stdout) as? [String: Any] ?? [:]
            #expect(report["status"] as? String == "ok")

            try await expectCacheEqualsSandbox(s)
        }
    }

    @Test func noChangeResyncIsCheapAndAMutationRefetchesOnlyThatPlaylist() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            try await s.sandbox.clearRequests()
            let again = parse(await s.cli.invoke(["sync", "--json"]).stdout) as? [String: Any] ?? [:]
            let playlists = again["playlists"] as? [String: Any] ?? [:]
            #expect(playlists["updated"] as? Int == 0)
            let requests = try await s.sandbox.requests()
            // ceil(60/50) + 2, counting the token refresh this process needs (TIMBRE_REFRESH_TOKEN).
            #expect(requests.count <= 4, "no-change resync sent \(requests.count) requests: \(requests.map(\.path))")
            #expect(requests.allSatisfy { !$0.path.hasSuffix("/items") && !$0.path.hasSuffix("/tracks") || $0.path == "/v1/me/tracks" })

            let model = try await s.sandbox.library(includeItems: false)
            let target = ((model["playlists"] as? [[String: Any]])?.first { $0["readable_in_development_mode"] as? Bool == true }?["id"] as? String) ?? ""
            _ = try await s.sandbox.mutate(playlist: target, action: "append")
            try await s.sandbox.clearRequests()
            let third = parse(await s.cli.invoke(["sync", "--json"]).stdout) as? [String: Any] ?? [:]
            #expect((third["playlists"] as? [String: Any])?["updated"] as? Int == 1)
            let itemPaths = Set(try await s.sandbox.requests().map(\.path).filter { $0.hasPrefix("/v1/playlists/") })
            #expect(itemPaths == ["/v1/playlists/\(target)/items"], "\(itemPaths)")
        }
    }

    @Test func badReferencesExitTwoBeforeAnyRequest() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            try await s.sandbox.clearRequests()
            for ref in ["nope", "spotify:track:4uLU6hMCjMI75M1A2tKUQC", "'); DROP TABLE playlists;--", "37i9dQZF1DXcBWIGoYBM5"] {
                let result = await s.cli.invoke(["sync", "--playlist", ref])
                #expect(result.status == 2, "\(ref): \(result.stderr)")
                #expect(result.stderr.contains("not a playlist reference"))
                #expect(await s.cli.invoke(["tracks", ref]).status == 2)
            }
            #expect(try await s.sandbox.requests().isEmpty)
        }
    }

    @Test func wrongPinExitsFiveAndChangesNothing() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let before = await s.cli.invoke(["playlists", "--json"]).stdout
            try s.cli.configure(for: s.sandbox, pin: "sha256/" + Data(repeating: 9, count: 32).base64EncodedString())
            try await s.sandbox.clearRequests()
            let sync = await s.cli.invoke(["sync", "--force"])
            #expect(sync.status == 5, "\(sync.stderr)")
            #expect(sync.stderr.contains("127.0.0.1"))
            #expect(try await s.sandbox.requests().isEmpty, "no HTTP request may reach the server")
            try s.cli.configure(for: s.sandbox)
            #expect(await s.cli.invoke(["playlists", "--json"]).stdout == before)
        }
    }

    @Test func aReaderThatLeavesEarlyIsNoCrash() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let binary = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            // `true` has exited before timbre writes: every write meets a closed pipe (EPIPE, or
            // SIGPIPE where it is not ignored). Exit 0 or 141 either way; never a crash report.
            for arguments in ["sync --json", "tracks liked --json", "playlists"] {
                let result = try await s.cli.run(
                    ["-c", "\"$0\" \(arguments) | true; echo \"status=${PIPESTATUS[0]}\"", binary],
                    executable: "/bin/bash")
                #expect(result.stdout.contains("status=0") || result.stdout.contains("status=141"), "\(arguments): \(result.stdout) \(result.stderr)")
                #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"), "\(arguments)")
            }
        }
    }

    @Test func csvAndTextOutput() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let csv = await s.cli.invoke(["tracks", "liked", "--csv"])
            #expect(csv.status == 0)
            #expect(csv.stdout.hasPrefix("position,name,artists,album,duration_ms,added_at,uri\r\n"))
            let text = await s.cli.invoke(["playlists"])
            #expect(text.status == 0)
            #expect(!text.stdout.contains("\u{1B}"), "hostile names must not reach the terminal raw")
            #expect(await s.cli.invoke(["tracks", "liked", "--csv", "--json"]).status == 2)
        }
    }

    @Test func killedSyncsNeverLeaveAHalfWrittenPlaylist() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            // snapshot id → the complete item list Spotify had for it.
            var complete: [String: [[String: Any]]] = [:]
            func remember() async throws {
                for playlist in try await s.sandbox.library()["playlists"] as? [[String: Any]] ?? [] {
                    if let snapshot = playlist["snapshot_id"] as? String { complete[snapshot] = expectedItems(playlist["items"] as? [[String: Any]] ?? []) }
                }
            }
            try await remember()
            var generator = SystemRandomNumberGenerator()
            for round in 0..<20 {
                if round % 4 == 1 {
                    // Change a few playlists so "old" and "new" differ.
                    let ids = (try await s.sandbox.library(includeItems: false)["playlists"] as? [[String: Any]] ?? [])
                        .filter { $0["readable_in_development_mode"] as? Bool == true }.compactMap { $0["id"] as? String }
                    for id in ids.shuffled().prefix(3) { _ = try await s.sandbox.mutate(playlist: id, action: round % 8 == 1 ? "append" : "remove_first") }
                    try await remember()
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: bin)
                process.arguments = ["sync", "--force", "--quiet"]
                process.environment = s.cli.environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                try await Task.sleep(for: .milliseconds(Int.random(in: 30...900, using: &generator)))
                kill(process.processIdentifier, SIGKILL)
                while !process.hasEnded { try await Task.sleep(for: .milliseconds(10)) }

                // The file passes SQLite's own check (python3's sqlite3: an independent reader) …
                let check = Process()
                check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                check.arguments = [
                    "python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1], timeout=10).execute('PRAGMA integrity_check').fetchone()[0])",
                    s.cli.home.appendingPathComponent("cache/timbre/library.sqlite").path,
                ]
                let pipe = Pipe()
                check.standardOutput = pipe
                try check.run()
                let verdict = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                while !check.hasEnded { try await Task.sleep(for: .milliseconds(10)) }
                guard FileManager.default.fileExists(atPath: s.cli.home.appendingPathComponent("cache/timbre/library.sqlite").path) else { continue }
                #expect(verdict.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "round \(round): \(verdict)")
                // … and every cached playlist is exactly the complete list of the snapshot it records.
                let cached = parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []
                for playlist in cached where playlist["id"] as? String != "liked" {
                    guard let snapshot = playlist["snapshot_id"] as? String, let want = complete[snapshot], !want.isEmpty else { continue }
                    let got = parse(await s.cli.invoke(["tracks", playlist["id"] as? String ?? "", "--json"]).stdout) as? [[String: Any]] ?? []
                    if got.isEmpty { continue }  // listed before its items were ever stored
                    #expect(got.count == want.count, "round \(round) playlist \(playlist["id"] ?? ""): \(got.count) items for a snapshot of \(want.count)")
                }
            }
            // A final uninterrupted sync completes and matches.
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
        }
    }

    @Test func readersDuringASyncNeverFail() async throws {
        let s = try await setUp("medium", ["--latency-ms", "5"])
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: bin)
            writer.arguments = ["sync", "--force", "--quiet"]
            writer.environment = s.cli.environment
            try writer.run()
            var reads = 0
            while !writer.hasEnded {
                let result = await s.cli.invoke(["playlists", "--json"])
                #expect(result.status == 0, "reader failed during sync: \(result.stderr)")
                #expect(result.stderr.isEmpty)
                reads += 1
            }
            #expect(writer.endedStatus == 0)
            #expect(reads > 0)
        }
    }
}
