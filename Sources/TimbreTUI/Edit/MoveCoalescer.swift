import Foundation
import TimbreCore

/// A move of a playlist's entries waiting to be sent, which later moves of the same entries join:
/// `J J J J J` typed quickly is one move by five — one write, one undo step. The move is sealed
/// (nothing joins it any more) once the keys have been quiet for `quiet`, or when it is sent.
final class PendingMove: Sendable {
    private struct State {
        var edit: TUIEdit
        var sealed = false
        var lastJoined: ContinuousClock.Instant
    }
    private let state: Locked<State>
    static let quiet: Duration = .milliseconds(300)

    init(_ edit: TUIEdit, at now: ContinuousClock.Instant = .now) {
        state = Locked(State(edit: edit, lastJoined: now))
    }

    /// Joins `next` to this move when it moves the same entries on from where this one leaves
    /// them, in the same playlist, and this one is not sealed. Returns whether it joined.
    func join(_ next: TUIEdit, at now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard !state.sealed, let joined = Self.joined(state.edit, next) else { return false }
            state.edit = joined
            state.lastJoined = now
            return true
        }
    }

    /// Whether a later move may still join it (it is not sent yet).
    var isOpen: Bool { state.withLock { !$0.sealed } }

    /// Waits until the keys have been quiet for `quiet`, then seals the move and returns it.
    func settle() async -> TUIEdit {
        while true {
            let wait: Duration? = state.withLock { state in
                let quietFor = ContinuousClock.now - state.lastJoined
                if quietFor >= Self.quiet {
                    state.sealed = true
                    return nil
                }
                return Self.quiet - quietFor
            }
            guard let wait else { return state.withLock { $0.edit } }
            try? await Task.sleep(for: wait)
        }
    }

    /// `move(s, L, t1)` then `move(t1, L, t2)` is `move(s, L, t2)`; nil when they do not chain.
    static func joined(_ first: TUIEdit, _ next: TUIEdit) -> TUIEdit? {
        guard case .entries(let playlist, .move(let start, let length, let to)) = first,
            case .entries(let nextPlaylist, .move(let nextStart, let nextLength, let nextTo)) = next,
            playlist == nextPlaylist, nextStart == to, nextLength == length
        else { return nil }
        return .entries(playlistID: playlist, .move(start: start, length: length, to: nextTo))
    }

    static func isMove(_ edit: TUIEdit) -> Bool {
        if case .entries(_, .move) = edit { return true }
        return false
    }
}
