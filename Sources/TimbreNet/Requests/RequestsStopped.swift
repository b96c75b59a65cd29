import Foundation
import TimbreCore

/// Why a process sends no more requests: Spotify asked it to wait longer than it accepts (a
/// `Retry-After` past `rate_limit_budget`, or the daily quota's `QUOTA_EXCEEDED`), now or in an
/// earlier run of the profile (the wait is stored), or the command's own `--max-requests`.
///
/// Every request of the process, those waiting on the rate budget included, ends with this one
/// error; nothing is sent after it.
public struct RequestsStopped: UserFacingError, Equatable {
    public enum Reason: Sendable, Equatable {
        /// Spotify's wait, until `until`. `quota`: the 429 named `QUOTA_EXCEEDED`. `given`: the
        /// `Retry-After` it sent (nil: none, timbre waits `RequestsStopped.defaultQuotaWait`).
        /// `budget`: `rate_limit_budget`, which the wait exceeded.
        case wait(until: Date, quota: Bool, given: Int?, budget: Int)
        /// `--max-requests N`: N requests were sent.
        case limit(Int)
    }

    /// A `QUOTA_EXCEEDED` answer without a `Retry-After`: how long timbre waits before it asks
    /// again. Spotify's quota answers seen in 2026 asked for 13–22 h; an hour costs one refused
    /// request an hour when the quota is back sooner.
    public static let defaultQuotaWait = 3_600

    public var reason: Reason
    /// When the sentence is said: the wait is counted from here.
    public var at: Date
    public var exitStatus: ExitStatus

    public init(_ reason: Reason, at: Date = Date(), exitStatus: ExitStatus? = nil) {
        self.reason = reason
        self.at = at
        if let exitStatus {
            self.exitStatus = exitStatus
        } else if case .limit = reason {
            self.exitStatus = .partial
        } else {
            self.exitStatus = .failure
        }
    }

    /// The same stop, as a sync ends with it: exit 3 (what was read is stored; the next sync goes on).
    public var forSync: RequestsStopped { RequestsStopped(reason, at: at, exitStatus: .partial) }

    /// The stored wait still in force at `now`, said from `now`.
    public func said(at now: Date) -> RequestsStopped { RequestsStopped(reason, at: now, exitStatus: exitStatus) }

    /// When requests may be sent again (nil for a request limit).
    public var until: Date? {
        if case .wait(let until, _, _, _) = reason { return until }
        return nil
    }

    public var message: String {
        switch reason {
        case .wait(let until, let quota, let given, let budget):
            let why: String
            if quota {
                why =
                    given == nil
                    ? "its daily request quota is used up (QUOTA_EXCEEDED, no time given: timbre waits \(Self.duration(TimeInterval(Self.defaultQuotaWait))))"
                    : "its daily request quota is used up (QUOTA_EXCEEDED)"
            } else {
                why = "longer than rate_limit_budget, \(budget) s"
            }
            return
                "Spotify asks timbre to wait \(Self.duration(until.timeIntervalSince(at))), until \(Self.clock(until, from: at)) (\(why)); nothing is sent before then"
        case .limit(let count):
            return "stopped at the request limit (\(count) \(count == 1 ? "request" : "requests"), --max-requests)"
        }
    }

    public var hint: String? {
        switch reason {
        case .wait:
            return
                "`timbre sync` then goes on where this one stopped; `timbre quota` shows the requests of the last 24 h; `timbre quota --reset` forgets the wait (after changing client_id)"
        case .limit:
            return "what was read is stored; the next `timbre sync` goes on from there"
        }
    }

    /// "45 s", "25 min", "13 h 53 min": a wait as a person reads it.
    static func duration(_ interval: TimeInterval) -> String {
        let seconds = max(0, Int(interval.rounded(.up)))
        if seconds < 120 { return "\(seconds) s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60, rest = minutes % 60
        return rest == 0 ? "\(hours) h" : "\(hours) h \(rest) min"
    }

    /// `22:26` when that is today (local time), else `2026-11-23 22:26`.
    static func clock(_ date: Date, from now: Date) -> String {
        let day = ClockText.localDateTime(date), today = ClockText.localDateTime(now)
        return day.prefix(10) == today.prefix(10) ? ClockText.localTime(date) : day
    }
}
