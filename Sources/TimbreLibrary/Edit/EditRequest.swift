import TimbreCore

/// What the user asks of one playlist, in the positions `timbre tracks` showed them.
public struct EditRequest: Sendable {
    public enum What: Sendable, Equatable {
        /// At `position` (nil: the end).
        case add(uris: [String], position: Int?)
        /// Exactly these entries; other copies of the same tracks stay.
        case removePositions([Int])
        /// Every copy of these URIs.
        case removeURIs([String])
        /// Exactly these entries, and every copy of these URIs (`remove --position … --uri …`).
        case removeMixed(positions: [Int], uris: [String])
        /// `length` entries from `start`, so that the first ends at index `to` of the result.
        case move(start: Int, length: Int, to: Int)
        /// A random new order, saved.
        case shuffle
        /// A new order by `key`, saved (stable: equal keys keep their order).
        case sort(SortKey, reverse: Bool)
        /// Later copies removed, the first kept, the order otherwise unchanged.
        case dedupe(fuzzy: Bool)
    }

    public enum SortKey: String, Sendable, CaseIterable { case title, artist, album, year, duration, added }

    public var playlist: SpotifyID
    public var what: What
    /// On a conflict, apply the edit to the same entries, found by URI and occurrence.
    public var force: Bool
    /// Plan and print; send no write.
    public var dryRun: Bool
    /// Shuffle and sort: rewrite the list (⌈n/100⌉ writes, every added date reset) instead of
    /// range moves (one write per run of entries out of place, every added date kept).
    public var rewrite = false
    /// Shuffle: the random order's seed (the same seed, the same order on a list of the same
    /// length), so that an order priced by a dry run is the order then saved; nil: any order.
    public var seed: UInt64?
    /// Shuffle and sort: asked, with what both ways cost, before anything is journalled or sent
    /// (the CLI's and the interface's y/r/n question); nil: as `rewrite` says.
    public var choose: (@Sendable (OrderCost) async -> OrderChoice)?

    public init(playlist: SpotifyID, what: What, force: Bool = false, dryRun: Bool = false, rewrite: Bool = false, seed: UInt64? = nil,
                choose: (@Sendable (OrderCost) async -> OrderChoice)? = nil) {
        self.playlist = playlist
        self.what = what
        self.force = force
        self.dryRun = dryRun
        self.rewrite = rewrite
        self.seed = seed
        self.choose = choose
    }

    /// Shuffle and sort: a new order of the same entries.
    public var isOrderChange: Bool { what.isOrderChange }

    /// Edits that name positions: checked against the live snapshot before anything is written.
    var isPositional: Bool {
        switch what {
        case .add(_, let position): return position != nil
        case .removePositions, .removeMixed, .move, .shuffle, .sort, .dedupe: return true
        case .removeURIs: return false
        }
    }
}

/// A person asked before an order change answered no.
struct OrderCancelled: Error {}
