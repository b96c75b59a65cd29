import Foundation
import Testing
import TimbreTestSupport

/// `timbre mpris` through the real binary (issue #43 item 5): the bridge on the test's session bus
/// over the sandbox's player, driven with `playerctl` as a desktop's media keys would; every
/// command checked on the sandbox's player, not only on what playerctl says.
@Suite(.serialized, .tags(.integration), .integrationTier) struct MPRISCLITests {
    static let playerctl = "/usr/bin/playerctl"

    /// `playerctl -p PLAYER …` for the bus name a bridge took (another test's interface may own
    /// plain `timbre` at the same moment: the instance is named exactly).
    static func playerctl(_ busName: String, _ arguments: [String]) async throws -> (output: String, status: Int32) {
        let player = busName.replacingOccurrences(of: "org.mpris.MediaPlayer2.", with: "")
        let (output, status) = try await ChildProcess.runOffPool([playerctl, "-p", player] + arguments)
        return (output.trimmingCharacters(in: .whitespacesAndNewlines), status)
    }

    /// Polls `read` until `done` holds for it (a hang guard, not a speed bound); the last value.
    func eventually<T: Sendable>(_ what: String, _ read: () async throws -> T, _ done: (T) -> Bool) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = try await read()
        while !done(last), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            last = try await read()
        }
        #expect(done(last), "never: \(what) (last: \(last))")
        return last
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl"), "playerctl is not installed"))
    func playerctlReadsTheTitleAndSkipsPausesOnTheSandboxsPlayer() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        try await withCleanup({ await sandbox.stop() }) {
            try await sandbox.freezeClock()
            let token = try await sandbox.mintRefreshToken()
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": token])
            try cli.configure(for: sandbox)
            defer { cli.remove() }
            #expect(try await cli.run(["sync", "--quiet"]).status == 0)
            // Something playing on Kitchen radio: Liked Songs from its first entry.
            let play = try await cli.run(["play", "liked", "--track", "1", "--device", "kitchen"])
            #expect(play.status == 0, "\(play.stderr)")
            let first = try await sandbox.playerState()
            let firstURI = try #require(first["item_uri"] as? String)

            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let env = cli.environment.map { "\($0.key)=\($0.value)" }
            let (process, name) = try await offThePool {
                try ChildProcess.startAndReadFirstLine("/usr/bin/env", env + [bin, "mpris"], name: "timbre mpris")
            }
            try await withCleanup({
                if !process.hasEnded { process.terminate() }
                while !process.hasEnded { try? await Task.sleep(for: .milliseconds(20)) }
            }) {
                #expect(name.hasPrefix("org.mpris.MediaPlayer2.timbre"), "\(name)")
                // The title is the one `timbre now --json` names, read from the same player.
                let now = try #require(try JSONSerialization.jsonObject(with: Data(try await cli.run(["now", "--json"]).stdout.utf8)) as? [String: Any])
                let title = try #require((now["item"] as? [String: Any])?["name"] as? String)
                let shown = try await eventually("playerctl shows the title", { try await Self.playerctl(name, ["metadata", "title"]).output }) { $0 == title }
                #expect(shown == title)
                #expect(try await Self.playerctl(name, ["status"]).output == "Playing")

                // next: the sandbox's player moves on to another item.
                #expect(try await Self.playerctl(name, ["next"]).status == 0)
                let moved = try await eventually("the sandbox plays the next item", { try await sandbox.playerState()["item_uri"] as? String }) {
                    $0 != nil && $0 != firstURI
                }
                #expect(moved != firstURI)
                // pause: the sandbox's player stops, and the bridge says so once it read it again.
                #expect(try await Self.playerctl(name, ["pause"]).status == 0)
                _ = try await eventually("the sandbox is paused", { try await sandbox.playerState()["is_playing"] as? Bool }) { $0 == false }
                _ = try await eventually("playerctl says Paused", { try await Self.playerctl(name, ["status"]).output }) { $0 == "Paused" }
            }
            // SIGTERM ends it with exit 0 and the name is released.
            #expect(process.endedStatus == 0, "exit \(process.endedStatus.map(String.init) ?? "none")")
            let player = name.replacingOccurrences(of: "org.mpris.MediaPlayer2.", with: "")
            let listed = try await eventually("the name released", { try await ChildProcess.runOffPool([Self.playerctl, "-l"]).output }) {
                !$0.split(separator: "\n").contains(Substring(player))
            }
            #expect(!listed.split(separator: "\n").contains(Substring(player)))
        }
    }
}
