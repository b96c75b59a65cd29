import Foundation
import TimbreCore
import TimbreNet

/// `timbre quota`: the requests the profile's processes sent to Spotify in the last 24 hours, by
/// kind, the wait Spotify asked for (kept until then: nothing is sent before it), and the last
/// rate-limit answer. `--reset` forgets the stored wait (the user changed `client_id`, or knows better).
public struct QuotaCommand: Sendable {
    public var json: Bool
    public var reset: Bool

    public init(json: Bool, reset: Bool) {
        self.json = json
        self.reset = reset
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let ledger = context.requestLedger()
        if reset { try await ledger.reset() }
        let report = QuotaReport(ledger: ledger, now: Date())
        if json {
            context.console.json(report.json)
        } else {
            if reset { context.console.say("the stored wait is forgotten: the next command sends its requests") }
            context.console.lines(report.lines)
        }
        return .success
    }
}

/// What `timbre quota` and `timbre doctor` say about the profile's requests.
struct QuotaReport {
    var counts: [RequestKind: Int]
    var stop: RequestsStopped?
    var last429: RequestLedger.Last429?
    var now: Date

    init(ledger: RequestLedger, now: Date) {
        counts = ledger.counts(now: now)
        stop = ledger.storedStop(now: now)
        last429 = ledger.state().last429
        self.now = now
    }

    var total: Int { counts.values.reduce(0, +) }

    /// `{"last_24h", "by_kind", "blocked_until", "last_429"}` (docs/CLI.md).
    var json: JSONValue {
        .object([
            ("last_24h", .int(total)),
            ("by_kind", .object(RequestKind.allCases.map { ($0.rawValue, .int(counts[$0] ?? 0)) })),
            ("blocked_until", stop?.until.map { .string($0.iso8601) } ?? .null),
            (
                "last_429",
                last429.map { last in
                    .object([
                        ("at", .string(Date(timeIntervalSince1970: last.at).iso8601)),
                        ("retry_after", last.retryAfter.map(JSONValue.int) ?? .null), ("quota", .bool(last.quota)),
                    ])
                } ?? .null
            ),
        ])
    }

    var lines: [String] {
        let kinds = RequestKind.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
        var lines = ["requests in the last 24 h: \(total) (\(kinds))"]
        if let stop {
            lines.append("waiting: \(stop.message)")
        } else {
            lines.append("waiting: no (requests are sent)")
        }
        if let last429 {
            let at = Date(timeIntervalSince1970: last429.at)
            let after = last429.retryAfter.map { "Retry-After \($0) s" } ?? "no Retry-After"
            lines.append("last 429: \(ClockText.localDateTime(at)), \(after)\(last429.quota ? ", QUOTA_EXCEEDED" : "")")
        } else {
            lines.append("last 429: none")
        }
        return lines
    }

    /// `timbre doctor`'s line.
    var doctorLine: String {
        let head = "\(total) requests in the last 24 h"
        guard let stop else { return head + "; no wait stored" }
        return head + "; " + stop.message
    }
}
