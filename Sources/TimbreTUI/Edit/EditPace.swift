import Foundation
import TimbreLibrary

/// The time an edit's writes have left, from the pace of those confirmed so far (Spotify's pace,
/// `OrderCost.writesPerSecond`, until two progress reports give one): "≈ 18 s left".
struct EditPace {
    private var first: (at: ContinuousClock.Instant, done: Int)?

    /// A new edit: no pace known.
    mutating func reset() { first = nil }

    /// `done` of `total` writes confirmed at `now`: the words for the time left, or nil when none is.
    mutating func left(done: Int, total: Int, now: ContinuousClock.Instant = .now) -> String? {
        let remaining = total - done
        guard remaining > 0 else { return nil }
        guard let first, done > first.done else {
            if first == nil { first = (now, done) }
            return OrderCost.duration(of: remaining) + " left"
        }
        let elapsed = now - first.at
        let perWrite = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) / Double(done - first.done)
        return Self.words(seconds: perWrite * Double(remaining)) + " left"
    }

    /// "≈ 18 s", "≈ 4 min".
    static func words(seconds: Double) -> String {
        let whole = max(1, Int(seconds.rounded(.up)))
        return whole < 90 ? "≈ \(whole) s" : "≈ \((whole + 30) / 60) min"
    }
}
