/// One budget shared by every request of a process: a cap on requests in flight, and a pause that
/// a 429 imposes on all of them (Spotify's rate limit is per app, not per request).
public actor RateBudget {
    /// Requests handed to the transport at once by default: twice the connections it keeps per
    /// host (`CurlTransport.connectionsPerHost`, what the server sees in flight). curl starts a
    /// waiting request on its own thread the moment a connection is free; when each next request
    /// had to come from the task pool — a task resumed, this actor released and resumed the next
    /// waiter, all behind page decoding — connections sat idle in between (full sync −3 to −8 %
    /// wall time with 32, A/B medians of 10–16).
    public static let defaultMaxConcurrent = 2 * CurlTransport.connectionsPerHost

    public let maxConcurrent: Int
    private var inFlight = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var pausedUntil: ContinuousClock.Instant?
    private let clock = ContinuousClock()

    public init(maxConcurrent: Int = RateBudget.defaultMaxConcurrent) {
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// Waits out any pause, then takes a slot. Pair with `release()`.
    public func acquire() async throws {
        while true {
            if let until = pausedUntil, until > clock.now {
                try await clock.sleep(until: until)
                continue
            }
            if inFlight < maxConcurrent {
                inFlight += 1
                return
            }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    public func release() {
        inFlight = max(0, inFlight - 1)
        if !waiters.isEmpty { waiters.removeFirst().resume() }
    }

    /// Pauses every request that has not been sent yet for `duration`.
    public func pause(for duration: Duration) {
        let until = clock.now + duration
        if let current = pausedUntil, current >= until { return }
        pausedUntil = until
    }

    /// How long new requests still have to wait (for status displays).
    public var remainingPause: Duration? {
        guard let until = pausedUntil else { return nil }
        let left = until - clock.now
        return left > .zero ? left : nil
    }
}
