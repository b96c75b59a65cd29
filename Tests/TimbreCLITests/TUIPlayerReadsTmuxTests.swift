import Foundation
import Testing
import TimbreTestSupport

/// When the interface reads the player (#43 item 4), the real binary in tmux over the sandbox,
/// counted in the sandbox's request log; a media key through the interface's MPRIS name, and `c`
/// after a play started from the CLI, each bring one read at once.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIPlayerReadsTmuxTests {

    /// A synced profile whose config.toml sets `player_poll`, the interface started on it; `body`
    /// gets the instant just before the interface started.
    func withInterface(poll: Int, _ body: (InterfaceSession, ContinuousClock.Instant) async throws -> Void) async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        try await withCleanup({ await sandbox.stop() }) {
            let token = try await sandbox.mintRefreshToken()
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": token])
            try cli.configure(for: sandbox, extra: "player_poll = \(poll)")
            let tmux = Tmux()
            try await withCleanup({
                await tmux.kill()
                cli.remove()
            }) {
                #expect(try await cli.run(["sync", "--quiet"]).status == 0)
                try await sandbox.clearRequests()
                let started = ContinuousClock.now
                let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
                let session = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
                _ = try await session.wait("synced")
                try await body(session, started)
                try await tmux.keys("q")
                #expect(try await Tmux.exitStatus(marker) == "0")
            }
        }
    }

    /// The reads of the player (`GET /v1/me/player`) in `log`.
    static func reads(_ log: [SandboxRequestRecord]) -> [SandboxRequestRecord] {
        log.filter { $0.method == "GET" && $0.path == "/v1/me/player" }
    }

    /// The player's commands (a `PUT` or `POST` under `/v1/me/player`).
    static func commands(_ log: [SandboxRequestRecord]) -> [SandboxRequestRecord] {
        log.filter { $0.method != "GET" && $0.path.hasPrefix("/v1/me/player") }
    }

    /// The now-playing line of `screen` (the one starting with ▶ or ⏸).
    static func nowPlayingLine(_ screen: String) -> String? {
        screen.split(separator: "\n").map(String.init).first {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return line.hasPrefix("▶ ") || line.hasPrefix("⏸ ")
        }
    }

    /// Enter on the second entry of Morning Coffee, played on the kitchen radio (the picker: no
    /// device is active in a new sandbox).
    func playSecondEntry(_ s: InterfaceSession) async throws {
        try await s.open("Morning Coffee")
        try await s.tmux.keys("l", "g", "j", "Enter")
        _ = try await s.wait("Devices (")
        try await s.tmux.type("kitchen")
        _ = try await s.wait("Devices (1 of")
        try await s.tmux.keys("Enter")
        _ = try await s.tmux.waitFor("▶ ", settled: false)
    }

    /// Item 4's numbers, with `player_poll = 5` (its minimum): with nothing playing a minute costs
    /// the start read and at most one more; with something playing, one read after the command
    /// once answered, then at most one every 5 s (the tracks last minutes: no end falls inside).
    @Test func anIdleMinuteIsOneReadAndAPlayingTrackIsReadEveryPlayerPoll() async throws {
        try await withInterface(poll: 5) { s, started in
            _ = try await s.wait("nothing playing")
            try await Task.sleep(for: .seconds(65))
            let idle = Self.reads(try await s.sandbox.requests()).count
            // The interface has run for `up` (at least 65 s): the start read, then one a minute.
            let up = ContinuousClock.now - started
            let allowed = 1 + Int(up / .seconds(60))
            #expect(idle >= 1 && idle <= allowed, "\(idle) reads in \(up) of an idle interface (player_poll 5 must not apply)")

            try await s.sandbox.clearRequests()
            let from = ContinuousClock.now
            try await playSecondEntry(s)
            // Each command is followed by a read (once answered; commands run one at a time).
            let first = try await eventually(s, "a read after the play") { log in
                guard let play = Self.commands(log).first.flatMap({ command in log.firstIndex(of: command) }) else { return false }
                return !Self.reads(Array(log[(play + 1)...])).isEmpty
            }
            #expect(Self.commands(first).map(\.path) == ["/v1/me/player/play"], "\(Self.commands(first))")
            try await Task.sleep(for: .seconds(12))
            let log = try await s.sandbox.requests()
            let window = ContinuousClock.now - from
            // At most: the idle schedule's one read before the play, the read after it, one per
            // `player_poll` of the window, and one for a track's end.
            let most = 3 + Int(window / .seconds(5))
            #expect(Self.reads(log).count <= most, "\(Self.reads(log).count) reads in \(window) while playing, player_poll 5")
            #expect(Self.commands(log).count == 1, "only the play was sent: \(Self.commands(log).map(\.path))")
        }
    }

    /// Polls the sandbox's request log until `done` holds (a hang guard, not a speed bound).
    func eventually(_ s: InterfaceSession, _ what: String, _ done: ([SandboxRequestRecord]) -> Bool) async throws -> [SandboxRequestRecord] {
        let deadline = ContinuousClock.now + .seconds(60)
        var log = try await s.sandbox.requests()
        while !done(log), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            log = try await s.sandbox.requests()
        }
        #expect(done(log), "never: \(what) — \(log.map { "\($0.method) \($0.path)" })")
        return log
    }

    /// The title `timbre now --json` reads.
    func nowTitle(_ cli: TimbreCLI) async throws -> String {
        let now = try await cli.run(["now", "--json"])
        let item = (try JSONSerialization.jsonObject(with: Data(now.stdout.utf8)) as? [String: Any])?["item"] as? [String: Any]
        return try #require(item?["name"] as? String, "\(now.stdout) \(now.stderr)")
    }

    /// The MPRIS name the interface owns, as its log says (another test's interface may hold `timbre`).
    func busName(_ cli: TimbreCLI) async throws -> String {
        let paths = try JSONSerialization.jsonObject(with: Data(try await cli.run(["paths", "--json"]).stdout.utf8)) as? [String: Any]
        let log = try #require(paths?["log"] as? String)
        var logged = ""
        for _ in 0..<600 where !logged.contains("the interface owns org.mpris.MediaPlayer2.timbre") {
            logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if !logged.contains("the interface owns") { try await Task.sleep(for: .milliseconds(100)) }
        }
        return try #require(
            logged.split(separator: "\n").last { $0.contains("the interface owns ") }?.components(separatedBy: "the interface owns ").last)
    }

    /// `player_poll = 3600` (its maximum), the sandbox's clock frozen: only a read the key or the
    /// media key brought can explain what the line shows (the tracks last 95 s or more, so no
    /// track's end falls inside the waits either).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl"), "playerctl is not installed"))
    func cAfterACLIPlayAndAMediaKeyReadThePlayerAtOnce() async throws {
        try await withInterface(poll: 3600) { s, _ in
            try await s.sandbox.freezeClock()
            _ = try await s.wait("nothing playing")
            // Played from the command line: the interface's last read said nothing plays. An entry
            // whose next one has another title (so the line can tell them apart).
            let items = try await s.sandbox.playlistInfo(try await s.id(of: "Morning Coffee")).items
            let start = try #require(
                items.indices.dropLast().first(where: { index in
                    items[index].kind == "track" && items[index + 1].kind == "track" && items[index].name != nil
                        && items[index].name != items[index + 1].name
                }))
            let play = try await s.cli.run(["play", "Morning Coffee", "--track", "\(items[start].position + 1)", "--device", "kitchen"])
            #expect(play.status == 0, "\(play.stderr)")
            // c reads first and pauses what it finds (it would otherwise have sent a resume).
            try await s.tmux.keys("c")
            _ = try await s.player(until: "is paused") { ($0["is_playing"] as? Bool) == false }
            _ = try await s.tmux.waitUntil("the line shows ⏸", settled: false) { Self.nowPlayingLine($0)?.contains("⏸ ") == true }
            // Known now: c resumes, one request.
            try await s.tmux.keys("c")
            _ = try await s.player(until: "plays again") { ($0["is_playing"] as? Bool) == true }
            let first = try await nowTitle(s.cli)
            _ = try await s.tmux.waitUntil("the line shows ▶ \(first)", settled: false) {
                Self.nowPlayingLine($0).map { $0.contains("▶ ") && $0.contains(first) } == true
            }

            // A media key through the interface's MPRIS name: the line and the bridge's metadata
            // follow at once.
            let bus = try await busName(s.cli)
            let next = try await MPRISCLITests.playerctl(bus, ["next"])
            #expect(next.status == 0, "playerctl next: \(next.output)")
            let second = try await nowTitle(s.cli)
            #expect(second != first, "the sandbox played on to the next entry")
            _ = try await s.tmux.waitUntil("the line shows \(second)", settled: false) {
                Self.nowPlayingLine($0).map { $0.contains(second) } == true
            }
            var shown = ""
            for _ in 0..<600 where shown != second {
                shown = try await MPRISCLITests.playerctl(bus, ["metadata", "title"]).output
                if shown != second { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(shown == second, "playerctl -p \(bus) metadata title")
            // play-pause pauses what the interface read plays.
            #expect(try await MPRISCLITests.playerctl(bus, ["play-pause"]).status == 0)
            _ = try await s.player(until: "is paused by play-pause") { ($0["is_playing"] as? Bool) == false }
            _ = try await s.tmux.waitUntil("the line shows ⏸", settled: false) { Self.nowPlayingLine($0)?.contains("⏸ ") == true }
        }
    }
}
