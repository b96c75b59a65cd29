import TimbreCore

/// One budget shared by every request of a process: a cap on requests in flight, and a pause that
/// a 429 imposes on all of them (Spotify's rate limit is per app, not per request).
///
/// A lock, not an actor: every request takes and returns a slot, and as an actor each of those was
/// a hop onto the actor's executor and back, often a hand-over between the task pool's threads.
public final class RateBudget: Sendable {
    /// Requests handed to the transport at once by default: twice the connections it keeps per
    /// host (`CurlTransport.connectionsPerHost`, what the server sees in flight). curl starts a
    /// waiting request on its own thread the moment a connection is free; when each next request
    /// had to come from the task pool — a task resumed, released its slot and resumed the next
    /// waiter, all behind page decoding — connections sat idle in between (full sync −3 to −8 %
    /// wall time with 32, A/B medians of 10–16).
    public static let defaultMaxConcurrent = 2 * CurlTransport.connectionsPerHost

    private struct State {
        var inFlight = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var pausedUntil: ContinuousClock.Instant?
    }

    private enum Step {
        case go
        case sleep(until: ContinuousClock.Instant)
        case wait
    }

    public let maxConcurrent: Int
    private let state = Locked(State())
    private let clock = ContinuousClock()

    public init(maxConcurrent: Int = RateBudget.defaultMaxConcurrent) {
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// Waits out any pause, then takes a slot. Pair with `release()`.
    public func acquire() async throws {
        while true {
            let now = clock.now
            let step = state.withLock { state -> Step in
                if let until = state.pausedUntil, until > now { return .sleep(until: until) }
                if state.inFlight < maxConcurrent {
                    state.inFlight += 1
                    return .go
                }
                return .wait
            }
            switch step {
            case .go:
                return
            case .sleep(let until):
                try await clock.sleep(until: until)
            case .wait:
                // Checked again under the lock: a slot released since the look above must not be missed.
                await withCheckedContinuation { continuation in
                    let free = state.withLock { state -> Bool in
                        if state.inFlight < maxConcurrent { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if free { continuation.resume() }
                }
            }
        }
    }

    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inFlight = max(0, state.inFlight - 1)
            return state.waiters.isEmpty ? nil : state.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Pauses every request that has not been sent yet for `duration`.
    public func pause(for duration: Duration) {
        let until = clock.now + duration
        state.withLock { state in
            if let current = state.pausedUntil, current >= until { return }
            state.pausedUntil = until
        }
    }

    /// How long new requests still have to wait (for status displays).
    public var remainingPause: Duration? {
        guard let until = state.withLock({ $0.pausedUntil }) else { return nil }
        let left = until - clock.now
        return left > .zero ? left : nil
    }
}
