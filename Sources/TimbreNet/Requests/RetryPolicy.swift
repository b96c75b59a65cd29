import Foundation

/// Bounded exponential backoff with jitter for transient failures (5xx, dropped connections,
/// unreadable bodies), and the reading of `Retry-After`.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt for transient failures (so at most `maxRetries + 1` sends).
    /// Rate limits are not counted here: they are bounded by the shared `RateBudget`'s wait budget.
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// 401s answered to ever newer tokens that one request accepts before it gives up: enough for
    /// every request in flight to see the tokens refreshed for the others die first.
    public var maxReauthorizations: Int

    public init(
        maxRetries: Int = 6, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
        maxReauthorizations: Int = 16
    ) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxReauthorizations = maxReauthorizations
    }

    public static let `default` = RetryPolicy()

    /// Delay before retry number `retry` (0-based): base·2^retry capped at maxDelay, then scaled by
    /// a jitter factor in [0.5, 1] so concurrent clients do not retry in lockstep.
    public func delay(beforeRetry retry: Int, jitter: Double) -> Duration {
        let exponent = min(max(retry, 0), 30)
        let raw = baseDelay * (1 << exponent)
        let capped = min(raw, maxDelay)
        let factor = 0.5 + 0.5 * min(max(jitter.isFinite ? jitter : 1, 0), 1)
        return capped * factor
    }

    /// The longest `Retry-After` taken at its word; anything longer (`1e19`, a date years ahead)
    /// reads as this, which is past any wait budget and so ends the command with a sentence.
    public static let longestRetryAfter: Duration = .seconds(86_400)
    /// `Retry-After: 0` still pauses this long, so a server answering 429 with 0 again and again
    /// cannot turn the retries into a busy loop that no time budget would ever stop.
    public static let shortestRetryAfter: Duration = .milliseconds(500)

    /// Parses `Retry-After` as delta-seconds (what Spotify sends); an HTTP date is accepted too.
    /// Missing, negative or unreadable: one second. Clamped to [shortest, longest] before any
    /// conversion, so no value can trap.
    public static func retryAfter(_ header: String?, now: Date = Date()) -> Duration {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .seconds(1) }
        let longest = Double(longestRetryAfter.components.seconds)
        func clamped(_ seconds: Double) -> Duration {
            guard seconds.isFinite, seconds >= 0 else { return .seconds(1) }
            return max(shortestRetryAfter, .milliseconds(Int64((min(seconds, longest) * 1000).rounded(.up))))
        }
        if text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E") }) {
            return Double(text).map(clamped) ?? .seconds(1)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        if let date = formatter.date(from: text) {
            return clamped(max(0, date.timeIntervalSince(now)))
        }
        return .seconds(1)
    }
}
