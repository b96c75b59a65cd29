import Foundation

/// A one-shot or n-shot failure injected through `POST /__sandbox/faults`.
public struct Fault: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Answer with `status` (500, 502, 503, 429 + `retry_after`).
        case status
        /// Send the headers and part of the body, then drop the connection.
        case reset
        /// 200 with a truncated JSON body.
        case malformed
        /// An items page of `playlist` with `items: []` and `total` zero or kept.
        case emptyItems = "empty_items"
        /// Delay the answer by `ms`.
        case latency
        /// Handle the request (a write is applied to the library), then drop the connection
        /// without sending a byte of the answer.
        case applyThenReset = "apply_then_reset"
        /// Delete `playlist` (required) from the library, followed or not, before the matching
        /// request is handled: a playlist that vanishes in the middle of a sync. Stacks with
        /// other faults, like `latency`.
        case deletePlaylist = "delete_playlist"
        /// Hold the request `ms` (default 1,000) BEFORE handling it: a write is applied only when
        /// the hold ends, whether or not its client is still there — Spotify applies a write it
        /// received asynchronously to the connection, so a client that died meanwhile (or a
        /// recovery that read the playlist meanwhile) does not see it yet. Unlike `latency`, which
        /// delays the answer of a write already applied. Stacks with other faults.
        case hold
        /// Handle the request (a write is applied), then answer `status` (default 503) with an
        /// error body: a 5xx that does not mean "not applied".
        case applyThenStatus = "apply_then_status"
    }

    public var kind: Kind
    /// Substring of `path?query` the request must contain; nil matches everything but control calls.
    public var pathContains: String?
    /// The request method it matches (`POST`, `PUT`, `DELETE`, `GET`; any case); nil matches all.
    public var method: String?
    /// How many matching requests it affects (default 1).
    public var count: Int?
    public var status: Int?
    public var retryAfter: Int?
    public var playlist: String?
    /// `zero` or `keep`, for `empty_items`.
    public var total: String?
    public var ms: Int?
    /// Fires on every `every`-th matching request only (the 5th, 10th, …); `count` then counts firings.
    public var every: Int?
    /// With `status` 429: the firing opens a window of this many milliseconds in which every API
    /// request is answered 429 — a rate-limit storm, as Spotify's rolling window produces.
    public var windowMS: Int?
    /// Put in the error body of a `status` answer (`"reason": "QUOTA_EXCEEDED"`).
    public var reason: String?
    /// Matching requests seen so far (for `every`); not part of the control API.
    var seen = 0

    enum CodingKeys: String, CodingKey {
        case kind, count, status, playlist, total, ms, every, reason, method
        case pathContains = "path_contains"
        case retryAfter = "retry_after"
        case windowMS = "window_ms"
    }

    public init(
        kind: Kind, pathContains: String? = nil, count: Int? = nil, status: Int? = nil,
        retryAfter: Int? = nil, playlist: String? = nil, total: String? = nil, ms: Int? = nil,
        every: Int? = nil, windowMS: Int? = nil, reason: String? = nil
    ) {
        self.kind = kind
        self.pathContains = pathContains
        self.count = count
        self.status = status
        self.retryAfter = retryAfter
        self.playlist = playlist
        self.total = total
        self.ms = ms
        self.every = every
        self.windowMS = windowMS
        self.reason = reason
    }

    /// A fault that matches one request method only (`method` given, unlike the initializer above).
    public init(
        kind: Kind, method: String?, pathContains: String? = nil, count: Int? = nil, status: Int? = nil,
        retryAfter: Int? = nil, reason: String? = nil
    ) {
        self.init(kind: kind, pathContains: pathContains, count: count, status: status, retryAfter: retryAfter, reason: reason)
        self.method = method
    }

    public static func == (a: Fault, b: Fault) -> Bool {
        a.kind == b.kind && a.pathContains == b.pathContains && a.count == b.count && a.status == b.status
            && a.retryAfter == b.retryAfter && a.playlist == b.playlist && a.total == b.total && a.ms == b.ms
            && a.every == b.every && a.windowMS == b.windowMS && a.reason == b.reason && a.method == b.method
    }

    func matches(target: String, path: String, method requestMethod: String) -> Bool {
        if let pathContains, !target.contains(pathContains) { return false }
        if let method, method.uppercased() != requestMethod.uppercased() { return false }
        if kind == .emptyItems {
            guard let playlist, path.hasPrefix("/v1/playlists/\(playlist)/") else { return false }
        }
        return true
    }

    static func statusMessage(_ status: Int) -> String {
        switch status {
        case 429: return "API rate limit exceeded"
        case 500: return "Server error"
        case 502: return "Bad gateway"
        case 503: return "Service unavailable"
        default: return "Error"
        }
    }
}

