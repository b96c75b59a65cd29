import Foundation

/// Bounded exponential backoff with jitter for 5xx answers and dropped connections.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt (so at most `maxRetries + 1` sends).
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// The longest `Retry-After` timbre waits out; longer answers surface as an error.
    public var maxRetryAfter: Duration
    /// How many 429 answers one request may wait out before giving up.
    public var maxRateLimitWaits: Int

    public init(maxRetries: Int = 4, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
                maxRetryAfter: Duration = .seconds(120), maxRateLimitWaits: Int = 8) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.maxRateLimitWaits = maxRateLimitWaits
    }

    public static let `default` = RetryPolicy()

    /// Delay before retry number `retry` (0-based): base·2^retry capped at maxDelay, then scaled by
    /// a jitter factor in [0.5, 1] so concurrent clients do not retry in lockstep.
    public func delay(beforeRetry retry: Int, jitter: Double) -> Duration {
        let exponent = min(retry, 30)
        let raw = baseDelay * (1 << exponent)
        let capped = min(raw, maxDelay)
        let factor = 0.5 + 0.5 * min(max(jitter, 0), 1)
        return capped * factor
    }

    /// Parses `Retry-After` as delta-seconds (what Spotify sends); an HTTP date is accepted too.
    /// Missing or unreadable: one second.
    public static func retryAfter(_ header: String?, now: Date = Date()) -> Duration {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .seconds(1) }
        if let seconds = Int(text) { return .seconds(max(0, seconds)) }
        if let seconds = Double(text), seconds.isFinite { return .milliseconds(Int(max(0, seconds) * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        if let date = formatter.date(from: text) {
            return .milliseconds(Int(max(0, date.timeIntervalSince(now)) * 1000))
        }
        return .seconds(1)
    }
}
