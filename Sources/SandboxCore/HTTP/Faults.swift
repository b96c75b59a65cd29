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
    }

    public var kind: Kind
    /// Substring of `path?query` the request must contain; nil matches everything but control calls.
    public var pathContains: String?
    /// How many matching requests it affects (default 1).
    public var count: Int?
    public var status: Int?
    public var retryAfter: Int?
    public var playlist: String?
    /// `zero` or `keep`, for `empty_items`.
    public var total: String?
    public var ms: Int?

    enum CodingKeys: String, CodingKey {
        case kind, count, status, playlist, total, ms
        case pathContains = "path_contains"
        case retryAfter = "retry_after"
    }

    public init(kind: Kind, pathContains: String? = nil, count: Int? = nil, status: Int? = nil,
                retryAfter: Int? = nil, playlist: String? = nil, total: String? = nil, ms: Int? = nil) {
        self.kind = kind
        self.pathContains = pathContains
        self.count = count
        self.status = status
        self.retryAfter = retryAfter
        self.playlist = playlist
        self.total = total
        self.ms = ms
    }

    func matches(target: String, path: String) -> Bool {
        if let pathContains, !target.contains(pathContains) { return false }
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
    var fault: Fault?
}

struct FaultQueue {
    private(set) var pending: [Fault] = []

    mutating func append(_ faults: [Fault]) {
        pending += faults.filter { ($0.count ?? 1) > 0 }
    }

    mutating func clear() { pending.removeAll() }

    /// Consumes the latency faults and the first other fault that match.
    mutating func take(target: String, path: String) -> FaultDecision {
        var decision = FaultDecision()
        var index = 0
        while index < pending.count {
            let fault = pending[index]
            let applies = fault.matches(target: target, path: path) && (fault.kind == .latency || decision.fault == nil)
            guard applies else {
                index += 1
                continue
            }
            if fault.kind == .latency {
                decision.delayMilliseconds += fault.ms ?? 1_000
            } else {
                decision.fault = fault
            }
            let remaining = (fault.count ?? 1) - 1
            if remaining <= 0 {
                pending.remove(at: index)
            } else {
                pending[index].count = remaining
                index += 1
            }
        }
        return decision
    }
}
