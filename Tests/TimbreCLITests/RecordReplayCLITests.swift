import Foundation
import Testing
import TimbreTestSupport

/// `TIMBRE_RECORD` and `TIMBRE_REPLAY` end to end: a sync recorded against the sandbox, then the
/// same sync replayed into another profile with the sandbox stopped — the same cache, the same
/// report, and a recording that holds no secret.
@Suite(.serialized, .tags(.integration), .integrationTier) struct RecordReplayCLITests {
    private func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    private func writeConfig(_ text: String, profile: String, in cli: TimbreCLI) throws {
        let config = cli.home.appendingPathComponent("config/timbre/profiles/\(profile)/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: config, atomically: true, encoding: .utf8)
    }

    /// Every cached playlist (without its sync time) and every playlist's items, as JSON text.
    private func cacheContents(_ cli: TimbreCLI, profile: String) async -> [String] {
        let listed = json(await cli.invoke(["playlists", "--json", "--profile", profile]).stdout) as? [[String: Any]] ?? []
        var contents: [String] = []
        for var playlist in listed {
            playlist["synced_at"] = nil
            contents.append(String(decoding: (try? JSONSerialization.data(withJSONObject: playlist, options: .sortedKeys)) ?? Data(), as: UTF8.self))
            let id = playlist["id"] as? String ?? ""
            contents.append(await cli.invoke(["tracks", id, "--json", "--profile", profile]).stdout)
        }
        return contents
    }

    private func canonical(_ value: Any?) -> String {
        guard let value else { return "nil" }
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }

    private func recordingText(_ dir: URL) throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).map {
            try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
    }

    @Test func aRecordedSyncReplaysToTheSameCacheWithTheSandboxGone() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        let tag = UUID().uuidString.prefix(8).lowercased()
        let recorded = "rec-\(tag)", replayed = "replay-\(tag)"
        let refreshToken = try await sandbox.mintRefreshToken()
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": refreshToken])
        let dir = cli.home.appendingPathComponent("recording")
        try await withCleanup({
            _ = await cli.invoke(["logout", "--profile", recorded])
            await sandbox.stop()
            cli.remove()
        }) {
            let config = sandbox.info.configTOML(top: "client_id = \"\(sandbox.info.clientID)\"\nredirect_port = 0")
            try writeConfig(config, profile: recorded, in: cli)
            try writeConfig(config, profile: replayed, in: cli)

            let first = await cli.invoke(["--profile", recorded, "sync", "--json"], environment: ["TIMBRE_RECORD": dir.path])
            #expect(first.status == 0, "\(first.stderr)")
            let firstReport = json(first.stdout) as? [String: Any] ?? [:]
            #expect(firstReport["status"] as? String == "ok")
            let requests = firstReport["requests"] as? Int ?? -1
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            #expect(files.count == requests, "one file per request sent: \(files)")
            #expect(files.first?.hasPrefix("0001-POST-api-token") == true, "\(files)")
            // The access token the recorded run used (kept in the keyring under its profile).
            let accessToken = await cli.invoke(["--profile", recorded, "auth", "token"]).stdout.trimmingCharacters(in: .newlines)
            #expect(accessToken.count > 20)
            let original = await cacheContents(cli, profile: recorded)
            #expect(original.count > 4)

            await sandbox.stop()
            #expect(!sandbox.isRunning)
            // No refresh token either: a replay signs in with the recording's redacted one.
            let replay = await cli.invoke(["--profile", replayed, "sync", "--json"], environment: ["TIMBRE_REPLAY": dir.path, "TIMBRE_REFRESH_TOKEN": ""])
            #expect(replay.status == 0, "\(replay.stderr)")
            let replayReport = json(replay.stdout) as? [String: Any] ?? [:]
            for key in ["status", "playlists", "liked", "items_written"] {
                #expect(
                    canonical(replayReport[key]) == canonical(firstReport[key]),
                    "\(key): \(canonical(replayReport[key])) replayed, \(canonical(firstReport[key])) recorded; \(files)")
            }
            // Answered at once, the replay learns sooner that `limit=100` is refused, so it may ask
            // for fewer pages at 100 than the recorded run had in flight — never more.
            let replayedRequests = replayReport["requests"] as? Int ?? -1
            #expect(replayedRequests > 0 && replayedRequests <= requests, "\(replayedRequests) of \(requests)")
            // Playlists are synced concurrently: the same warnings, perhaps in another order.
            #expect((replayReport["warnings"] as? [String])?.sorted() == (firstReport["warnings"] as? [String])?.sorted())
            // The replay worked on a throwaway copy of the profile's state, and said so: the
            // replayed profile's own cache was never written.
            #expect(replay.stderr.contains("works on a throwaway copy of the profile's cache and journal"), "\(replay.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("cache/timbre/profiles/\(replayed)/library.sqlite").path))
            #expect(await cacheContents(cli, profile: replayed).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == files, "a replay records nothing")

            // No secret in the recording: not the refresh token, not the access token, no bearer
            // header, nothing shaped like the sandbox's tokens and codes.
            let text = try recordingText(dir)
            for secret in [refreshToken, accessToken, "Bearer "] {
                #expect(!text.contains(secret), "the recording holds \(secret.prefix(12))…")
            }
            #expect(text.range(of: #"[AB]Q[A-Za-z0-9_-]{40,}"#, options: .regularExpression) == nil)
            #expect(text.contains(#"["Authorization","REDACTED"]"#))
            #expect(text.contains("refresh_token=REDACTED"))

            // A request the recording never saw: exit 1 with a sentence naming it and the folder.
            let missing = await cli.invoke(["--profile", replayed, "api", "me/following?type=artist"], environment: ["TIMBRE_REPLAY": dir.path])
            #expect(missing.status == 1, "\(missing.stderr)")
            #expect(missing.stderr.contains("the recording in \(dir.path) has no answer for GET /v1/me/following?type=artist"), "\(missing.stderr)")
            #expect(missing.stdout.isEmpty)
        }
    }

    /// Issue #31, item 3: a replayed edit lands in a throwaway copy of the profile's state, never
    /// in its journal or cache — so a later live `timbre undo` cannot turn it into a real write.
    @Test func aReplayedEditNeverReachesTheProfilesJournalOrCache() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        // A profile of its own: the keyring's access token of another test's profile would not do here.
        let profile = "edit-\(UUID().uuidString.prefix(8).lowercased())"
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken(), "TIMBRE_PROFILE": profile])
        let dir = cli.home.appendingPathComponent("recording")
        try await withCleanup({
            _ = await cli.invoke(["logout"])
            await sandbox.stop()
            cli.remove()
        }) {
            try cli.configure(for: sandbox)
            let live = await cli.invoke(["playlist", "create", "Recorded mix"], environment: ["TIMBRE_RECORD": dir.path])
            #expect(live.status == 0, "\(live.stderr)")
            let history = await cli.invoke(["history", "--json"])
            #expect((json(history.stdout) as? [Any])?.count == 1, "\(history.stdout)")
            let playlists = await cli.invoke(["playlists", "--json"]).stdout
            await sandbox.stop()

            let replayed = await cli.invoke(["playlist", "create", "Recorded mix"], environment: ["TIMBRE_REPLAY": dir.path])
            #expect(replayed.status == 0, "\(replayed.stderr) \((try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()) ?? [])")
            #expect(replayed.stderr.contains("throwaway copy"), "\(replayed.stderr)")
            #expect(await cli.invoke(["history", "--json"]).stdout == history.stdout, "the replayed edit reached the journal")
            #expect(await cli.invoke(["playlists", "--json"]).stdout == playlists, "the replayed edit reached the cache")
        }
    }
}
