import Foundation
import TimbreCore

/// The whole TUI as data: panes, selections, filter, sort, and the mode with the data only it
/// uses (Mode.swift). Pure: no I/O happens here.
/// Keys and commands become a state change plus `Effect`s in one place (Dispatch.swift), so the
/// behaviour of every key is unit-testable; `TUIApp` feeds keys in, runs the effects (reading the
/// cache, the background sync, the terminal), hands what they produced back (`setPlaylists`,
/// `setTracks`, `showSearchResults`, `addMessage`, `status`) and paints `Screen.render(self, …)`.
/// The filter, the sort and the cursors are kept in step in VisibleRows.swift.
public struct TUIState: Sendable {
    public enum Pane: Sendable { case playlists, tracks }
    /// A row of the playlists pane: a folder (index into `folders`) or a playlist (index into
    /// `playlists`), indented when it is in a folder.
    public enum PaneRow: Sendable, Equatable {
        case folder(Int)
        case playlist(Int, inFolder: Bool)
    }

    public internal(set) var playlists: [PlaylistRow] = []
    public internal(set) var folders: [FolderRow] = []
    /// The playlists pane, top to bottom: folders with their playlists (when expanded), then the
    /// playlists in no folder; a flat list of matches while `playlistFilter` is set.
    public internal(set) var paneRows: [PaneRow] = []
    public internal(set) var playlistCursor = 0
    public internal(set) var openedPlaylistID: String?
    public internal(set) var tracks: [EntryRow] = []
    /// Rows of the open list not read yet (nil: all are): the header counts them.
    public internal(set) var tracksToCome: Int?
    /// The folded text of `tracks`, for `/`, `n` and sorting by text: folded when first needed, so
    /// opening a 10,000-entry playlist does not wait for it (nil: not folded yet).
    var foldedTracks: FoldedColumns?
    var trackColumns: FoldedColumns {
        mutating get {
            if let foldedTracks { return foldedTracks }
            let folded = FoldedColumns(tracks)
            foldedTracks = folded
            return folded
        }
    }
    /// Not private: `setTracks` resets these and `resort` (VisibleRows.swift) reads them.
    var tracksInPositionOrder = true
    /// All rows of `tracks` sorted for `sortField`/`sortOrder`; nil until needed, reset with the rows.
    var sortedRows: (field: Command.ViewOrderKey, order: Command.SortOrder, indices: [Int])?
    public internal(set) var visibleTracks: [Int] = []
    public internal(set) var trackCursor = 0
    public internal(set) var focus: Pane = .playlists
    public internal(set) var playlistFilter = ""
    public internal(set) var trackFilter = ""
    public internal(set) var sortField: Command.ViewOrderKey = .position
    public internal(set) var sortOrder: Command.SortOrder = .asc
    /// The view's order of each playlist ordered otherwise than by position: opening a playlist
    /// again (or after a restart: `ViewOrders`) shows it as it was left.
    var viewOrders: [String: ViewOrder] = [:]
    /// Positions of rows the view shows ahead of Spotify: moved here at once, not confirmed yet.
    /// The next list read from the cache (after the edit, or its failure) replaces them.
    public internal(set) var pendingRows: Set<Int> = []
    /// Edits under way the view cannot show yet, by playlist ("*": undo and redo, any playlist).
    var unmirroredEdits: [String: Int] = [:]
    struct ViewOrder: Equatable {
        var field: Command.ViewOrderKey
        var order: Command.SortOrder
    }
    /// The mode and the data only it uses (Mode.swift).
    public internal(set) var mode: Mode = .normal
    public internal(set) var message: String?
    /// Every warning and error (background work, edits, commands, config.toml's `[keys]`), oldest
    /// first (`:messages` shows them newest first), at most `messageLimit`.
    public internal(set) var messages: [Message] = []
    /// How many messages were ever added (the app logs the ones it has not logged yet).
    public internal(set) var messagesAdded = 0
    public static let messageLimit = 200
    /// The longest message kept, in characters.
    public static let messageLength = 4000
    public var status = StatusInfo()
    /// Rows a page moves (set from the layout).
    public var pageSize = 10
    /// The terminal's width (set from the layout): messages wrap to it.
    public var columns = 100
    /// The count typed before a key (`5` of `5j`), shown in the status line until the key comes.
    public internal(set) var pendingCount: Int?
    /// The keys of a sequence from `[keys]` typed so far (`g` of `g p`), waiting for the next.
    public internal(set) var pendingKeys: [Key] = []
    /// What was typed at each prompt, for Up/Down (this session).
    public internal(set) var promptHistory = PromptHistory()
    /// The last `/` pattern of each pane, which `n`/`N` look for once Esc has cleared the filter
    /// (vim's search history).
    public internal(set) var lastPattern: [Pane: String] = [:]
    /// A question waiting under help or messages (`?`, `M` over it): back when they close.
    public internal(set) var parkedQuestion: Question?
    /// The key before this one moved to the top (`g`): a second one is vim's `gg`, the same motion.
    var afterTopKey = false
    public var keymap = Keymap()

    // Managing.
    /// Marked entries of the open playlist, by position.
    public internal(set) var marks: Set<Int> = []
    /// Where `v` started a range (a position), while the range follows the cursor.
    public internal(set) var rangeAnchor: Int?
    /// What `y` copied (URIs, in playlist order) and from where.
    public internal(set) var register: [String] = []
    public internal(set) var registerSource = ""
    /// `:filter year:… duration:… artist:…`, on top of the text filter.
    public internal(set) var entryFilter = EntryFilter()

    /// Playback (Playback.swift): what plays, the local clock, a wait in force.
    public internal(set) var player = PlayerView()

