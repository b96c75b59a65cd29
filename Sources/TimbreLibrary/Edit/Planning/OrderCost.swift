import TimbreCore

/// What a new order (shuffle, sort) costs both ways Spotify allows: range moves, which keep every
/// entry's added date, and a rewrite (⌈n/100⌉ writes), which resets them all. Priced before
/// anything is sent, for `--dry-run` and for the question asked before a long one.
public struct OrderCost: Sendable, Equatable {
    /// `.shuffle` or `.sort`.
    public var op: LibraryChange.Operation
    public var playlistName: String
    /// For a sort: the key ("title", "year reversed").
    public var key: String?
    public var entries: Int
    /// Range moves (writes) that make the order and keep every date.
    public var moves: Int
    /// Writes of the rewrite (the first 100 replace the list, the rest are added).
    public var rewriteWrites: Int
    /// False when the list holds an entry the API cannot add back (a local file): only moves can
    /// reorder it, `--rewrite` or not.
    public var canRewrite: Bool
    /// The pace measured in this run (the read of the playlist just made: each write is one
    /// round trip, sent one after the other); nil: `writesPerSecond`.
    public var secondsPerWrite: Double?

    public init(op: LibraryChange.Operation, playlistName: String, key: String?, entries: Int, moves: Int, rewriteWrites: Int, canRewrite: Bool) {
        self.op = op
        self.playlistName = playlistName
        self.key = key
        self.entries = entries
        self.moves = moves
        self.rewriteWrites = rewriteWrites
        self.canRewrite = canRewrite
    }

    /// More writes than this and a person at a terminal is asked first (y / r / n).
    public static let askAbove = 20
    /// Writes a second Spotify takes from one client over a long edit, for the estimate.
    public static let writesPerSecond = 10

    public var needsAsking: Bool { moves > Self.askAbove }

    /// "≈ 4 min" / "≈ 30 s" for `writes` at Spotify's pace: `secondsPerWrite` as measured in
    /// the run when known (never faster than `writesPerSecond`, Spotify's own limit), else that.
    public static func duration(of writes: Int, secondsPerWrite: Double? = nil) -> String {
        let floor = 1 / Double(writesPerSecond)
        let seconds = Int((Double(writes) * max(floor, secondsPerWrite ?? floor)).rounded(.up))
        return seconds < 90 ? "≈ \(max(1, seconds)) s" : "≈ \((seconds + 30) / 60) min"
    }

    /// The estimate of the moves, at the pace measured in the run.
    public var movesDuration: String { Self.duration(of: moves, secondsPerWrite: secondsPerWrite) }

    /// "2,431".
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }

    /// "Sort “Everything” by title: 2,431 moves, ≈ 4 min at Spotify's pace, dates kept — or r to
    /// rewrite in 100 writes (every date becomes today). (y/r/n)"
    public var question: String {
        let name = TerminalText.preview(playlistName, limit: 40)
        let what = op == .sort ? "Sort “\(name)”\(key.map { " by \($0)" } ?? "")" : "Shuffle “\(name)”"
        let moves = "\(what): \(Self.grouped(self.moves)) \(self.moves == 1 ? "move" : "moves"), \(movesDuration) at Spotify's pace, dates kept"
        guard canRewrite else { return moves + " (it holds local files, which a rewrite would lose). (y/n)" }
        return moves + " — or r to rewrite in \(Self.grouped(rewriteWrites)) \(rewriteWrites == 1 ? "write" : "writes") (every date becomes today). (y/r/n)"
    }
}

/// The answer to an `OrderCost` question.
public enum OrderChoice: Sendable, Equatable {
    /// Range moves: every added date kept.
    case moves
    /// The ⌈n/100⌉-write rewrite: every added date becomes today.
    case rewrite
    /// Nothing is sent.
    case cancel
}
