import Foundation
import Testing
import TimbreTestSupport

/// Playback from the interface (issue #43 item 3), the real binary in tmux over the sandbox: Enter
/// on an entry with no active device opens the device picker, the play goes to the picked device
/// as the playlist's context from that entry, the now-playing line shows it, `c` pauses — each
/// step checked on the sandbox's player.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIPlaybackTmuxTests {

    @Test func enterPlaysTheEntryOnThePickedDeviceAndCPauses() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            try await sandbox.freezeClock()
            let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await s.wait("synced")
            // Signed in: the now-playing line is there, and nothing plays yet.
            _ = try await s.wait("nothing playing")
            let coffee = try await s.id(of: "Morning Coffee")
            let entries = try await sandbox.entries(of: coffee)
            try await s.open("Morning Coffee")
            // The second entry; no device is active, so Enter asks where.
            try await tmux.keys("l", "g", "j", "Enter")
            _ = try await s.wait("Devices (")
            try await tmux.type("kitchen")
            _ = try await s.wait("Devices (1 of")
            try await tmux.keys("Enter")
            let playing = try await s.player(until: "plays entry 2 of Morning Coffee on Kitchen radio") {
                ($0["context_uri"] as? String) == "spotify:playlist:\(coffee)" && ($0["context_index"] as? Int) == 1
                    && ($0["is_playing"] as? Bool) == true
            }
            #expect((playing["item_uri"] as? String) == entries.dropFirst().first)
            #expect((playing["active_device"] as? String)?.lowercased().contains("kitchen") == true, "\(playing)")
            // The now-playing line names it and the device (its progress runs: not a settled screen).
            let line = try await tmux.waitFor("▶ ", settled: false)
            #expect(line.contains("Kitchen"), "\(line)")

            // While the interface runs it owns an MPRIS name (its log says which: another test's
            // interface may hold plain `timbre`), told what the interface read.
            let paths = try JSONSerialization.jsonObject(with: Data(try await cli.run(["paths", "--json"]).stdout.utf8)) as? [String: Any]
            let log = try #require(paths?["log"] as? String)
            var logged = ""
            for _ in 0..<600 where !logged.contains("the interface owns org.mpris.MediaPlayer2.timbre") {
                logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if !logged.contains("the interface owns") { try await Task.sleep(for: .milliseconds(100)) }
            }
            let busName = try #require(
                logged.split(separator: "\n").last { $0.contains("the interface owns ") }?.components(separatedBy: "the interface owns ").last)
            let title = try #require(
                (try JSONSerialization.jsonObject(with: Data(try await cli.run(["now", "--json"]).stdout.utf8)) as? [String: Any])
                    .flatMap { $0["item"] as? [String: Any] }?["name"] as? String)
            var shown = ""
            for _ in 0..<600 where shown != title {
                shown = try await MPRISCLITests.playerctl(busName, ["metadata", "title"]).output
                if shown != title { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(shown == title, "playerctl -p \(busName) metadata title")

            // c pauses on the sandbox, and the line says so.
            try await tmux.keys("c")
            _ = try await s.player(until: "is paused") { ($0["is_playing"] as? Bool) == false }
            _ = try await s.wait("⏸ ")

            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
        }
    }
}

extension InterfaceSession {
    /// Polls the sandbox's player until `done` holds (a hang guard, not a speed bound).
    func player(until what: String, _ done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = try await sandbox.playerState()
        while !done(last), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            last = try await sandbox.playerState()
        }
        #expect(done(last), "the sandbox's player never: \(what) — \(last)")
        return last
    }
}
