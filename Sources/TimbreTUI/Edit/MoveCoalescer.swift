import Foundation
import TimbreCore

/// A command waiting to be sent that later keys of the same run join: `J J J J J` typed quickly is
/// one move by five (one write, one undo step), `+++++` one volume request. It is sealed (nothing
/// joins it any more) once the keys have been quiet for `quiet`, or when it is sent. `combine`
/// says what the waiting value and the next one make together (nil: they do not join).
final class KeyRun<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var sealed = false
        var lastJoined: ContinuousClock.Instant
    }
    private let state: Locked<State>
    private let combine: @Sendable (Value, Value) -> Value?
    static var quiet: Duration { .milliseconds(300) }

    init(_ value: Value, at now: ContinuousClock.Instant = .now, combine: @escaping @Sendable (Value, Value) -> Value?) {
        state = Locked(State(value: value, lastJoined: now))
        self.combine = combine
    }

    /// Joins `next` to the waiting value when they combine and it is not sealed; whether it joined.
    func join(_ next: Value, at now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard !state.sealed, let joined = combine(state.value, next) else { return false }
            state.value = joined
            state.lastJoined = now
            return true
        }
    }

    var value: Value { state.withLock { $0.value } }

    /// Whether a later key may still join it (it is not sent yet).
    var isOpen: Bool { state.withLock { !$0.sealed } }

    /// Whether it is sealed and `value` is what was sent.
    func isSent(_ value: Value) -> Bool { state.withLock { $0.sealed && $0.value == value } }

    /// Waits until the keys have been quiet for `quiet`, then seals the value and returns it.
    func settle() async -> Value {
        while true {
            let wait: Duration? = state.withLock { state in
                let quietFor = ContinuousClock.now - state.lastJoined
                if quietFor >= Self.quiet {
                    state.sealed = true
                    return nil
                }
                return Self.quiet - quietFor
            }
            guard let wait else { return state.withLock { $0.value } }
            try? await Task.sleep(for: wait)
        }
    }
}

/// A move of a playlist's entries waiting to be sent, which later moves of the same entries join.
typealias PendingMove = KeyRun<TUIEdit>

extension KeyRun where Value == TUIEdit {
    convenience init(_ edit: TUIEdit, at now: ContinuousClock.Instant = .now) {
        self.init(edit, at: now, combine: Self.joined)
    }

    /// `move(s, L, t1)` then `move(t1, L, t2)` is `move(s, L, t2)`; nil when they do not chain.
    static func joined(_ first: TUIEdit, _ next: TUIEdit) -> TUIEdit? {
        guard case .change(.entries(let playlist, .move(let start, let length, let to), let options)) = first,
            case .change(.entries(let nextPlaylist, .move(let nextStart, let nextLength, let nextTo), let nextOptions)) = next,
            playlist == nextPlaylist, options == nextOptions, nextStart == to, nextLength == length
        else { return nil }
        return .change(.entries(playlist, .move(start: start, length: length, to: nextTo), options))
    }

    static func isMove(_ edit: TUIEdit) -> Bool {
        if case .move = edit.entryChange?.what { return true }
        return false
    }
}
