import Foundation
import TimbreCore

/// The whole TUI as data: panes, selections, filter, sort, overlays. Pure: no I/O happens here.
/// Keys and commands become a state change plus `Effect`s in one place (Dispatch.swift), so the
/// behaviour of every key is unit-testable; `TUIApp` feeds keys in, runs the effects (reading the
/// cache, the background sync, the terminal), hands what they produced back (`setPlaylists`,
/// `setTracks`, `showSearchResults`, `addMessage`, `status`) and paints `Screen.render(self, …)`.
/// The filter, the sort and the cursors are kept in step in VisibleRows.swift.
public struct TUIState: Sendable {
    public enum Pane: Sendable { case playlists, tracks }
    public enum Mode: Sendable, Equatable { case normal, filterInput, promptInput, searchInput, help, searchResults, messages }

    public struct SearchHit: Sendable, Equatable {
        public var playlistID: String
        public var playlistName: String
        /// The row found; its `position` locates it in the playlist.
        public var track: EntryRow

        public init(playlistID: String, playlistName: String, track: EntryRow) {
            self.playlistID = playlistID
            self.playlistName = playlistName
            self.track = track
        }
    }

    public internal(set) var playlists: [PlaylistRow] = []
    public internal(set) var visiblePlaylists: [Int] = []
    public internal(set) var playlistCursor = 0
    public internal(set) var openedPlaylistID: String?
    public internal(set) var tracks: [EntryRow] = []
    /// The folded text of `tracks`, for `/` and sorting.
    public internal(set) var trackColumns = FoldedColumns()
    /// Not private: `setTracks` resets these and `resort` (VisibleRows.swift) reads them.
    var tracksInPositionOrder = true
    /// All rows of `tracks` sorted for `sortField`/`sortOrder`; nil until needed, reset with the rows.
    var sortedRows: (field: Command.SortField, order: Command.SortOrder, indices: [Int])?
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

    public mutating func setTracks(_ rows: [EntryRow], of playlistID: String) {
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

    public var selectedTrack: EntryRow? {
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

    public mutating func showSearchResults(_ hits: [SearchHit], query: String) {
        searchResults = hits
        searchCursor = 0
        mode = .searchResults
        message = hits.isEmpty ? "no track matches “\(query)”" : "\(hits.count) matches for “\(query)”"
    }

    /// After the playlist of a chosen search hit was loaded (`Effect.loadTracks(_:focusing:)`):
    /// shows every row and puts the cursor on the one at `position`.
    public mutating func focusTrack(at position: Int) {
        trackFilter = ""
        resort()
        if let row = visibleTracks.firstIndex(where: { tracks[$0].position == position }) { trackCursor = row }
    }

    public mutating func setMessage(_ text: String?) { message = text }
}
