import TimbreCore

/// One budget shared by every request of a process (Spotify limits an app over a rolling window,
/// not each request):
///
/// - a cap on requests in flight, which adapts: halved when a rate-limit episode starts, grown back
///   by one after a run of successes, never above `maxConcurrent` nor below one;
/// - a pause that a 429 imposes on every request not yet sent. 429s collected by requests that
///   were already in flight when the pause began belong to the same episode and count once;
/// - the longest the process accepts to stall (`waitBudget`, config `rate_limit_budget`): the
///   pauses since the last successful answer add up, every success sets them back to zero, and a
///   pause that would take them past the budget is refused (the caller gives up). Short pauses
///   while the run advances never end it; one `Retry-After` longer than the budget ends it at once.
///
/// A lock, not an actor: every request takes and returns a slot, and as an actor each of those was
/// a hop onto the actor's executor and back, often a hand-over between the task pool's threads.
public final class RateBudget: Sendable {
    /// Requests handed to the transport at once by default: twice the connections it keeps per
    /// host (`CurlTransport.connectionsPerHost`, what the server sees in flight). curl starts a
    /// waiting request on its own thread the moment a connection is free; when each next request
    /// had to come from the task pool connections sat idle in between (full sync −3 to −8 % wall
    /// time with 32, A/B medians of 10–16).
    public static let defaultMaxConcurrent = 2 * CurlTransport.connectionsPerHost
    /// Seconds of rate-limit pauses without a successful answer a command accepts by default
    /// (config `rate_limit_budget`).
    public static let defaultWaitBudget: Duration = .seconds(120)
    /// Successes in a row that grow the cap by one after an episode halved it.
    public static let successesToGrow = 8

    /// What a caller holds while its request is out: the episode it was sent in.
    public struct Ticket: Sendable {
        let episode: Int
    }

    /// What a 429 did to the budget.
    public enum PauseOutcome: Sendable, Equatable {
        /// A new episode began (or the current one was extended): wait, then send again.
        case paused
        /// The request was sent before the current episode began: its 429 is that episode's.
        case sameEpisode
        /// The pause would take the stall (pauses since the last success) past the budget: give up.
        /// `waited`: the stall so far.
        case overBudget(waited: Duration)
    }

    private struct State {
        var inFlight = 0
        var cap: Int
        var successes = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var pausedUntil: ContinuousClock.Instant?
        var episode = 0
        var episodes = 0
        var waited: Duration = .zero
        /// Pauses since the last successful answer: what `waitBudget` bounds.
        var stalled: Duration = .zero
        /// Set once: every later `acquire` throws it (a wait past the budget, the request limit).
        var stopped: RequestsStopped?
        /// Slots handed out so far, and the most this process may hand out (`--max-requests`).
        var granted = 0
        var limit: Int?
    }

    private enum Step {
        case go(Int)
        case stop(RequestsStopped)
        case sleep(until: ContinuousClock.Instant)
        case wait
    }

    public let maxConcurrent: Int
    public let waitBudget: Duration
    private let state: Locked<State>
    private let clock = ContinuousClock()
    /// What "now" is for pauses (tests move it by hand; a pause still in force sleeps on the real clock).
    private let now: @Sendable () -> ContinuousClock.Instant

    public convenience init(maxConcurrent: Int = RateBudget.defaultMaxConcurrent, waitBudget: Duration = RateBudget.defaultWaitBudget) {
        self.init(maxConcurrent: maxConcurrent, waitBudget: waitBudget, now: { ContinuousClock.now })
    }

    init(maxConcurrent: Int, waitBudget: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.waitBudget = max(.zero, waitBudget)
        self.now = now
        state = Locked(State(cap: max(1, maxConcurrent)))
    }

