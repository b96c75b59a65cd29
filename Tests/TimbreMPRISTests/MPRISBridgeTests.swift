import Foundation
import Testing
import TimbreCore
import TimbreMPRIS
import TimbreTestSupport

/// The bridge on a real session bus (scripts/test.sh runs the suite under dbus-run-session),
/// driven as a desktop drives it: `playerctl`, `busctl`, `gdbus`. Serialized: the tests own the
/// same well-known name one after another. They run in a process of their own (started by
/// `MPRISBridgeProcessTests`): GLib's threads and C callbacks stay out of the runner that holds
/// every other test, so a fault there is this suite's failure, not the whole run's.
@Suite(.tags(.integration), .integrationTier, .serialized, .enabled(if: MPRISBridgeProcess.isChild, "runs in its own process"))
struct MPRISBridgeTests {
    static let tracks = [
        MPRISTrack(
            uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", title: "Never Gonna Give You Up", artists: ["Rick Astley"], album: "Whenever You Need Somebody",
            lengthMicroseconds: 213_000_000, artURL: "https://i.scdn.co/image/ab67616d0000b273"),
        MPRISTrack(
            uri: "spotify:track:7GhIk7Il098yCjg4BQjzvb", title: "Take On Me", artists: ["a-ha", "Morten Harket"], album: "Hunting High and Low",
            lengthMicroseconds: 225_000_000),
    ]
    /// The clock Position is read with: fixed, so a position read over the bus is exact.
    static let instant = ContinuousClock.now
    static let path = MPRISBridge.objectPath
    static let name = MPRISBridge.busName

    static func playing(_ index: Int, at seconds: Int64 = 42) -> MPRISState {
        MPRISState(
            status: .playing, track: tracks[index], positionMicroseconds: seconds * 1_000_000, positionAt: instant, volume: 0.5, shuffle: true, loop: .playlist)
    }

    /// Starts a bridge over `player`, runs `body`, and stops the bridge whatever happened.
    func withBridge(_ player: FakePlayer, _ body: (MPRISBridge, String) async throws -> Void) async throws {
        let bridge = MPRISBridge(player: player, now: { Self.instant })
        let name = try await bridge.start()
        player.attach(bridge)
        do {
            try await body(bridge, name)
        } catch {
            await bridge.stop()
            throw error
        }
        await bridge.stop()
    }

    /// Runs a program to its end: its output (stderr too) trimmed, and its exit status (-1 when it
    /// could not be started, the reason as its output). Not throwing: `#expect` reads it inline.
    func run(_ argv: String...) async -> (output: String, status: Int32) {
        do {
            let (output, status) = try await ChildProcess.runOffPool(argv, mergeStderr: true)
            return (output.trimmingCharacters(in: .whitespacesAndNewlines), status)
        } catch {
            return ("\(error)", -1)
        }
    }

    func playerctl(_ arguments: String..., player: String = "timbre") async -> String {
        do {
            return try await ChildProcess.runOffPool(["/usr/bin/playerctl", "-p", player] + arguments).output.trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            return "\(error)"
        }
    }

    /// Polls `condition` until it holds or a generous deadline passes (never a bound on speed).
    func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    func nameHasOwner(_ name: String) async -> Bool {
        await run(
            "/usr/bin/gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus", "--method",
            "org.freedesktop.DBus.NameHasOwner", name
        ).output == "(true,)"
    }

    @Test func playerctlReadsWhatThePlayerPushed() async throws {
        let player = FakePlayer(tracks: Self.tracks, state: Self.playing(0))
        try await withBridge(player) { bridge, name in
            #expect(name == Self.name)
            #expect(await playerctl("metadata", "title") == "Never Gonna Give You Up")
            #expect(await playerctl("metadata", "artist") == "Rick Astley")
            #expect(await playerctl("metadata", "album") == "Whenever You Need Somebody")
            #expect(await playerctl("metadata", "mpris:length") == "213000000")
            // playerctl quotes an object path.
            #expect(await playerctl("metadata", "mpris:trackid") == "'/org/timbre/spotify/track/4uLU6hMCjMI75M1A2tKUQC'")
            #expect(await playerctl("metadata", "mpris:artUrl") == "https://i.scdn.co/image/ab67616d0000b273")
            #expect(await playerctl("metadata", "xesam:url") == "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC")
            #expect(await playerctl("status") == "Playing")
            #expect(Double(await playerctl("volume")) == 0.5)
            #expect(await playerctl("shuffle") == "On")
            #expect(await playerctl("loop") == "Playlist")
            // playerctl moves a playing position on by its own clock: read it paused, exactly.
            var paused = Self.playing(0)
            paused.status = .paused
            bridge.update(paused)
            #expect(await eventually { await playerctl("status") == "Paused" })
            #expect(Double(await playerctl("position")) == 42)
        }
    }

