import Foundation
import Logging
import TimbreCore

/// Sends requests through a transport with Spotify's rules applied: a shared rate budget (a 429
/// pauses everyone for `Retry-After`), bounded exponential backoff with jitter for 5xx and dropped
/// connections, typed errors for everything else, and a redacted debug log.
public final class RequestExecutor: Sendable {
    public let transport: any HTTPTransport
    public let budget: RateBudget
    public let policy: RetryPolicy
    private let logger: Logger
    private let jitter: @Sendable () -> Double
    private let counter = Locked(0)
    /// The profile's count of requests and its stored wait (nil: neither counted nor checked).
    public let ledger: RequestLedger?

    public init(
        transport: any HTTPTransport, budget: RateBudget = RateBudget(), policy: RetryPolicy = .default,
        logger: Logger = Logger(label: "timbre.http"), jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        ledger: RequestLedger? = nil
    ) {
        self.transport = transport
        self.budget = budget
        self.policy = policy
        self.logger = logger
        self.jitter = jitter
        self.ledger = ledger
    }

    /// Throws when no request may be sent now: this process was stopped, or a wait stored by any
    /// process of the profile is still in force. Commands call it before anything else, so one
    /// that would talk to Spotify says so without a request (and writes nothing of its own).
    public func checkMaySend(now: Date = Date()) throws {
        if let stopped = budget.stopped { throw stopped }
        if let stored = ledger?.storedStop(now: now) {
            budget.stop(stored)
            throw stored
        }
    }

    /// How many HTTP requests were actually sent (retries included).
    public var requestsSent: Int { counter.current }

    /// Returns a 2xx response, or throws `SpotifyError`, `TransportError` or `CancellationError`.
    ///
    /// 429s wait under the shared budget (one pause for everyone, bounded by the longest stall
    /// it accepts without a successful answer, not by a count per request); 5xx and dropped connections back off with jitter up
    /// to `policy.maxRetries` times; a non-idempotent request is resent only when it cannot have
    /// reached the server.
    ///
    /// `signer` authenticates each attempt just before it goes out (a bearer token, an API key,
    /// an HMAC signature with a fresh timestamp); the executor does not know which it is.
    public func send(_ request: HTTPRequest, signer: (any RequestSigner)? = nil) async throws -> HTTPResponse {
        // Built only when a log line or a retry needs it: redaction is regex work on every request otherwise.
        let label = { "\(request.method.rawValue) \(Self.describe(request.url))" }
        var retries = 0
        while true {
            try Task.checkCancellation()
            let ticket = try await budget.acquire()
            // Another process of the profile may have been told to wait since the last request.
            if let stored = ledger?.storedStop() {
                budget.stop(stored)
                budget.release()
                throw stored
            }
            let started = ContinuousClock.now
            let outcome: Result<HTTPResponse, any Error>
            do {
                let outgoing = try signer?.sign(request) ?? request
                counter.withLock { $0 += 1 }
                ledger?.sent(RequestKind.of(request))
                logger.debug("→ \(label())")
                outcome = .success(try await transport.send(outgoing))
            } catch {
                outcome = .failure(error)
            }
            if case .success(let response) = outcome, (200..<300).contains(response.status) {
                budget.release(succeeded: true)
            } else {
                budget.release()
            }
            let elapsed = ContinuousClock.now - started

            switch outcome {
            case .success(let response) where (200..<300).contains(response.status):
                logger.debug("← \(response.status) \(label()) \(response.body.count) bytes in \(elapsed.milliseconds) ms")
                return response

            case .success(let response) where response.status == 429:
                // Sent before another request stopped the process: this answer is that stop's.
                if let stopped = budget.stopped { throw stopped }
                let wait = RetryPolicy.retryAfter(response.header("retry-after"))
                if let stop = await stopIfLong(response, wait: wait, label: label()) { throw stop }
                switch budget.rateLimited(ticket, wait: wait) {
                case .paused:
                    // One record per episode, not per answer: 429s of requests in flight are the same one.
                    let given = response.header("retry-after").map { _ in Int(wait.components.seconds) }
                    await ledger?.rateLimited(at: Date(), retryAfter: given, quota: false, stop: nil)
                    logger.notice("rate limited: pausing all requests", metadata: ["wait_ms": "\(wait.milliseconds)", "request": "\(label())"])
                case .sameEpisode:
                    break
                case .overBudget(let waited):
                    throw SpotifyError.rateLimited(
                        retryAfterSeconds: Int(wait.components.seconds), waitedSeconds: Int(waited.components.seconds),
                        budgetSeconds: Int(budget.waitBudget.components.seconds), path: Self.path(request.url))
                }

            case .success(let response) where (500..<600).contains(response.status):
                // A 5xx does not say the write was not applied (Spotify may have done it and then failed).
                guard !request.reconciles else {
                    throw WriteOutcomeUnknown(path: Self.path(request.url), reason: "HTTP \(response.status)")
                }
                guard retries < policy.maxRetries else {
                    throw SpotifyError.serverUnavailable(status: response.status, attempts: retries + 1, path: Self.path(request.url))
                }
                try await backOff(&retries, reason: "\(response.status)", label: label())

            case .success(let response):
                let error = SpotifyError.decode(response, path: Self.path(request.url))
                logger.debug("← \(response.status) \(label()): \(error.message)")
                throw error

            case .failure(let error as TransportError) where error.isRetryable && Self.mayResend(request, after: error):
                guard retries < policy.maxRetries else { throw error }
                try await backOff(&retries, reason: error.message, label: label())

            case .failure(let error as TransportError) where request.reconciles && Self.mayHaveArrived(error):
                throw WriteOutcomeUnknown(path: Self.path(request.url), reason: error.message)

            case .failure(let error):
                if let error = error as? TransportError { logger.debug("✗ \(label()): \(error.message)") }
                throw error
            }
        }
    }

