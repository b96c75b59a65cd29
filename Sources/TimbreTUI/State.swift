import Foundation
import TimbreCore

/// The whole TUI as data: panes, selections, filter, sort, overlays. Pure — it changes only
/// through `apply(_:)` and `type(_:)`, so the behaviour of every key is unit-testable; the
/// curses layer only paints `Screen.render(self, …)` and feeds keys back.
public struct TUIState: Sendable {
    public enum Pane: Sendable { case playlists, tracks }
    public enum Mode: Sendable, Equatable { case normal, filterInput, promptInput, searchInput, help, searchResults, messages }

    public struct SearchHit: Sendable, Equatable {
        public var playlistID: String
        public var playlistName: String
        /// The row found; its `position` locates it in the playlist.
        public var track: TrackRow

        public init(playlistID: String, playlistName: String, track: TrackRow) {
            self.playlistID = playlistID
            self.playlistName = playlistName
            self.track = track
        }
    }

    public internal(set) var playlists: [PlaylistRow] = []
    public internal(set) var visiblePlaylists: [Int] = []
    public internal(set) var playlistCursor = 0
    public internal(set) var openedPlaylistID: String?
    public internal(set) var tracks: [TrackRow] = []
    /// The folded text of `tracks`, for `/` and sorting.
    public internal(set) var trackColumns = FoldedColumns()
    private var tracksInPositionOrder = true
    /// All rows of `tracks` sorted for `sortField`/`sortOrder`; nil until needed, reset with the rows.
    private var sortedRows: (field: Command.SortField, order: Command.SortOrder, indices: [Int])?
    public internal(set) var visibleTracks: [Int] = []
    public internal(set) var trackCursor = 0
    public internal(set) var focus: Pane = .playlists
    public internal(set) var playlistFilter = ""
    public internal(set) var trackFilter = ""
    public internal(set) var sortField: Command.SortField = .position
    public internal(set) var sortOrder: Command.SortOrder = .asc
    public internal(set) var mode: Mode = .normal
    public internal(set) var input = ""
    public internal(set) var searchResults: [SearchHit] = []
    public internal(set) var searchCursor = 0
    public internal(set) var message: String?
    /// Warnings and errors from background work, oldest first (`:messages`), at most `messageLimit`.
    public internal(set) var messages: [String] = []
    public static let messageLimit = 200
    public var status = StatusInfo()
    public internal(set) var shouldQuit = false
    /// Set by `sync`; the app starts a background sync and clears it.
    public var syncRequested = false
    /// Rows a page moves (set from the layout).
    public var pageSize = 10
    public var keymap = Keymap()

    public init() {}

    // MARK: Data

    public mutating func setPlaylists(_ rows: [PlaylistRow]) {
        let selectedID = selectedPlaylist?.id
        playlists = rows
        refilterPlaylists()
        if let selectedID, let index = visiblePlaylists.firstIndex(where: { playlists[$0].id == selectedID }) { playlistCursor = index }
        clampCursors()
    }

    public mutating func setTracks(_ rows: [TrackRow], of playlistID: String) {
        let keepCursor = openedPlaylistID == playlistID
        openedPlaylistID = playlistID
        tracks = rows
        trackColumns = FoldedColumns(rows)
        tracksInPositionOrder = zip(rows, rows.dropFirst()).allSatisfy { $0.position <= $1.position }
        sortedRows = nil
        resort()
        if !keepCursor { trackCursor = 0 }
        clampCursors()
    }

    public var selectedPlaylist: PlaylistRow? {
        visiblePlaylists.indices.contains(playlistCursor) ? playlists[visiblePlaylists[playlistCursor]] : nil
    }

    public var selectedTrack: TrackRow? {
        visibleTracks.indices.contains(trackCursor) ? tracks[visibleTracks[trackCursor]] : nil
    }

    public var openedPlaylist: PlaylistRow? { playlists.first { $0.id == openedPlaylistID } }

    /// A warning or error from background work: kept for `:messages`, the latest shown in the
    /// status line. Text from the network is made inert here, once.
    public mutating func addMessage(_ text: String) {
        let clean = TerminalText.preview(text, limit: 500)
        messages.append(clean)
        if messages.count > Self.messageLimit { messages.removeFirst(messages.count - Self.messageLimit) }
        status.lastMessage = clean
    }

    // MARK: Commands