    @Test func playerctlCommandsReachThePlayer() async throws {
        let player = FakePlayer(tracks: Self.tracks, state: Self.playing(0))
        try await withBridge(player) { _, _ in
            // A method is answered once the player is done, and the player pushed its new state first.
            _ = await playerctl("next")
            #expect(player.calls == [.next])
            #expect(await playerctl("metadata", "title") == "Take On Me")
            #expect(await playerctl("metadata", "artist") == "a-ha, Morten Harket")
            _ = await playerctl("play-pause")
            #expect(player.calls.last == .playPause)
            #expect(await playerctl("status") == "Paused")
            _ = await playerctl("position", "30")
            #expect(player.calls.last == .setPosition(30_000_000, Self.tracks[1].uri))
            _ = await playerctl("position", "5+")
            #expect(player.calls.last == .seek(5_000_000))
            // Property writes: playerctl does not wait for their answer, so wait for the player.
            _ = await playerctl("volume", "0.25")
            #expect(await eventually { player.calls.last == .volume(0.25) })
            #expect(await eventually { Double(await playerctl("volume")) == 0.25 })
            _ = await playerctl("shuffle", "Off")
            #expect(await eventually { player.calls.last == .shuffle(false) })
            _ = await playerctl("loop", "Track")
            #expect(await eventually { player.calls.last == .loop(.track) })
            #expect(await playerctl("loop") == "Track")
        }
    }

    @Test func aRefusedCommandIsADBusErrorWithTheSentence() async throws {
        let player = FakePlayer(tracks: Self.tracks, state: Self.playing(0), refuses: ["next"])
        try await withBridge(player) { _, name in
            let (output, status) = await run(
                "/usr/bin/gdbus", "call", "--session", "--dest", name, "--object-path", Self.path, "--method", "org.mpris.MediaPlayer2.Player.Next")
            #expect(status != 0)
            #expect(output.contains("Spotify refused: no active device. (pick one with `timbre devices`)"))
            #expect(player.calls.isEmpty)
            let loop = await run(
                "/usr/bin/busctl", "--user", "set-property", name, Self.path, "org.mpris.MediaPlayer2.Player", "LoopStatus", "s", "Sometimes")
            #expect(loop.status != 0)
            #expect(loop.output.contains("LoopStatus is None, Track or Playlist, not Sometimes."))
        }
    }