    /// A 429 whose `Retry-After` exceeds the wait budget, or that names `QUOTA_EXCEEDED`: stops
    /// every request of the process at once and stores the wait for the profile (and the 429 as its
    /// last one). Any other 429: nil (the budget pauses for it).
    private func stopIfLong(_ response: HTTPResponse, wait: Duration, label: String) async -> RequestsStopped? {
        let now = Date()
        let quota = SpotifyError.namesQuota(response)
        let header = response.header("retry-after")?.trimmingCharacters(in: .whitespaces)
        let given = header.flatMap { $0.isEmpty ? nil : Int(wait.components.seconds) }
        guard quota || wait > budget.waitBudget else { return nil }
        let seconds = Double(given ?? RequestsStopped.defaultQuotaWait)
        let stop = RequestsStopped(
            .wait(until: now.addingTimeInterval(seconds), quota: quota, given: given, budget: Int(budget.waitBudget.components.seconds)), at: now)
        budget.stop(stop)
        logger.notice(
            "rate limited past the budget: stopping every request", metadata: ["wait_s": "\(Int(seconds))", "quota": "\(quota)", "request": "\(label)"])
        await ledger?.rateLimited(at: now, retryAfter: given, quota: quota, stop: stop)
        return stop
    }

    /// Waits before the next attempt at something that failed transiently (`attempt` 0-based),
    /// for callers that retry above the executor (an unreadable body).
    public func backOff(attempt: Int) async throws {
        try await Task.sleep(for: policy.delay(beforeRetry: attempt, jitter: jitter()))
    }

    private func backOff(_ retries: inout Int, reason: String, label: String) async throws {
        let delay = policy.delay(beforeRetry: retries, jitter: jitter())
        retries += 1
        logger.info("retrying", metadata: ["request": "\(label)", "reason": "\(reason)", "attempt": "\(retries + 1)", "delay_ms": "\(delay.milliseconds)"])
        try await Task.sleep(for: delay)
    }

    /// A request that must not be repeated (a token exchange, a playlist write) is resent only
    /// when it cannot have reached the server.
    private static func mayResend(_ request: HTTPRequest, after error: TransportError) -> Bool {
        if request.repeatable { return true }
        return !mayHaveArrived(error)
    }

    /// Whether the server may have received (and acted on) the request before `error`: anything
    /// but a connection that was never made.
    static func mayHaveArrived(_ error: TransportError) -> Bool {
        guard case .connection(_, let kind, _) = error else { return false }
        return kind != .refused && kind != .dns && kind != .tls
    }

    /// Host and path for logs and messages: the query may hold codes and is left out. The path is
    /// percent-decoded and may come from the server (a `next` link): its control bytes are made
    /// visible here, before any message or log line holds them.
    static func path(_ url: URL) -> String { url.path.isEmpty ? "/" : TerminalText.sanitize(url.path) }

    static func describe(_ url: URL) -> String {
        Redactor.redact(url.absoluteString)
    }
}
