import Foundation
import TimbreCore
import TimbreMPRIS

/// An `MPRISPlayer` that records each command, moves its own state as Spotify would, and pushes
/// it to the bridge (as the real player's owner does after each command).
final class FakePlayer: MPRISPlayer, @unchecked Sendable {
    enum Call: Equatable {
        case playPause, play, pause, next, previous
        case seek(Int64)
        case setPosition(Int64, String)
        case volume(Double)
        case shuffle(Bool)
        case loop(MPRISLoop)
    }

    struct Refused: UserFacingError {
        var message: String { "Spotify refused: no active device." }
        var hint: String? { "pick one with `timbre devices`" }
        var exitStatus: ExitStatus { .failure }
    }

    let tracks: [MPRISTrack]
    private let record = Locked<(calls: [Call], state: MPRISState, index: Int)>(([], .idle(at: .now), 0))
    private let bridgeSlot = Locked<MPRISBridge?>(nil)
    /// Commands that throw `Refused`.
    let refuses: Set<String>

    init(tracks: [MPRISTrack], state: MPRISState, refuses: Set<String> = []) {
        self.tracks = tracks
        self.refuses = refuses
        record.withLock { $0.state = state }
    }

    func attach(_ bridge: MPRISBridge) {
        bridgeSlot.withLock { $0 = bridge }
        bridge.update(state)
    }

    var calls: [Call] { record.current.calls }
    var state: MPRISState { record.current.state }

    private func perform(_ call: Call, _ name: String, _ change: (inout MPRISState, inout Int) -> Void) throws {
        if refuses.contains(name) { throw Refused() }
        let state = record.withLock { record -> MPRISState in
            record.calls.append(call)
            change(&record.state, &record.index)
            return record.state
        }
        bridgeSlot.current?.update(state)
    }

    private func move(_ state: inout MPRISState, _ index: inout Int, by step: Int) {
        guard !tracks.isEmpty else { return }
        index = (index + step + tracks.count) % tracks.count
        state.track = tracks[index]
        state.positionMicroseconds = 0
    }

    func playPause() async throws {
        try perform(.playPause, "playPause") { state, _ in state.status = state.status == .playing ? .paused : .playing }
    }
    func play() async throws { try perform(.play, "play") { state, _ in state.status = .playing } }
    func pause() async throws { try perform(.pause, "pause") { state, _ in state.status = .paused } }
    func next() async throws { try perform(.next, "next") { state, index in move(&state, &index, by: 1) } }
    func previous() async throws { try perform(.previous, "previous") { state, index in move(&state, &index, by: -1) } }
    func seek(byMicroseconds offset: Int64) async throws {
        try perform(.seek(offset), "seek") { state, _ in state.positionMicroseconds = max(0, state.positionMicroseconds + offset) }
    }
    func setPosition(microseconds: Int64, trackURI: String) async throws {
        try perform(.setPosition(microseconds, trackURI), "setPosition") { state, _ in state.positionMicroseconds = microseconds }
    }
    func setVolume(_ volume: Double) async throws { try perform(.volume(volume), "setVolume") { state, _ in state.volume = volume } }
    func setShuffle(_ on: Bool) async throws { try perform(.shuffle(on), "setShuffle") { state, _ in state.shuffle = on } }
    func setLoop(_ loop: MPRISLoop) async throws { try perform(.loop(loop), "setLoop") { state, _ in state.loop = loop } }
}
