import Foundation
import TimbreCore

/// The calls D-Bus sends: each becomes one awaited command of the player, answered when it is done.
extension MPRISBridge {
    /// One command for the player, or an answer without one (a call MPRIS says has no effect).
    enum Command: Equatable, Sendable {
        case playPause, play, pause, stop, next, previous
        case seek(Int64)
        case setPosition(Int64, trackURI: String)
        case setVolume(Double)
        case setShuffle(Bool)
        case setLoop(MPRISLoop)
        case open(String)
        case nothing
    }

    /// A call refused before the player sees it.
    struct Refusal: Error, Equatable {
        let name: String
        let message: String
        static func invalidArgs(_ message: String) -> Refusal { Refusal(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message) }
    }

    func handle(_ call: DBusCall) {
        let command: Command
        do {
            command = try Self.command(for: call.interface, call.member, call.arguments, state: store.current.state, now: now())
        } catch {
            return call.fail(name: error.name, error.message)
        }
        if command == .nothing { return call.reply() }
        let player = self.player
        Task {
            do {
                try await Self.run(command, on: player)
                call.reply()
            } catch {
                call.fail(Self.sentence(for: error))
            }
        }
    }

    /// What a call asks of the player, judged against the state it was sent in.
    static func command(for interface: String, _ member: String, _ arguments: [DBusValue?], state: MPRISState, now: ContinuousClock.Instant) throws(Refusal)
        -> Command
    {
        switch (interface, member) {
        case (rootInterface, "Raise"), (rootInterface, "Quit"):
            return .nothing  // CanRaise and CanQuit are false
        case (playerInterface, _):
            return try playerCommand(member, arguments, state: state, now: now)
        case (propertiesInterface, "Set"):
            guard arguments.count == 3, case .string(let property)? = arguments[1], let value = arguments[2] else {
                throw .invalidArgs("Set takes an interface, a property and a value.")
            }
            return try setter(property, value)
        default:
            throw Refusal(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No method \(member) on \(interface).")
        }
    }

    private static func playerCommand(_ member: String, _ arguments: [DBusValue?], state: MPRISState, now: ContinuousClock.Instant) throws(Refusal) -> Command {
        guard state.canControl else { throw Refusal(name: "org.freedesktop.DBus.Error.Failed", message: "This Spotify device cannot be controlled.") }
        switch member {
        case "PlayPause": return .playPause
        case "Play": return .play
        case "Pause": return .pause
        case "Stop": return .stop
        case "Next": return .next
        case "Previous": return .previous
        case "Seek":
            guard case .int64(let offset)? = arguments.first else { throw .invalidArgs("Seek takes an offset in microseconds.") }
            guard let length = state.track?.lengthMicroseconds else { return .nothing }  // CanSeek is false
            // MPRIS: a seek past the end acts like Next.
            let (target, overflow) = state.position(at: now).addingReportingOverflow(offset)
            return !overflow && target > length ? .next : .seek(offset)
        case "SetPosition":
            guard arguments.count == 2, case .objectPath(let trackID)? = arguments[0], case .int64(let position)? = arguments[1] else {
                throw .invalidArgs("SetPosition takes a track id and a position in microseconds.")
            }
            // MPRIS: a stale track id, or a position outside the track, is ignored.
            guard let track = state.track, MPRISTrack.trackID(for: track.uri) == trackID, position >= 0,
                let length = track.lengthMicroseconds, position <= length
            else { return .nothing }
            return .setPosition(position, trackURI: track.uri)
        case "OpenUri":
            guard case .string(let uri)? = arguments.first else { throw .invalidArgs("OpenUri takes a URI.") }
            return .open(uri)
        default:
            throw Refusal(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No method \(member) on \(playerInterface).")
        }
    }

    private static func setter(_ property: String, _ value: DBusValue) throws(Refusal) -> Command {
        switch (property, value) {
        case ("Volume", .double(let volume)): return .setVolume(volume.isNaN ? 0 : min(1, max(0, volume)))
        case ("Shuffle", .boolean(let on)): return .setShuffle(on)
        case ("LoopStatus", .string(let text)):
            guard let loop = MPRISLoop(rawValue: text) else { throw .invalidArgs("LoopStatus is None, Track or Playlist, not \(text).") }
            return .setLoop(loop)
        default:
            throw .invalidArgs("\(property) cannot be set.")
        }
    }

    static func run(_ command: Command, on player: any MPRISPlayer) async throws {
        switch command {
        case .playPause: try await player.playPause()
        case .play: try await player.play()
        case .pause: try await player.pause()
        case .stop: try await player.stop()
        case .next: try await player.next()
        case .previous: try await player.previous()
        case .seek(let offset): try await player.seek(byMicroseconds: offset)
        case .setPosition(let position, let uri): try await player.setPosition(microseconds: position, trackURI: uri)
        case .setVolume(let volume): try await player.setVolume(volume)
        case .setShuffle(let on): try await player.setShuffle(on)
        case .setLoop(let loop): try await player.setLoop(loop)
        case .open(let uri): try await player.open(uri: uri)
        case .nothing: break
        }
    }

    /// The D-Bus error's text: a `UserFacingError`'s message (and hint), else what the error says.
    static func sentence(for error: any Error) -> String {
        if let error = error as? any UserFacingError {
            return error.hint.map { "\(error.message) (\($0))" } ?? error.message
        }
        return String(describing: error)
    }

    /// The interfaces, as GDBus exports and validates them (property types and access included).
    static let introspection = """
        <node>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="DesktopEntry" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek"><arg direction="in" name="Offset" type="x"/></method>
            <method name="SetPosition">
              <arg direction="in" name="TrackId" type="o"/>
              <arg direction="in" name="Position" type="x"/>
            </method>
            <method name="OpenUri"><arg direction="in" name="Uri" type="s"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="LoopStatus" type="s" access="readwrite"/>
            <property name="Rate" type="d" access="read"/>
            <property name="Shuffle" type="b" access="readwrite"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
            </property>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
