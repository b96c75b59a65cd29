import Foundation
import Testing
import TimbreTestSupport

/// `timbre demo` plays on its sandbox's "timbre demo speaker" (#43 item 6): Enter on an entry in
/// the demo's interface (the real binary in tmux) plays it there, no device to pick — checked on
/// the demo sandbox's player through its control endpoint (the owner's secret from its state folder).
@Suite(.serialized, .tags(.integration), .integrationTier) struct DemoPlaybackTmuxTests {

    /// `GET /__sandbox/player` of the demo's sandbox: its address and CA from the demo's
    /// config.toml, its secret from its state folder (sent from a 0600 header file, not argv).
    func demoPlayer(_ cli: TimbreCLI) async throws -> [String: Any] {
        let paths = try #require(
            try JSONSerialization.jsonObject(with: Data(try await cli.run(["--profile", "demo", "paths", "--json"]).stdout.utf8)) as? [String: Any])
        let config = try String(contentsOfFile: try #require(paths["config"] as? String), encoding: .utf8)
        func value(_ key: String) throws -> String {
            let line = try #require(config.split(separator: "\n").first { $0.hasPrefix(key + " = \"") }, "no \(key) in \(config)")
            return String(line.dropFirst(key.count + 4).dropLast())
        }
        let state = ((try #require(paths["log"] as? String)) as NSString).deletingLastPathComponent + "/sandbox"
        let secret = try String(contentsOfFile: state + "/control-secret", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let header = cli.home.appendingPathComponent("sandbox-secret-header").path
        _ = FileManager.default.createFile(atPath: header, contents: Data("X-Sandbox-Secret: \(secret)\n".utf8), attributes: [.posixPermissions: 0o600])
        let result = try await SandboxProcess.runCurl(["-H", "@" + header, try value("accounts_url") + "/__sandbox/player"], caFile: try value("ca_file"))
        #expect(result.status == 200, "\(result.text)")
        return (try JSONSerialization.jsonObject(with: result.body) as? [String: Any]) ?? [:]
    }

    @Test func enterInTheDemoPlaysOnTheDemoSpeaker() async throws {
        let cli = try TimbreCLI()
        let tmux = Tmux()
        try await withCleanup({
            await tmux.kill()
            cli.remove()
        }) {
            let marker = try await DemoCLITmuxTests.startDemo(tmux, cli)
            // The speaker is active from the start, nothing loaded.
            let before = try await demoPlayer(cli)
            #expect(before["active_device"] as? String == "timbre demo speaker", "\(before)")
            #expect(before["item_uri"] == nil || before["item_uri"] is NSNull, "\(before)")

            let playlists = try await cli.run(["--profile", "demo", "playlists", "--json"])
            let listed = (try? JSONSerialization.jsonObject(with: Data(playlists.stdout.utf8)) as? [[String: Any]]) ?? []
            let coffee = try #require(listed.first { $0["name"] as? String == "Morning Coffee" }?["id"] as? String, "\(playlists.stdout)")
            try await tmux.keys("h", "Escape", "/")
            try await tmux.type("Morning Coffee")
            try await tmux.keys("Enter", "Enter")
            _ = try await tmux.waitFor(" Morning Coffee · ")
            try await tmux.keys("l", "g", "j", "Enter")
            // Playing on the speaker, and no device was asked for.
            let line = try await tmux.waitUntil("▶ … timbre demo speaker", settled: false) { screen in
                screen.split(separator: "\n").contains { $0.contains("▶ ") && $0.contains("timbre demo speaker") }
            }
            #expect(!line.contains("Devices ("), "no device picker: \(line)")
            let deadline = ContinuousClock.now + .seconds(60)
            var player = try await demoPlayer(cli)
            func started(_ player: [String: Any]) -> Bool {
                player["context_uri"] as? String == "spotify:playlist:\(coffee)" && player["context_index"] as? Int == 1
            }
            while !started(player), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                player = try await demoPlayer(cli)
            }
            #expect(player["active_device"] as? String == "timbre demo speaker", "\(player)")
            #expect(started(player), "entry 2 of Morning Coffee as its context: \(player)")
            #expect(player["is_playing"] as? Bool == true, "\(player)")

            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }
}
