import Foundation
import Testing
import TimbreAuth
import TimbreCore
import TimbreTestSupport

/// Two profiles against one sandbox, with a scripted browser and the real keyring: signing in,
/// syncing and editing in one leaves every file and secret of the other as it was, and logging
/// out of one removes only its secrets.
@Suite(.serialized, .tags(.integration), .integrationTier) struct ProfileCLITests {
    static let browser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/browser.sh").path

    /// Every file of a profile's folders, by path, with its bytes.
    private func files(of profile: String, in cli: TimbreCLI) -> [String: Data] {
        var found: [String: Data] = [:]
        for place in ["config", "cache", "state", "data"] {
            let root = cli.home.appendingPathComponent("\(place)/timbre/profiles/\(profile)")
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where !url.hasDirectoryPath {
                if let data = FileManager.default.contents(atPath: url.path) { found[url.path] = data }
            }
        }
        return found
    }

    private func secret(_ kind: SecretKind, _ profile: String) async throws -> String? {
        try await LibSecretStore(timeout: 20).read(kind, profile: profile)?.withString { $0 }
    }

    private func names(_ result: CLIResult) -> [String] {
        ((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test func oneProfilesLoginSyncAndEditsLeaveAnotherUntouched() async throws {
        let sandbox = try await SandboxProcess.start(library: .small)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString).log").path
        let cli = try TimbreCLI(extraEnvironment: [
            "BROWSER": Self.browser, "BROWSER_CA": sandbox.info.caFile, "BROWSER_OWNER_HEADER": sandbox.secretHeaderFile, "BROWSER_LOG": log,
            "TIMBRE_LOGIN_TIMEOUT": "20",
        ])
        // Unique names: the keyring is shared by every test of the run.
        let tag = UUID().uuidString.prefix(8).lowercased()
        let a = "a-\(tag)", b = "b-\(tag)"
        try await withCleanup({
            for profile in [a, b] { _ = await cli.invoke(["logout", "--profile", profile]) }
            await sandbox.stop()
            cli.remove()
            try? FileManager.default.removeItem(atPath: log)
        }) {
            for profile in [a, b] {
                let config = cli.home.appendingPathComponent("config/timbre/profiles/\(profile)/config.toml")
                try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
                try sandbox.info.configTOML(top: "client_id = \"\(sandbox.info.clientID)\"\nredirect_port = 0")
                    .write(to: config, atomically: true, encoding: .utf8)
            }

            // Profile B: signed in, synced, one local folder — then left alone.
            let loginB = try await cli.run(["login", "--profile", b])
            #expect(loginB.status == 0, "\(loginB.stderr)")
            #expect(await cli.invoke(["sync", "--quiet", "--profile", b]).status == 0)
            #expect(await cli.invoke(["folder", "create", "B folder", "--profile", b]).status == 0)
            let playlistsB = await cli.invoke(["playlists", "--json", "--profile", b]).stdout
            // Taken after B's last command: closing its cache settles the SQLite files.
            let filesB = files(of: b, in: cli)
            #expect(filesB.keys.contains { $0.hasSuffix("cache/timbre/profiles/\(b)/library.sqlite") })
            #expect(filesB.keys.contains { $0.hasSuffix("data/timbre/profiles/\(b)/timbre.sqlite") })
            #expect(filesB.keys.contains { $0.hasSuffix("state/timbre/profiles/\(b)/timbre.log") })
            let refreshB = try await secret(.refreshToken, b)
            let sessionB = try await secret(.session, b)
            #expect(refreshB != nil && sessionB != nil)

            // Profile A: the flag given before the command this time; sign in, sync, edit.
            let loginA = try await cli.run(["--profile", a, "login"])
            #expect(loginA.status == 0, "\(loginA.stderr)")
            #expect(await cli.invoke(["--profile", a, "sync", "--quiet"]).status == 0)
            let created = await cli.invoke(["--profile", a, "playlist", "create", "Made in A"])
            #expect(created.status == 0, "\(created.stderr)")
            #expect(await cli.invoke(["--profile", a, "folder", "create", "A folder"]).status == 0)
            #expect(names(await cli.invoke(["--profile", a, "playlists", "--json"])).contains("Made in A"))
            #expect(await cli.invoke(["--profile", a, "history", "--json"]).stdout.contains("\"op\":\"create\""))

            // B's files are byte for byte what they were, and its secrets too.
            let afterB = files(of: b, in: cli)
            #expect(afterB.keys.sorted() == filesB.keys.sorted())
            for (path, bytes) in filesB where afterB[path] != bytes { Issue.record("\(path) changed") }
            #expect(try await secret(.refreshToken, b) == refreshB)
            #expect(try await secret(.session, b) == sessionB)
            #expect(try await secret(.refreshToken, a) != refreshB)
            #expect(await cli.invoke(["playlists", "--json", "--profile", b]).stdout == playlistsB)
            #expect(!(await cli.invoke(["folder", "list", "--json", "--profile", b]).stdout.contains("A folder")))
            #expect(await cli.invoke(["history", "--json", "--profile", b]).stdout == "[]\n")
            // A's files are in A's folders; the default profile has none at all.
            #expect(files(of: a, in: cli).keys.contains { $0.hasSuffix("state/timbre/profiles/\(a)/timbre.log") })
            for path in [
                "config/timbre/config.toml", "config/timbre/credentials.json", "cache/timbre/library.sqlite",
                "data/timbre/timbre.sqlite", "state/timbre/timbre.log", "state/timbre/trust.jsonl",
            ] {
                #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent(path).path), "\(path)")
            }

            // Logging out of A removes A's secrets only.
            #expect(await cli.invoke(["logout", "--profile", a]).status == 0)
            #expect(try await secret(.refreshToken, a) == nil)
            #expect(try await secret(.session, a) == nil)
            #expect(try await secret(.refreshToken, b) == refreshB)
            #expect(await cli.invoke(["auth", "status", "--profile", a]).status == 4)
            let statusB = await cli.invoke(["auth", "status", "--json"], environment: ["TIMBRE_PROFILE": b])
            #expect(statusB.status == 0, "\(statusB.stderr)")
            #expect(statusB.stdout.contains("\"source\":\"keyring\""))
        }
    }
}