    @Test func introspectionAndPropertiesOverBusctlAndGdbus() async throws {
        let player = FakePlayer(tracks: Self.tracks, state: Self.playing(0))
        try await withBridge(player) { _, name in
            let introspection = await run("/usr/bin/busctl", "--user", "introspect", name, Self.path)
            #expect(introspection.status == 0)
            for line in ["org.mpris.MediaPlayer2.Player", ".PlayPause", ".SetPosition", ".Seeked", "Metadata", "a{sv}", ".Identity"] {
                #expect(introspection.output.contains(line), "introspection lacks \(line)")
            }
            #expect(await run("/usr/bin/busctl", "--user", "get-property", name, Self.path, "org.mpris.MediaPlayer2", "Identity").output == "s \"timbre\"")
            #expect(
                await run("/usr/bin/busctl", "--user", "get-property", name, Self.path, "org.mpris.MediaPlayer2.Player", "Position").output == "x 42000000")
            let root = await run(
                "/usr/bin/gdbus", "call", "--session", "--dest", name, "--object-path", Self.path, "--method", "org.freedesktop.DBus.Properties.GetAll",
                "org.mpris.MediaPlayer2")
            for entry in [
                "'Identity': <'timbre'>", "'SupportedUriSchemes': <['spotify']>", "'CanQuit': <false>", "'CanRaise': <false>", "'HasTrackList': <false>",
            ] {
                #expect(root.output.contains(entry), "GetAll lacks \(entry): \(root.output)")
            }
            let playerProperties = await run(
                "/usr/bin/gdbus", "call", "--session", "--dest", name, "--object-path", Self.path, "--method", "org.freedesktop.DBus.Properties.GetAll",
                "org.mpris.MediaPlayer2.Player")
            for entry in ["'PlaybackStatus': <'Playing'>", "'Rate': <1.0>", "'CanGoNext': <true>", "'CanSeek': <true>", "'xesam:artist': <['Rick Astley']>"] {
                #expect(playerProperties.output.contains(entry), "GetAll lacks \(entry): \(playerProperties.output)")
            }
        }
    }

    @Test func propertiesChangedOnEveryChangeAndSeekedOnAJump() async throws {
        let player = FakePlayer(tracks: Self.tracks, state: Self.playing(0))
        try await withBridge(player) { bridge, name in
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("mpris-monitor-\(UUID().uuidString)").path
            defer { unlink(log) }
            // stdbuf: gdbus writes through stdio, fully buffered into a file otherwise.
            let monitor = try Spawn.start(
                ["/usr/bin/stdbuf", "-oL", "/usr/bin/gdbus", "monitor", "--session", "--dest", name, "--object-path", Self.path], stdoutPath: log)
            defer {
                kill(monitor, SIGTERM)
                _ = Spawn.wait(monitor)
            }
            func output() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            // "…is owned by…" is printed once gdbus has its match rule in place (sent before).
            #expect(await eventually { output().contains("is owned by") })

            var paused = Self.playing(1, at: 10)
            paused.status = .paused
            bridge.update(paused)
            #expect(await eventually { await settled(output, containing: "'Take On Me'") })
            let change = output()
            #expect(change.contains("PropertiesChanged ('org.mpris.MediaPlayer2.Player'"))
            #expect(change.contains("'PlaybackStatus': <'Paused'>"))
            #expect(change.contains("'xesam:title': <'Take On Me'>"))
            // Only what changed: volume, shuffle and loop did not.
            #expect(!change.contains("'Volume'"))

            var jumped = paused
            jumped.positionMicroseconds = 100_000_000
            bridge.update(jumped)
            #expect(await eventually { await settled(output, containing: "Seeked (int64 100000000,)") })
            // A jump changes no property: no second PropertiesChanged came before the Seeked.
            #expect(output().components(separatedBy: "PropertiesChanged").count - 1 == 1)
        }
    }

    /// What `read` returns contains `needle` and is the same again a little later (settled).
    func settled(_ read: () -> String, containing needle: String) async -> Bool {
        let first = read()
        guard first.contains(needle) else { return false }
        try? await Task.sleep(for: .milliseconds(80))
        return read() == first
    }

    @Test func aSecondBridgeTakesTheInstanceName() async throws {
        let first = FakePlayer(tracks: Self.tracks, state: Self.playing(0))
        let second = FakePlayer(tracks: Self.tracks, state: Self.playing(1))
        try await withBridge(first) { _, name in
            #expect(name == Self.name)
            try await withBridge(second) { _, instance in
                #expect(instance == "\(Self.name).instance\(getpid())")
                #expect(await playerctl("metadata", "title", player: "timbre.instance\(getpid())") == "Take On Me")
                _ = await playerctl("next", player: "timbre.instance\(getpid())")
                #expect(second.calls == [.next])
                #expect(first.calls.isEmpty)
            }
            #expect(await eventually { await !nameHasOwner("\(Self.name).instance\(getpid())") })
        }
    }

    @Test func stopReleasesTheName() async throws {
        let bridge = MPRISBridge(player: FakePlayer(tracks: Self.tracks, state: Self.playing(0)))
        #expect(try await bridge.start() == Self.name)
        #expect(await nameHasOwner(Self.name))
        await bridge.stop()
        #expect(await eventually { await !nameHasOwner(Self.name) })
        // And a new bridge gets the plain name again.
        let again = MPRISBridge(player: FakePlayer(tracks: Self.tracks, state: Self.playing(0)))
        #expect(try await again.start() == Self.name)
        await again.stop()
    }
}
