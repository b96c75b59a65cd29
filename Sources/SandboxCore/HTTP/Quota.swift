import Foundation

/// The sandbox clock: the wall clock (the `now` a request is handled at) plus an offset that
/// `POST /__sandbox/clock?advance_ms=N` moves forward, or, frozen, a fixed moment plus the offset.
/// The player and the daily quota run on it, so tests move time instead of waiting.
struct SandboxClock: Sendable {
    var offsetMs: Int64 = 0
    /// While frozen, the wall-clock moment it stopped at (ms since 1970).
    var frozenAtMs: Int64?

    func milliseconds(at now: Date) -> Int64 {
        (frozenAtMs ?? Self.ms(now)) + offsetMs
    }

    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000).rounded(.down)) }
}

/// Spotify's daily request quota for development-mode apps (`--daily-quota N`): after `limit`
/// Web API requests in a sandbox day every `/v1` request answers 429 until the day ends. Days are
/// consecutive windows of `daySeconds` on the sandbox clock; the first opens with the first API
/// request, the next with the first request after it ended.
struct QuotaState: Sendable {
    var limit: Int?
    var reason: Bool
    var daySeconds: Int
    /// Sandbox ms when the current day began; nil before the first request.
    var dayStart: Int64?
    /// Days that ended since the sandbox started.
    var day = 0
    /// Requests answered (counted) in the current day, and refused with the quota's 429.
    var used = 0
    var refused = 0
    /// Counted requests over all days.
    var total = 0

    init(limit: Int?, reason: Bool, daySeconds: Int) {
        self.limit = limit
        self.reason = reason
        self.daySeconds = max(1, daySeconds)
    }

    /// Starts a new day when the current one is over.
    mutating func roll(to now: Int64) {
        let length = Int64(daySeconds) * 1_000
        guard let start = dayStart else {
            dayStart = now
            return
        }
        if now >= start + length {
            day += Int((now - start) / length)
            dayStart = now
            used = 0
            refused = 0
        }
    }

    func secondsLeft(at now: Int64) -> Int {
        guard let start = dayStart else { return daySeconds }
        let left = start + Int64(daySeconds) * 1_000 - now
        return max(1, Int((left + 999) / 1_000))
    }

    func json(at now: Int64) -> JSONValue {
        .object([
            ("limit", limit.map { JSONValue.int($0) } ?? .null),
            ("used", .int(used)),
            ("refused", .int(refused)),
            ("total", .int(total)),
            ("day", .int(day)),
            ("day_seconds", .int(daySeconds)),
            ("day_started_at", dayStart.map { JSONValue.string(ISODate.formatMilliseconds(ms: $0)) } ?? .null),
            ("seconds_left", .int(secondsLeft(at: now))),
            ("reason", .bool(reason)),
        ])
    }
}

extension ISODate {
    /// `2026-05-28T20:26:40.123Z` from milliseconds since 1970, without a round trip through a
    /// floating-point `Date` (which can lose the last millisecond).
    static func formatMilliseconds(ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1_000 : (ms - 999) / 1_000
        let fraction = String(ms - seconds * 1_000)
        return String(format(seconds).dropLast()) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }
}

extension SandboxService {
    /// Counts one Web API request against the day's quota; the 429 to send once it is spent.
    /// Requests refused by the quota do not count toward it (they count as `refused`).
    func chargeQuota(now: Date) -> SandboxResponse? {
        withState { s in
            let time = s.clock.milliseconds(at: now)
            s.quota.roll(to: time)
            guard let limit = s.quota.limit, s.quota.used >= limit else {
                s.quota.used += 1
                s.quota.total += 1
                return nil
            }
            s.quota.refused += 1
            let retryAfter = [("Retry-After", String(s.quota.secondsLeft(at: time)))]
            // Since July 2026 Spotify's quota answer names its reason (and says "Too many requests");
            // without `--quota-reason`, the rate-limit answer apps saw before.
            return s.quota.reason
                ? .apiError(429, "Too many requests", headers: retryAfter, reason: "QUOTA_EXCEEDED")
                : .apiError(429, "API rate limit exceeded", headers: retryAfter)
        }
    }
}