    /// Applies a command. Returns the playlist ID whose tracks must be loaded, if any.
    @discardableResult
    public mutating func apply(_ command: Command) -> String? {
        message = nil
        switch command {
        case .move(let motion, let count): move(motion, count: count)
        case .focus(let target):
            switch target {
            case .next, .previous: focus = focus == .playlists ? .tracks : .playlists
            case .playlists: focus = .playlists
            case .tracks: focus = .tracks
            }
        case .open:
            if mode == .searchResults { return jumpToSearchHit() }
            if focus == .playlists, let playlist = selectedPlaylist {
                focus = .tracks
                return playlist.id
            }
        case .filter(let text):
            if let text {
                setFilter(text)
            } else {
                mode = .filterInput
                input = currentFilter
            }
        case .nextMatch: move(.down, count: 1, wrap: true)
        case .previousMatch: move(.up, count: 1, wrap: true)
        case .clear:
            if mode != .normal {
                mode = .normal
                input = ""
            } else {
                setFilter("")
            }
        case .sort(let change):
            switch change {
            case .set(let field, let order):
                sortField = field
                sortOrder = order ?? .asc
            case .nextField:
                let all = Command.SortField.allCases
                sortField = all[(all.firstIndex(of: sortField).map { $0 + 1 } ?? 0) % all.count]
                sortOrder = .asc
            case .reverse:
                sortOrder = sortOrder == .asc ? .desc : .asc
            }
            resort()
            message = "sorted by \(sortField.rawValue) \(sortOrder == .asc ? "↑" : "↓")"
        case .search(let text):
            if text == nil {
                mode = .searchInput
                input = ""
            }
        case .sync: syncRequested = true
        case .help: mode = mode == .help ? .normal : .help
        case .messages: mode = mode == .messages ? .normal : .messages
        case .redraw: break
        case .prompt:
            mode = .promptInput
            input = ""
        case .quit: shouldQuit = true
        }
        return nil
    }

    public mutating func showSearchResults(_ hits: [SearchHit], query: String) {
        searchResults = hits
        searchCursor = 0
        mode = .searchResults
        message = hits.isEmpty ? "no track matches “\(query)”" : "\(hits.count) matches for “\(query)”"
    }

    public mutating func setMessage(_ text: String?) { message = text }

    /// After a `search` hit is chosen: select its playlist; the caller loads tracks, then `focusTrack`.
    private mutating func jumpToSearchHit() -> String? {
        guard searchResults.indices.contains(searchCursor) else { return nil }
        let hit = searchResults[searchCursor]
        mode = .normal
        playlistFilter = ""
        refilterPlaylists()
        if let index = visiblePlaylists.firstIndex(where: { playlists[$0].id == hit.playlistID }) { playlistCursor = index }
        focus = .tracks
        pendingTrackPosition = hit.track.position
        return hit.playlistID
    }

    var pendingTrackPosition: Int?

    /// Called after tracks were loaded for a jump: puts the cursor on the found row.
    public mutating func focusPendingTrack() {
        guard let position = pendingTrackPosition else { return }
        pendingTrackPosition = nil
        trackFilter = ""
        resort()
        if let row = visibleTracks.firstIndex(where: { tracks[$0].position == position }) { trackCursor = row }
    }

    // MARK: Typing in a prompt

    public enum TypedKey: Sendable, Equatable { case character(Character), backspace, enter, escape }

    /// Keys in an input mode. Returns a command to run (from the `:` prompt) or a search to start.
    public enum InputOutcome: Sendable, Equatable { case none, run(Command), search(String) }

    public mutating func type(_ key: TypedKey) -> InputOutcome {
        switch (mode, key) {
        case (_, .escape):
            if mode == .filterInput { setFilter("") }
            mode = .normal
            input = ""
        case (.filterInput, .character(let c)):
            input.append(c)
            setFilter(input)
        case (.filterInput, .backspace):
            if !input.isEmpty { input.removeLast() }
            setFilter(input)
        case (.filterInput, .enter):
            mode = .normal
        case (.promptInput, .character(let c)), (.searchInput, .character(let c)):
            input.append(c)
        case (.promptInput, .backspace), (.searchInput, .backspace):
            if input.isEmpty { mode = .normal } else { input.removeLast() }
        case (.promptInput, .enter):
            let text = input
            mode = .normal
            input = ""
            do { return .run(try Command.parse(text)) } catch { message = "\(error)" }
        case (.searchInput, .enter):
            let text = input.trimmingCharacters(in: .whitespaces)
            mode = .normal
            input = ""
            if !text.isEmpty { return .search(text) }
        default:
            break
        }
        return .none
    }

