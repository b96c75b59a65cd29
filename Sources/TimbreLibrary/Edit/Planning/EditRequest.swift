import TimbreCore

/// One entry change as the editor runs it: `LibraryChange.entries` with how it is run (a dry
/// run, the question before an order change). Only `PlaylistEditor.perform` builds it.
struct EditRequest: Sendable {
    var playlist: SpotifyID
    var what: LibraryChange.EntryChange
    /// On a conflict, apply the edit to the same entries, found by URI and occurrence.
    var force: Bool
    /// Plan and print; send no write.
    var dryRun: Bool
    /// Shuffle and sort: rewrite the list (⌈n/100⌉ writes, every added date reset) instead of
    /// range moves (one write per run of entries out of place, every added date kept).
    var rewrite = false
    /// Shuffle: the random order's seed (the same seed, the same order on a list of the same
    /// length), so that an order priced by a dry run is the order then saved; nil: any order.
    var seed: UInt64?
    /// Shuffle and sort: asked, with what both ways cost, before anything is journalled or sent
    /// (the CLI's and the interface's y/r/n question); nil: as `rewrite` says.
    var choose: (@Sendable (OrderCost) async -> OrderChoice)?
    /// Shuffle and sort by range moves: asked (Esc, Ctrl-C), the moves stop between two writes.
    var stop: EditStop?

    init(
        playlist: SpotifyID, what: LibraryChange.EntryChange, force: Bool = false, dryRun: Bool = false, rewrite: Bool = false, seed: UInt64? = nil,
        choose: (@Sendable (OrderCost) async -> OrderChoice)? = nil, stop: EditStop? = nil
    ) {
        self.playlist = playlist
        self.what = what
        self.force = force
        self.dryRun = dryRun
        self.rewrite = rewrite
        self.seed = seed
        self.choose = choose
        self.stop = stop
    }

    /// Shuffle and sort: a new order of the same entries.
    var isOrderChange: Bool { what.isOrderChange }

    /// Edits that name positions: checked against the live snapshot before anything is written.
    var isPositional: Bool {
        switch what {
        case .add(_, let position): return position != nil
        case .removePositions, .removeMixed, .move, .shuffle, .sort, .dedupe: return true
        case .removeURIs, .restore: return false
        }
    }
}

/// A person asked before an order change answered no.
struct OrderCancelled: Error {}
