import Foundation
import Testing
import TimbreTestSupport

/// While `timbre demo` runs (the real binary in tmux), `timbre --profile demo …` in another
/// terminal works against the demo's sandbox: reads, edits, and the edit in the demo's interface
/// after `U`. Asserts the sandbox's state through the CLI's `api` (the demo's sandbox has no
/// test handle).
@Suite(.serialized, .tags(.integration), .integrationTier) struct DemoCLITmuxTests {
    /// `timbre demo --library small` in tmux (150×36), once its first screen says the CLI works on
    /// its sandbox; the exit marker of `Tmux.startTimbre`.
    static func startDemo(_ tmux: Tmux, _ cli: TimbreCLI) async throws -> String {
        let marker = try await tmux.startTimbre(cli, columns: 150, rows: 36, arguments: ["demo", "--library", "small"])
        _ = try await tmux.waitFor("try `timbre --profile demo playlists` in another terminal", timeout: .seconds(90))
        return marker
    }

    @Test func theCLIWorksAgainstTheRunningDemoAndItsInterfaceSeesTheEdit() async throws {
        let cli = try TimbreCLI()
        let tmux = Tmux()
        try await withCleanup({
            await tmux.kill()
            cli.remove()
        }) {
            // The first screen says the CLI works on this sandbox.
            let marker = try await Self.startDemo(tmux, cli)

            // Reads: the demo's cache; the session file is the user's alone.
            let playlists = try await cli.run(["--profile", "demo", "playlists", "--json"])
            #expect(playlists.status == 0, "\(playlists.stderr)")
            let listed = (try? JSONSerialization.jsonObject(with: Data(playlists.stdout.utf8)) as? [[String: Any]]) ?? []
            #expect(listed.count > 1)
            let credentials = try #require(
                try await cli.run(["--profile", "demo", "paths", "--json"]).stdout
                    .data(using: .utf8).flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: String] }?["credentials"])
            let mode = try FileManager.default.attributesOfItem(atPath: credentials)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // Online: the catalogue, then an edit of a new playlist, on the demo's sandbox.
            let search = try await cli.run(["--profile", "demo", "search", "a", "--json", "--limit", "1"])
            #expect(search.status == 0, "\(search.stderr)")
            let track = try #require(((try? JSONSerialization.jsonObject(with: Data(search.stdout.utf8))) as? [[String: Any]])?.first?["uri"] as? String)
            let created = try await cli.run(["--profile", "demo", "playlist", "create", "From The Other Terminal"])
            #expect(created.status == 0, "\(created.stderr)")
            let id = created.stdout.trimmingCharacters(in: .newlines)
            let added = try await cli.run(["--profile", "demo", "playlist", "add", "From The Other", track])
            #expect(added.status == 0, "\(added.stderr)")
            let items = try await cli.run(["--profile", "demo", "api", "playlists/\(id)/items"])
            #expect(items.status == 0 && items.stdout.contains(track), "the sandbox holds the edit: \(items.stdout) \(items.stderr)")
            let doctor = try await cli.run(["--profile", "demo", "doctor", "--json"])
            #expect(!doctor.stdout.contains("\"fail\""), "\(doctor.stdout)")
            #expect(doctor.stdout.contains("the demo profile keeps its sandbox session"))

            // The demo's interface, after U, lists the playlist the other terminal made.
            try await tmux.keys("U")
            _ = try await tmux.waitFor("From The Other Terminal")
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
            // After the demo its cache stays readable, until the next demo.
            #expect(try await cli.run(["--profile", "demo", "tracks", "from the other", "--json"]).stdout.contains(track))
        }
    }
}