    // MARK: Internals

    private var currentFilter: String { focus == .playlists ? playlistFilter : trackFilter }

    private mutating func setFilter(_ text: String) {
        if focus == .playlists {
            playlistFilter = text
            refilterPlaylists()
            playlistCursor = 0
        } else {
            let previous = SearchText.foldedBytes(trackFilter)
            let next = SearchText.foldedBytes(text)
            trackFilter = text
            if !previous.isEmpty, next.starts(with: previous) {
                // Typing narrows: every match of the longer text matched the shorter one, and the
                // visible rows are already sorted, so filter them in place.
                visibleTracks = trackColumns.rows(matching: next, among: visibleTracks)
            } else {
                resort()
            }
            trackCursor = 0
        }
        clampCursors()
    }

    private mutating func refilterPlaylists() {
        let needle = SearchText.foldedBytes(playlistFilter)
        visiblePlaylists = playlists.indices.filter { needle.isEmpty || SearchText.contains(SearchText.foldedBytes(playlists[$0].name), needle) }
    }

    private mutating func resort() {
        let needle = SearchText.foldedBytes(trackFilter)
        // Rows arrive in position order: the default sort needs no work.
        if sortField == .position, sortOrder == .asc, tracksInPositionOrder {
            visibleTracks = trackColumns.rows(matching: needle)
            return
        }
        // Otherwise every row is sorted once per list and order, and each filter keeps the
        // matching rows of that order: a keystroke costs one pass, not a sort.
        if sortedRows?.field != sortField || sortedRows?.order != sortOrder {
            sortedRows = (sortField, sortOrder, sortedIndices())
        }
        visibleTracks = trackColumns.rows(matching: needle, among: sortedRows?.indices ?? [])
    }

    /// Every row in the current sort order (ties by position).
    private func sortedIndices() -> [Int] {
        var indices = Array(tracks.indices)
        let rows = tracks
        let columns = trackColumns
        let field = sortField
        func key(_ a: Int, _ b: Int) -> Bool {
            switch field {
            case .position: return rows[a].position < rows[b].position
            case .title: return columns.precedes(a, b, by: .title)
            case .artist: return columns.precedes(a, b, by: .artist)
            case .album: return columns.precedes(a, b, by: .album)
            case .duration: return rows[a].durationMS < rows[b].durationMS
            case .added: return (rows[a].addedAt ?? "") < (rows[b].addedAt ?? "")
            }
        }
        indices.sort { a, b in
            if key(a, b) { return sortOrder == .asc }
            if key(b, a) { return sortOrder == .desc }
            return rows[a].position < rows[b].position // stable tie-break
        }
        return indices
    }

    private mutating func move(_ motion: Command.Motion, count: Int, wrap: Bool = false) {
        if mode == .searchResults {
            searchCursor = Self.moved(searchCursor, motion, count: count, total: searchResults.count, page: pageSize, wrap: wrap)
            return
        }
        if focus == .playlists {
            playlistCursor = Self.moved(playlistCursor, motion, count: count, total: visiblePlaylists.count, page: pageSize, wrap: wrap)
        } else {
            trackCursor = Self.moved(trackCursor, motion, count: count, total: visibleTracks.count, page: pageSize, wrap: wrap)
        }
    }

    static func moved(_ cursor: Int, _ motion: Command.Motion, count: Int, total: Int, page: Int, wrap: Bool) -> Int {
        guard total > 0 else { return 0 }
        var next: Int
        switch motion {
        case .up: next = cursor - count
        case .down: next = cursor + count
        case .top: return 0
        case .bottom: return total - 1
        case .pageup: next = cursor - max(1, page) * count
        case .pagedown: next = cursor + max(1, page) * count
        }
        if wrap { next = ((next % total) + total) % total }
        return min(max(0, next), total - 1)
    }

    private mutating func clampCursors() {
        playlistCursor = min(max(0, playlistCursor), max(0, visiblePlaylists.count - 1))
        trackCursor = min(max(0, trackCursor), max(0, visibleTracks.count - 1))
    }
}
