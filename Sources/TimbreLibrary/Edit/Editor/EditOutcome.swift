import TimbreCore

/// What a change did (or, in a dry run, would do): the facts, typed. Each front end words them
/// (`EditReport` in TimbreApp: the CLI's sentence and `--json`, the interface's status line).
public struct EditOutcome: Sendable {
    /// How the change ended.
    public enum Ending: Sendable, Equatable {
        /// It changed what it names (a dry run: it would).
        case changed
        /// The playlist already was as asked (no duplicates, already in that order): why.
        /// Nothing was sent or journalled.
        case unchanged(String)
        /// The person asked before an order change said no: nothing was journalled or sent.
        case cancelled
        /// An order change by range moves was stopped (`EditStop`) after `done` of its `total`
        /// writes: the playlist holds every entry, dates kept, in the order those moves left; the
        /// journal holds that order as the edit, so an undo puts the old one back.
        case stopped(done: Int, total: Int)
    }

    /// What became of the entries' added dates (shuffle, sort and their undo).
    public enum Dates: Sendable, Equatable {
        /// Kept (range moves), or not concerned.
        case kept
        /// The order was rewritten (replace, then adds): every entry's added date is now today's.
        case rewritten
        /// An undo (or redo) of a rewrite: the order comes back, the added dates it reset cannot.
        case notRestored
    }

    /// A change of the library (likes, follows): how many playlists and other items it saved
    /// (`save`) or removed.
    public struct LibraryItems: Sendable, Equatable {
        public var playlists: Int
        public var items: Int
        public var save: Bool
    }

    /// How many entries the change concerns.
    public struct Counts: Sendable, Equatable {
        public var added = 0
        public var removed = 0
        public var moved = 0
        /// Kept copies that Spotify's remove-every-copy took out and the edit added back: they
        /// have a new added date (the only date change besides a rewrite).
        public var readded = 0
    }

    public var operation: LibraryChange.Operation
    /// The playlist (Liked Songs too); nil for a creation not made yet.
    public var playlist: PlaylistRef?
    public var playlistName: String
    public var snapshotID: String?
    public var ending: Ending = .changed
    /// Entries (or, for likes and follows, items) added, removed, moved, put back.
    public var counts = Counts()
    /// Requests sent by the whole command, reads included; for a dry run, the requests the
    /// command would send (its reads, made, then its writes and the reads after them).
    public var requests = 0
    /// Set where the editor knows them: the requests a dry run's real run would still send after
    /// its reads (nil: counted from the writes and the cache, `dryRunRequestsToCome`).
    var requestsToCome: Int?
    /// The writes of a playlist's entries.
    public var writes: [EntryWrite]
    /// Writes to the library or a playlist's details rather than to its entries.
    public var libraryWrites = 0
    public var journalID: Int64?
    public var dryRun: Bool
    public var warnings: [String] = []
    /// Likes and follows: what was saved or removed.
    public var library: LibraryItems?
    /// For `shuffle` and `sort`: what moves and a rewrite cost (`--dry-run --json` shows both).
    public var orderCost: OrderCost?
    public var dates: Dates = .kept
    /// For `dedupe`: each copy removed, and the position of the entry it repeats (Spotify's
    /// indices, from 0).
    public var duplicates: [(position: Int, uri: String, duplicateOf: Int)] = []
    /// The entries the edit removes or moves, named as a person reads them ("#5 Title — Artist";
    /// dedupe adds "(repeats #2)"): what a dry run lists.
    public var entries: [String] = []

    init(
        operation: LibraryChange.Operation, playlist: PlaylistRef?, playlistName: String, snapshotID: String?, writes: [EntryWrite],
        journalID: Int64? = nil, dryRun: Bool
    ) {
        self.operation = operation
        self.playlist = playlist
        self.playlistName = playlistName
        self.snapshotID = snapshotID
        self.writes = writes
        self.journalID = journalID
        self.dryRun = dryRun
    }

    /// A deleted playlist brought back (`LibraryChange.revive`): how.
    public enum Revival: Sendable, Equatable {
        /// Spotify still had it: followed again, as it is there (`playlist` is its id).
        case followed
        /// Spotify had it no more: a new playlist (`playlist`) made with its details and entries.
        case created(previous: String)
    }

    /// For `revive`: followed again or created anew.
    public var revival: Revival?
    /// An undo or redo: what the edit it replayed did, as the journal summed it up ("removed 5
    /// entries from “Road”").
    public var replayed: String?

    /// The person asked said no.
    public var cancelled: Bool { ending == .cancelled }
}
