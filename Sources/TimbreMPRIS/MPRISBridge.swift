import Foundation
import TimbreCore

/// timbre on the desktop's media bus: owns `org.mpris.MediaPlayer2.timbre` (or
/// `….instance<pid>` when another process has it), exports /org/mpris/MediaPlayer2 with the
/// MediaPlayer2 and MediaPlayer2.Player interfaces, answers reads from the last state its owner
/// pushed (`update`), sends the commands it receives to an `MPRISPlayer`, and emits
/// PropertiesChanged whenever a pushed state changes a property (Seeked when the position jumps).
///
///     let bridge = MPRISBridge(player: player)
///     let name = try await bridge.start()      // MPRISBridgeError when there is no session bus
///     bridge.update(state)                      // after every read of the player
///     await bridge.stop()                       // the name released, the thread ended
public final class MPRISBridge: Sendable {
    public static let busName = "org.mpris.MediaPlayer2.timbre"
    public static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// A position more than this far from where the clock says it should be is a seek.
    static let seekTolerance: Int64 = 1_000_000

    struct Published: Sendable {
        var state: MPRISState
        /// The Player properties (all but Position) as last announced.
        var properties: [String: DBusValue]?
        var previous: MPRISState?
    }

    let player: any MPRISPlayer
    let now: @Sendable () -> ContinuousClock.Instant
    let store: Locked<Published>
    private let host: Locked<GDBusHost?> = Locked(nil)

    /// `now` is the clock Position is read with (a test fixes it).
    public init(player: any MPRISPlayer, initialState: MPRISState? = nil, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.player = player
        self.now = now
        store = Locked(Published(state: initialState ?? .idle(at: now())))
    }

    /// Joins the session bus and owns the name; returns the name owned.
    @discardableResult
    public func start() async throws -> String {
        let host = GDBusHost(
            introspection: Self.introspection, objectPath: Self.objectPath, interfaces: [Self.rootInterface, Self.playerInterface],
            methodHandler: { [weak self] call in
                guard let self else { return call.fail("timbre's MPRIS bridge has stopped.") }
                self.handle(call)
            },
            propertyReader: { [weak self] interface, property in self?.read(interface: interface, property: property) })
        let installed = self.host.withLock { slot -> Bool in
            guard slot == nil else { return false }
            slot = host
            return true
        }
        guard installed else { throw MPRISBridgeError("The MPRIS bridge was already started.") }
        let name = try await host.start(names: [Self.busName, "\(Self.busName).instance\(getpid())"])
        // What was pushed before the name was ours is the baseline of the first PropertiesChanged.
        store.withLock { $0.properties = Self.playerProperties(of: $0.state) }
        return name
    }

    /// Releases the name and ends the bridge's thread; returns when both are done.
    public func stop() async {
        guard let host = host.current else { return }
        await host.stop()
    }

    /// The player's state as its owner last read it. Emits PropertiesChanged for the properties it
    /// changes, and Seeked when the position is not where the previous state's clock put it.
    public func update(_ state: MPRISState) {
        let host = self.host.current
        store.withLock { published in
            let previous = published.state
            published.state = state
            guard let host, let before = published.properties else { return }
            let after = Self.playerProperties(of: state)
            let changed = after.filter { before[$0.key] != $0.value }
            published.properties = after
            if !changed.isEmpty {
                host.emitSignal(
                    interface: Self.propertiesInterface, member: "PropertiesChanged",
                    arguments: [.string(Self.playerInterface), .dictionary(changed), .strings([])])
            }
            if let track = state.track, track.uri == previous.track?.uri,
                abs(state.positionMicroseconds - previous.position(at: state.positionAt)) > Self.seekTolerance
            {
                host.emitSignal(interface: Self.playerInterface, member: "Seeked", arguments: [.int64(state.position(at: now()))])
            }
        }
    }

    // MARK: - Properties

    private func read(interface: String, property: String) -> DBusValue? {
        if interface == Self.rootInterface { return Self.rootProperties[property] }
        let state = store.current.state
        if property == "Position" { return .int64(state.position(at: now())) }
        return Self.playerProperties(of: state)[property]
    }

    static let rootProperties: [String: DBusValue] = [
        "CanQuit": .boolean(false), "CanRaise": .boolean(false), "HasTrackList": .boolean(false),
        "Identity": .string("timbre"), "DesktopEntry": .string("timbre"),
        "SupportedUriSchemes": .strings(["spotify"]), "SupportedMimeTypes": .strings([]),
    ]

    static func playerProperties(of state: MPRISState) -> [String: DBusValue] {
        let control = state.canControl
        let hasTrack = state.track != nil
        return [
            "PlaybackStatus": .string(state.status.rawValue),
            "LoopStatus": .string(state.loop.rawValue),
            "Rate": .double(1), "MinimumRate": .double(1), "MaximumRate": .double(1),
            "Shuffle": .boolean(state.shuffle),
            "Metadata": .dictionary(metadata(of: state.track)),
            "Volume": .double(min(1, max(0, state.volume))),
            "CanGoNext": .boolean(control && hasTrack), "CanGoPrevious": .boolean(control && hasTrack),
            "CanPlay": .boolean(control && hasTrack), "CanPause": .boolean(control && hasTrack),
            "CanSeek": .boolean(control && state.track?.lengthMicroseconds != nil),
            "CanControl": .boolean(control),
        ]
    }

    static func metadata(of track: MPRISTrack?) -> [String: DBusValue] {
        guard let track else { return ["mpris:trackid": .objectPath(MPRISTrack.noTrackPath)] }
        var metadata: [String: DBusValue] = [
            "mpris:trackid": .objectPath(MPRISTrack.trackID(for: track.uri)),
            "xesam:title": .string(track.title),
            "xesam:artist": .strings(track.artists),
            "xesam:album": .string(track.album),
        ]
        if let length = track.lengthMicroseconds { metadata["mpris:length"] = .int64(length) }
        if let art = track.artURL { metadata["mpris:artUrl"] = .string(art) }
        if let url = track.url { metadata["xesam:url"] = .string(url) }
        return metadata
    }
}
