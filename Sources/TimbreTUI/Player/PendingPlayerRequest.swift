import Foundation
import TimbreCore

/// A player command waiting to be sent, which later ones of its kind replace: `+++++` typed
/// quickly is one volume request (the last target), `....` one seek — as `JJJJJ` is one move
/// (MoveCoalescer.swift). Sealed once the keys have been quiet for `quiet`, or when it is sent.
final class PendingPlayerRequest: Sendable {
    private struct State {
        var request: PlayerRequest
        var sealed = false
        var lastJoined: ContinuousClock.Instant
    }
    private let state: Locked<State>
    static let quiet: Duration = .milliseconds(300)

    init(_ request: PlayerRequest, at now: ContinuousClock.Instant = .now) {
        state = Locked(State(request: request, lastJoined: now))
    }

    /// Replaces the waiting request with `next` when it is of the same kind and not sealed yet.
    func join(_ next: PlayerRequest, at now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard !state.sealed, state.request.replaced(by: next) else { return false }
            state.request = next
            state.lastJoined = now
            return true
        }
    }

    /// Whether a request of kind `request` joins nothing (it is sent on its own at once).
    static func joins(_ request: PlayerRequest) -> Bool { request.replaced(by: request) }

    var request: PlayerRequest { state.withLock { $0.request } }

    /// Whether it is sealed and `request` is what was sent (nothing can join it any more).
    func isSent(_ request: PlayerRequest) -> Bool { state.withLock { $0.sealed && $0.request == request } }

    /// Waits until the keys have been quiet for `quiet`, then seals the request and returns it.
    func settle() async -> PlayerRequest {
        while true {
            let wait: Duration? = state.withLock { state in
                let quietFor = ContinuousClock.now - state.lastJoined
                if quietFor >= Self.quiet {
                    state.sealed = true
                    return nil
                }
                return Self.quiet - quietFor
            }
            guard let wait else { return state.withLock { $0.request } }
            try? await Task.sleep(for: wait)
        }
    }
}