    /// Waits out any pause, then takes a slot under the current cap. Pair with `release(_:succeeded:)`.
    @discardableResult
    public func acquire() async throws -> Ticket {
        while true {
            let now = self.now()
            let step = state.withLock { state -> Step in
                if let stopped = state.stopped { return .stop(stopped) }
                if let limit = state.limit, state.granted >= limit {
                    let stopped = RequestsStopped(.limit(limit))
                    state.stopped = stopped
                    return .stop(stopped)
                }
                if let until = state.pausedUntil, until > now { return .sleep(until: until) }
                if state.inFlight < state.cap {
                    state.inFlight += 1
                    state.granted += 1
                    return .go(state.episode)
                }
                return .wait
            }
            switch step {
            case .go(let episode):
                return Ticket(episode: episode)
            case .stop(let stopped):
                wakeAll()
                throw stopped
            case .sleep(let until):
                // In short steps, so a stop while paused ends this request at once.
                try await clock.sleep(until: min(until, clock.now + Self.stopCheckInterval))
            case .wait:
                // Checked again under the lock: a slot released since the look above must not be missed.
                await withCheckedContinuation { continuation in
                    let free = state.withLock { state -> Bool in
                        if state.inFlight < state.cap || state.stopped != nil { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if free { continuation.resume() }
                }
            }
        }
    }

    /// How often a request paused by a 429 looks whether the process was stopped meanwhile.
    static let stopCheckInterval: Duration = .milliseconds(100)

    /// Stops every request not yet sent, those waiting for a slot or a pause included: each
    /// `acquire` from now on throws `stopped` (the first stop is kept).
    public func stop(_ stopped: RequestsStopped) {
        state.withLock { state in
            if state.stopped == nil { state.stopped = stopped }
        }
        wakeAll()
    }

    /// Why requests are stopped, if they are.
    public var stopped: RequestsStopped? { state.withLock { $0.stopped } }

    /// Lets `count` more requests go out, then stops (`--max-requests`).
    public func limitRequests(to count: Int) {
        state.withLock { state in state.limit = state.granted + max(0, count) }
    }

    /// Requests given a slot so far (retries included).
    public var granted: Int { state.withLock { $0.granted } }

    private func wakeAll() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns a slot. A success ends any stall and counts toward growing the cap back.
    public func release(succeeded: Bool = false) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight = max(0, state.inFlight - 1)
            if succeeded { state.stalled = .zero }
            if succeeded, state.cap < maxConcurrent {
                state.successes += 1
                if state.successes >= Self.successesToGrow {
                    state.cap += 1
                    state.successes = 0
                }
            }
            // Wake as many as there are free slots (a grown cap frees one more).
            var woken: [CheckedContinuation<Void, Never>] = []
            while !state.waiters.isEmpty, state.inFlight + woken.count < state.cap {
                woken.append(state.waiters.removeFirst())
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// A 429 for the request sent with `ticket`, asking to wait `duration`. Only the part of the
    /// pause that goes past the one already in force is added to the stall and the total waited.
    public func rateLimited(_ ticket: Ticket, wait duration: Duration) -> PauseOutcome {
        let now = self.now()
        return state.withLock { state -> PauseOutcome in
            if ticket.episode < state.episode { return .sameEpisode }
            let until = now + duration
            let from = max(now, state.pausedUntil ?? now)
            let added = until > from ? until - from : .zero
            if state.stalled + added > waitBudget { return .overBudget(waited: state.stalled) }
            state.stalled += added
            state.waited += added
            if added > .zero { state.pausedUntil = until }
            state.episode += 1
            state.episodes += 1
            state.cap = max(1, state.cap / 2)
            state.successes = 0
            return .paused
        }
    }

    /// Pauses every request that has not been sent yet for `duration` (counted as waited).
    public func pause(for duration: Duration) {
        _ = rateLimited(Ticket(episode: state.withLock { $0.episode }), wait: duration)
    }

    /// How long new requests still have to wait (for status displays).
    public var remainingPause: Duration? {
        guard let until = state.withLock({ $0.pausedUntil }) else { return nil }
        let left = until - self.now()
        return left > .zero ? left : nil
    }

    /// Time spent (or being spent) in rate-limit pauses so far, in all.
    public var waited: Duration { state.withLock { $0.waited } }

    /// Pauses since the last successful answer (what `waitBudget` bounds).
    public var stalled: Duration { state.withLock { $0.stalled } }

    /// Rate-limit episodes so far.
    public var episodes: Int { state.withLock { $0.episodes } }

    /// The in-flight cap now (halved by episodes, regrown by successes).
    public var currentCap: Int { state.withLock { $0.cap } }
}