    public init() {}

    // MARK: Data

    public mutating func setPlaylists(_ rows: [PlaylistRow], folders: [FolderRow]? = nil) {
        let selected = paneRows.indices.contains(playlistCursor) ? paneRows[playlistCursor] : nil
        let selectedID = selectedPlaylist?.id
        let selectedFolder: String? = if case .folder(let index)? = selected, self.folders.indices.contains(index) { self.folders[index].name } else { nil }
        playlists = rows
        if let folders { self.folders = folders }
        refilterPlaylists()
        if let selectedID, let index = paneRows.firstIndex(where: { playlistIndex(of: $0).map { playlists[$0].id == selectedID } ?? false }) {
            playlistCursor = index
        } else if let selectedFolder, let index = paneRows.firstIndex(where: { folderIndex(of: $0).map { self.folders[$0].name == selectedFolder } ?? false }) {
            playlistCursor = index
        }
        clampCursors()
    }

    /// Indices into `playlists` of the playlist rows shown, in pane order.
    public var visiblePlaylists: [Int] { paneRows.compactMap(playlistIndex(of:)) }

    func playlistIndex(of row: PaneRow) -> Int? {
        if case .playlist(let index, _) = row { return index }
        return nil
    }

    func folderIndex(of row: PaneRow) -> Int? {
        if case .folder(let index) = row { return index }
        return nil
    }

    /// The folder row under the cursor, if it is one.
    public var selectedFolder: FolderRow? {
        guard paneRows.indices.contains(playlistCursor), let index = folderIndex(of: paneRows[playlistCursor]) else { return nil }
        return folders[index]
    }

    /// `total`: the list holds that many rows and `rows` are its first ones (a long list opening:
    /// the app reads the rest once this frame is painted, before the next key).
    public mutating func setTracks(_ rows: [EntryRow], of playlistID: String, total: Int? = nil) {
        tracksToCome = total.map { $0 - rows.count }.flatMap { $0 > 0 ? $0 : nil }
        let keepCursor = openedPlaylistID == playlistID
        if !keepCursor || rows != tracks {
            // Marks name positions of the list they were made on.
            marks = []
            rangeAnchor = nil
        }
        if !keepCursor {
            let remembered = viewOrders[playlistID]
            sortField = remembered?.field ?? .position
            sortOrder = remembered?.order ?? .asc
        }
        openedPlaylistID = playlistID
        pendingRows = []
        tracks = rows
        foldedTracks = nil
        tracksInPositionOrder = zip(rows, rows.dropFirst()).allSatisfy { $0.position <= $1.position }
        sortedRows = nil
        resort()
        if !keepCursor { trackCursor = 0 }
        clampCursors()
    }

    public var selectedPlaylist: PlaylistRow? {
        guard paneRows.indices.contains(playlistCursor), let index = playlistIndex(of: paneRows[playlistCursor]) else { return nil }
        return playlists[index]
    }

    public var selectedTrack: EntryRow? {
        visibleTracks.indices.contains(trackCursor) ? tracks[visibleTracks[trackCursor]] : nil
    }

    public var openedPlaylist: PlaylistRow? { playlists.first { $0.id == openedPlaylistID } }

    /// A warning or error kept for `:messages`: its text and the time it came (HH:MM:SS).
    public struct Message: Sendable, Equatable {
        public let time: String
        public let text: String
    }

    /// A warning or error from background work: kept for `:messages` in full, the latest shown in
    /// the status line. Text from the network is made inert here, once (line by line: a message
    /// may have several), and redacted.
    public mutating func addMessage(_ text: String, at date: Date = Date()) {
        // Redacted as the log is: a token in an error's text never reaches the screen.
        let lines = Redactor.redact(text).split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.sanitize(String($0)) }
        var clean = lines.joined(separator: "\n")
        if clean.count > Self.messageLength { clean = String(clean.prefix(Self.messageLength)) + "…" }
        messages.append(Message(time: Self.clockTime(date), text: clean))
        messagesAdded += 1
        if messages.count > Self.messageLimit { messages.removeFirst(messages.count - Self.messageLimit) }
        status.lastMessage = clean
    }

    /// An error a key or command met: the message line, and `:messages` in full.
    mutating func reportError(_ text: String) {
        addMessage(text)
        message = messages.last?.text
    }

    /// `14:05:09`, local time.
    static func clockTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "--:--:--" }
        return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { ClockText.pad(Int($0)) }.joined(separator: ":")
    }

    /// `limit`: the most the search returns; a full page is "the first 1,000", not all there are.
    public mutating func showSearchResults(_ hits: [SearchHit], query: String, limit: Int? = nil) {
        mode = .searchResults(SearchResults(hits: hits))
        let count = Self.grouped(hits.count)
        message =
            hits.isEmpty
            ? "no track matches “\(query)”"
            : hits.count >= (limit ?? .max)
                ? "the first \(count) matches for “\(query)” — type more of it to narrow them" : "\(count) matches for “\(query)”"
    }

    /// After the playlist of a chosen search hit was loaded (`Effect.loadTracks(_:focusing:)`):
    /// shows every row and puts the cursor on the one at `position`.
    public mutating func focusTrack(at position: Int) {
        trackFilter = ""
        resort()
        if let row = visibleTracks.firstIndex(where: { tracks[$0].position == position }) { trackCursor = row }
    }

    /// 1000 as "1,000".
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        return String(digits.enumerated().flatMap { index, digit in (index > 0 && (digits.count - index) % 3 == 0 ? [","] : []) + [digit] })
    }

    public mutating func setMessage(_ text: String?) { message = text }
}
