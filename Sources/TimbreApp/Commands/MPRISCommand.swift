import Dispatch
import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreMPRIS
import TimbreNet
import TimbreTUI

/// `timbre mpris`: the MPRIS bridge without the interface, until SIGTERM or Ctrl-C — the desktop's
/// media keys, `playerctl` and status bars drive whatever Spotify Connect device plays. The player
/// is read as the interface reads it (`PlayerPoll`): at the start, once after each command, when
/// the local clock says the track ended, else every `player_poll` seconds (once a minute while
/// nothing plays), never while a rate-limit pause or quota wait is in force.
public struct MPRISCommand: Sendable {
    public init() {}

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let shared = SharedPlayer { try await context.player(needs: PKCE.playbackScopes) }
        // Signed in with the playback scopes, or said now — before the bus name is taken.
        _ = try await shared.api()
        let loop = MPRISLoopState(poll: PlayerPoll(seconds: context.config.playerPoll))
        let bridge = MPRISBridge(player: MPRISControl(shared: shared, loop: loop))
        let name = try await bridge.start()
        // The name alone on stdout (a script or a test reads it); the sentence on stderr.
        invocation.console.write("\(name)\n")
        invocation.console.writeError("timbre mpris: \(name) on the session bus; SIGTERM or Ctrl-C ends it\n")
        let ended = Locked(false)
        let signals = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { ended.withLock { $0 = true } }
            source.resume()
            return source
        }
        defer {
            for source in signals { source.cancel() }
            signal(SIGTERM, SIG_DFL)
            signal(SIGINT, SIG_DFL)
        }
        while !ended.current {
            let now = ContinuousClock.now
            if let wait = InterfacePlayer.wait(context) { loop.waiting(wait.seconds, from: now) }
            if loop.shouldRead(at: now) {
                loop.readStarted(at: now)
                do {
                    let playing = try await shared.api().state()
                    let read = ContinuousClock.now
                    let state = InterfacePlayer.nowPlaying(playing, at: read)
                    loop.readFinished(state)
                    bridge.update(Self.mprisState(playing, at: read))
                } catch {
                    loop.readFinished(loop.playing)
                    invocation.console.writeError("timbre mpris: \((error as? any UserFacingError)?.message ?? "\(error)")\n")
                    if error is RequestsStopped, let wait = InterfacePlayer.wait(context) { loop.waiting(wait.seconds, from: .now) }
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        await bridge.stop()
        invocation.console.writeError("timbre mpris: \(name) released\n")
        return .success
    }

    /// Spotify's player as MPRIS says it: paused or playing with its track; nothing loaded → stopped.
    static func mprisState(_ state: PlaybackState?, at instant: ContinuousClock.Instant) -> MPRISState {
        guard let state else { return .idle(at: instant) }
        let track = state.item.map { item in
            MPRISTrack(
                uri: item.uri, title: item.name, artists: item.artists, album: item.album ?? "", lengthMicroseconds: Int64(item.durationMS) * 1000,
                url: Self.openURL(item.uri))
        }
        let loop: MPRISLoop =
            switch state.repeatState {
            case .off: .none
            case .track: .track
            case .context: .playlist
            }
        return MPRISState(
            status: track == nil ? .stopped : (state.isPlaying ? .playing : .paused), track: track,
            positionMicroseconds: Int64(state.progressMS) * 1000, positionAt: instant,
            volume: Double(state.device?.volume ?? 100) / 100, shuffle: state.shuffle, loop: loop,
            canControl: !(state.device?.restricted ?? false))
    }

    /// `spotify:track:ID` → its open.spotify.com link.
    static func openURL(_ uri: String) -> String? {
        let parts = uri.split(separator: ":")
        guard parts.count == 3, parts[0] == "spotify" else { return nil }
        return "https://open.spotify.com/\(parts[1])/\(parts[2])"
    }
}

/// The bridge's read schedule and what it last read, shared by the loop and the commands.
final class MPRISLoopState: Sendable {
    private struct State {
        var poll: PlayerPoll
        var playing: NowPlaying?
    }
    private let state: Locked<State>

    init(poll: PlayerPoll) { state = Locked(State(poll: poll)) }

    var playing: NowPlaying? { state.current.playing }
    func shouldRead(at now: ContinuousClock.Instant) -> Bool { state.withLock { $0.poll.shouldRead(at: now, playing: $0.playing) } }
    func readStarted(at now: ContinuousClock.Instant) { state.withLock { $0.poll.readStarted(at: now) } }
    func readFinished(_ playing: NowPlaying?) {
        state.withLock {
            $0.poll.readFinished()
            $0.playing = playing
        }
    }
    /// What another reader (the interface) read: PlayPause toggles by it.
    func observed(_ playing: NowPlaying?) { state.withLock { $0.playing = playing } }
    func commandSent() { state.withLock { $0.poll.commandSent() } }
    func commandAnswered() { state.withLock { $0.poll.commandAnswered() } }
    func waiting(_ seconds: Int, from now: ContinuousClock.Instant) { state.withLock { $0.poll.wait(seconds, from: now) } }
}

/// The media keys' commands, each one request of `PlayerAPI` (a relative seek from the position
/// the local clock gives, so no read first); the player is read once after each is answered.
struct MPRISControl: MPRISPlayer {
    let shared: SharedPlayer
    let loop: MPRISLoopState
    /// Told when a command was answered (or failed): the interface reads the player then.
    var answered: @Sendable () -> Void = {}

    private func send(_ request: PlayerRequest) async throws {
        loop.commandSent()
        defer { answer() }
        try await InterfacePlayer.perform(request, on: try await shared.api())
    }

    private func answer() {
        loop.commandAnswered()
        answered()
    }

    func playPause() async throws { try await send(loop.playing?.isPlaying == true ? .pause : .resume) }
    func play() async throws { try await send(.resume) }
    func pause() async throws { try await send(.pause) }
    func next() async throws { try await send(.next) }
    func previous() async throws { try await send(.previous) }
    func seek(byMicroseconds offset: Int64) async throws {
        let now = loop.playing?.progress(at: .now) ?? 0
        try await send(.seek(toMS: max(0, now + Int(offset / 1000))))
    }
    func setPosition(microseconds: Int64, trackURI: String) async throws { try await send(.seek(toMS: Int(microseconds / 1000))) }
    func setVolume(_ volume: Double) async throws { try await send(.volume(percent: Int((min(1, max(0, volume)) * 100).rounded()))) }
    func setShuffle(_ on: Bool) async throws {
        loop.commandSent()
        defer { answer() }
        try await shared.api().shuffle(on)
    }
    func setLoop(_ mode: MPRISLoop) async throws {
        loop.commandSent()
        defer { answer() }
        let state: PlaybackState.Repeat =
            switch mode {
            case .none: .off
            case .track: .track
            case .playlist: .context
            }
        try await shared.api().setRepeat(state)
    }
}
