import Foundation
import Testing
import TimbreAuth
import TimbreCore
import TimbreTestSupport

/// `timbre demo` is the profile `demo`: its files in that profile's folders, its secrets in memory,
/// nothing in the default profile, and a real setup that happens to be named `demo` is refused.
@Suite(.serialized, .tags(.integration), .integrationTier) struct DemoProfileTests {
    @Test func theDemoLivesInItsOwnProfileAndLeavesItsCacheReadable() async throws {
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_PROFILE": "work"])
        defer { cli.remove() }
        // Whatever profile the line names, the demo uses its own — the real binary, so its log too.
        let result = try await cli.run(["--profile", "other", "demo", "--no-interface", "--library", "small"], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let home = cli.home.path
        #expect(FileManager.default.fileExists(atPath: "\(home)/cache/timbre/profiles/demo/library.sqlite"))
        let config = try String(contentsOfFile: "\(home)/config/timbre/profiles/demo/config.toml", encoding: .utf8)
        #expect(config.hasPrefix("# Written by `timbre demo`"))
        // The sandbox's certificates and keys went with it.
        #expect(!FileManager.default.fileExists(atPath: "\(home)/state/timbre/profiles/demo/sandbox"))
        #expect(FileManager.default.fileExists(atPath: "\(home)/state/timbre/profiles/demo/timbre.log"))
        #expect(!FileManager.default.fileExists(atPath: "\(home)/state/timbre/timbre.log"))
        for profile in ["timbre", "timbre/profiles/work", "timbre/profiles/other"] {
            for place in ["config", "cache", "data"] {
                #expect(!FileManager.default.fileExists(atPath: "\(home)/\(place)/\(profile)/library.sqlite"))
                #expect(!FileManager.default.fileExists(atPath: "\(home)/\(place)/\(profile)/config.toml"))
            }
        }
        // Never in the keyring: the sandbox session is in the demo profile's credentials file.
        #expect(try await LibSecretStore().read(.refreshToken, profile: "demo") == nil)
        // Afterwards the demo's cache is a profile like any other, offline.
        let playlists = await cli.invoke(["--profile", "demo", "playlists", "--json"])
        #expect(playlists.status == 0, "\(playlists.stderr)")
        #expect(playlists.stdout.hasPrefix("[{\"id\":\"liked\""))
        // A second demo starts afresh over the first one's files.
        // (The real binary: in-process the demo's sign-in waits on the runner's shared thread pool.)
        let again = try await cli.run(["demo", "--no-interface", "--library", "small"], timeout: .seconds(120))
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func aDemoProfileTheDemoDidNotWriteIsLeftAlone() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let config = cli.home.appendingPathComponent("config/timbre/profiles/demo/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "client_id = \"mine\"\n".write(to: config, atomically: true, encoding: .utf8)
        let result = await cli.invoke(["demo", "--no-interface"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the profile \"demo\" has a config.toml that `timbre demo` did not write (\(config.path))"), "\(result.stderr)")
        #expect(try String(contentsOf: config, encoding: .utf8) == "client_id = \"mine\"\n")
    }
}
