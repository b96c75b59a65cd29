import Testing

@testable import TimbreMPRIS

/// How calls are judged before the player sees them, and the track ids: no bus needed.
struct MPRISCommandTests {
    static let now = ContinuousClock.now
    static let track = MPRISTrack(uri: "spotify:track:abc", title: "T", artists: ["A"], album: "B", lengthMicroseconds: 100_000_000)
    static let state = MPRISState(status: .playing, track: track, positionMicroseconds: 90_000_000, positionAt: now)

    func command(_ interface: String, _ member: String, _ arguments: [DBusValue?], state: MPRISState = state) throws -> MPRISBridge.Command {
        try MPRISBridge.command(for: interface, member, arguments, state: state, now: Self.now)
    }

    @Test func trackIDsAreObjectPathsThatKeepURIsApart() {
        #expect(MPRISTrack.trackID(for: "spotify:track:4uLU6hMCjMI75M1A2tKUQC") == "/org/timbre/spotify/track/4uLU6hMCjMI75M1A2tKUQC")
        #expect(MPRISTrack.trackID(for: "spotify:local:Artist::A_b+c:12") == "/org/timbre/spotify/local/Artist/_/A_5Fb_2Bc/12")
        #expect(MPRISTrack.trackID(for: "spotify:local:a_2Fb") != MPRISTrack.trackID(for: "spotify:local:a/b"))
        #expect(MPRISTrack.trackID(for: "spotify:episode:é") == "/org/timbre/spotify/episode/_C3_A9")
    }

    @Test func aSeekPastTheEndIsNextAndOneWithinIsASeek() throws {
        #expect(try command(MPRISBridge.playerInterface, "Seek", [.int64(20_000_000)]) == .next)
        #expect(try command(MPRISBridge.playerInterface, "Seek", [.int64(-5_000_000)]) == .seek(-5_000_000))
    }

    @Test func setPositionOnAnotherTrackOrOutsideItDoesNothing() throws {
        let id = DBusValue.objectPath(MPRISTrack.trackID(for: "spotify:track:abc"))
        #expect(try command(MPRISBridge.playerInterface, "SetPosition", [id, .int64(5_000_000)]) == .setPosition(5_000_000, trackURI: "spotify:track:abc"))
        #expect(try command(MPRISBridge.playerInterface, "SetPosition", [.objectPath("/org/timbre/spotify/track/other"), .int64(5)]) == .nothing)
        #expect(try command(MPRISBridge.playerInterface, "SetPosition", [id, .int64(200_000_000)]) == .nothing)
        #expect(try command(MPRISBridge.playerInterface, "SetPosition", [id, .int64(-1)]) == .nothing)
    }

    @Test func settersClampAndRefuseNonsense() throws {
        let set = MPRISBridge.propertiesInterface
        #expect(try command(set, "Set", [.string(MPRISBridge.playerInterface), .string("Volume"), .double(1.7)]) == .setVolume(1))
        #expect(try command(set, "Set", [.string(MPRISBridge.playerInterface), .string("LoopStatus"), .string("Playlist")]) == .setLoop(.playlist))
        #expect(throws: MPRISBridge.Refusal.self) { try command(set, "Set", [.string(MPRISBridge.playerInterface), .string("LoopStatus"), .string("x")]) }
    }

    @Test func anUncontrollableDeviceRefusesCommands() {
        var restricted = Self.state
        restricted.canControl = false
        #expect(throws: MPRISBridge.Refusal.self) { try command(MPRISBridge.playerInterface, "Next", [], state: restricted) }
        #expect(MPRISBridge.playerProperties(of: restricted)["CanGoNext"] == .boolean(false))
    }

    @Test func positionRunsWhilePlayingAndStopsAtTheEnd() {
        #expect(Self.state.position(at: Self.now + .seconds(5)) == 95_000_000)
        #expect(Self.state.position(at: Self.now + .seconds(50)) == 100_000_000)
        var paused = Self.state
        paused.status = .paused
        #expect(paused.position(at: Self.now + .seconds(5)) == 90_000_000)
    }
}