/// What the faults chose for one request.
struct FaultDecision {
    var delayMilliseconds = 0
    /// `hold`: how long the request waits before it is handled.
    var holdMilliseconds = 0
    /// Playlists `delete_playlist` faults remove before the request is handled.
    var deletions: [String] = []
    var fault: Fault?
}

struct FaultQueue {
    private(set) var pending: [Fault] = []
    /// An open rate-limit window: until when, and the fault that opened it.
    private var window: (until: Date, fault: Fault)?

    mutating func append(_ faults: [Fault]) {
        pending += faults.filter { ($0.count ?? 1) > 0 && ($0.every ?? 1) > 0 }
    }

    mutating func clear() {
        pending.removeAll()
        window = nil
    }

    /// Consumes the latency faults and the first other fault that match. Inside an open
    /// rate-limit window every API request gets the window's 429, and counts toward no `every`.
    mutating func take(target: String, path: String, method: String = "GET", now: Date = Date()) -> FaultDecision {
        var decision = FaultDecision()
        if let open = window {
            if now < open.until, path.hasPrefix("/v1") {
                var fault = open.fault
                // What Spotify sends: the seconds left, rounded up.
                fault.retryAfter = fault.retryAfter ?? max(1, Int(open.until.timeIntervalSince(now).rounded(.up)))
                decision.fault = fault
                return decision
            }
            if now >= open.until { window = nil }
        }
        var index = 0
        while index < pending.count {
            let fault = pending[index]
            // Holds are taken before the request is handled (`takeHolds`), not here.
            if fault.kind == .hold {
                index += 1
                continue
            }
            let stacks = fault.kind == .latency || fault.kind == .deletePlaylist
            guard takes(index, fault.matches(target: target, path: path, method: method) && (stacks || decision.fault == nil)) else {
                index += 1
                continue
            }
            if fault.kind == .status, fault.status == 429, let windowMS = fault.windowMS, windowMS > 0 {
                let until = now.addingTimeInterval(Double(windowMS) / 1_000)
                window = (until, fault)
                var opened = fault
                opened.retryAfter = fault.retryAfter ?? max(1, Int((Double(windowMS) / 1_000).rounded(.up)))
                decision.fault = opened
                index = spend(index)
                continue
            }
            if fault.kind == .latency {
                decision.delayMilliseconds += fault.ms ?? 1_000
            } else if fault.kind == .deletePlaylist {
                if let playlist = fault.playlist { decision.deletions.append(playlist) }
            } else {
                decision.fault = fault
            }
            index = spend(index)
        }
        return decision
    }

    /// Consumes the `hold` faults that match: the milliseconds to hold the request before it is
    /// handled (they add up).
    mutating func takeHolds(target: String, path: String, method: String) -> Int {
        var total = 0
        var index = 0
        while index < pending.count {
            let fault = pending[index]
            guard takes(index, fault.kind == .hold && fault.matches(target: target, path: path, method: method)) else {
                index += 1
                continue
            }
            total += fault.ms ?? 1_000
            index = spend(index)
        }
        return total
    }

    /// Whether the fault at `index` takes this request: it `matches`, and (with `every`) this is
    /// its every-th match.
    private mutating func takes(_ index: Int, _ matches: Bool) -> Bool {
        guard matches else { return false }
        guard let every = pending[index].every else { return true }
        pending[index].seen += 1
        return pending[index].seen % every == 0
    }

    /// Spends one use of the fault at `index` (gone after its last): the next index to look at.
    private mutating func spend(_ index: Int) -> Int {
        let remaining = (pending[index].count ?? 1) - 1
        if remaining <= 0 {
            pending.remove(at: index)
            return index
        }
        pending[index].count = remaining
        return index + 1
    }
}
