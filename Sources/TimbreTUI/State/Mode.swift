import Foundation
import TimbreCore

extension TUIState {
    /// What the interface is doing, with the data only that mode uses: the text being typed, the
    /// question waiting for y or n, the search hits or catalogue results on screen, the statistics
    /// shown. Leaving a mode drops its data, so no stale question or result can outlive it.
    public enum Mode: Sendable, Equatable {
        case normal
        /// Typing at `/`, `:`, `F` or `a` (`Prompt`): the line, its cursor, history and completion.
        case typing(Prompt, PromptLine)
        /// `?`: the key table, scrolled and searched (`Overlay`).
        case help(Overlay)
        /// `M`/`:messages`: every warning and error, newest first, scrolled and searched.
        case messages(Overlay)
        /// `F`/`:search`: the hits across every cached playlist.
        case searchResults(SearchResults)
        /// A y/n question before a destructive edit, or y/r/n before a long order change.
        case confirm(Question)
        /// `a`: Spotify's catalogue results, to mark and add.
        case catalogResults(CatalogResults)
        /// `i`: a playlist's statistics.
        case info(Info)
        /// `H`: a playlist's versions, and one compared with the current list.
        case versions(Versions)
        /// `A`: the playlists the entries can be added to, narrowed as the user types (Picker.swift).
        case picker(Picker)

        /// Which mode, without its data (for comparisons and tests).
        public enum Kind: Sendable, Equatable {
            case normal, filterInput, promptInput, searchInput, help, searchResults, messages
            case confirm, catalogInput, catalogResults, info, versions, picker
        }

        public var kind: Kind {
            switch self {
            case .normal: .normal
            case .typing(.filter, _): .filterInput
            case .typing(.command, _): .promptInput
            case .typing(.search, _): .searchInput
            case .typing(.catalog, _): .catalogInput
            case .help(_): .help
            case .messages(_): .messages
            case .searchResults: .searchResults
            case .confirm: .confirm
            case .catalogResults: .catalogResults
            case .info: .info
            case .versions: .versions
            case .picker: .picker
            }
        }
    }

    /// What a line being typed is for: `/` filter, `:` command, `F` search, `a` catalogue query.
    public enum Prompt: Sendable, Equatable, Hashable { case filter, command, search, catalog }

    /// A scrolled text overlay (help, messages): the first line shown and the `/` query.
    public struct Overlay: Sendable, Equatable {
        /// The first line shown.
        public internal(set) var top = 0
        /// What `/` looks for (`n`/`N` jump between the lines that contain it).
        public internal(set) var query = ""
        /// True while the query is being typed.
        public internal(set) var typingQuery = false

        public init() {}
    }

    /// A question waiting for y or n (or y / r / n, y / n / s), and what `y` does.
    public struct Question: Sendable, Equatable {
        public var text: String
        public var effects: [Effect]
        /// What `r` does, when the question offers it (an order change: rewrite instead of moves).
        public var rewrite: [Effect]?
        /// What any other key does besides cancelling (answering an edit that waits).
        public var otherwise: [Effect] = []
        /// What `s` does, when the question offers it (an add whose tracks are partly there: only the new ones).
        public var skip: [Effect]? = nil
        /// What `y` puts in the register as well (`d`: the removed entries, so `p` elsewhere moves them).
        public var yanks: [String]? = nil
    }

    public struct SearchHit: Sendable, Equatable {
        public var playlistID: String
        public var playlistName: String
        /// The row found; its `position` locates it in the playlist.
        public var track: EntryRow
        /// What the search matched: the title, else the artists, else the album (shown then).
        public var field: Field

        public enum Field: String, Sendable, Equatable {
            case title, artist, album
        }

        public init(playlistID: String, playlistName: String, track: EntryRow, field: Field = .title) {
            self.playlistID = playlistID
            self.playlistName = playlistName
            self.track = track
            self.field = field
        }
    }

    public struct SearchResults: Sendable, Equatable {
        public internal(set) var hits: [SearchHit]
        public internal(set) var cursor = 0
    }

    public struct CatalogResults: Sendable, Equatable {
        public internal(set) var hits: [CatalogHit]
        public internal(set) var cursor = 0
        /// Marked results, by index into `hits`.
        public internal(set) var marks: Set<Int> = []
    }

    public struct Info: Sendable, Equatable {
        /// The playlist's name.
        public internal(set) var title: String
        public internal(set) var lines: [String]
    }

    // MARK: Each mode's data, read-only (empty outside its mode)

    /// What is being typed, in a typing mode.
    public var input: String {
        if case .typing(_, let line) = mode { return line.text }
        return ""
    }

    /// The question on screen, in `.confirm`.
    public var question: Question? {
        if case .confirm(let question) = mode { return question }
        return nil
    }

    public var searchResults: [SearchHit] {
        if case .searchResults(let results) = mode { return results.hits }
        return []
    }

    public var searchCursor: Int {
        if case .searchResults(let results) = mode { return results.cursor }
        return 0
    }

    public var catalogResults: [CatalogHit] {
        if case .catalogResults(let results) = mode { return results.hits }
        return []
    }

    public var catalogCursor: Int {
        if case .catalogResults(let results) = mode { return results.cursor }
        return 0
    }

    public var catalogMarks: Set<Int> {
        if case .catalogResults(let results) = mode { return results.marks }
        return []
    }

    public var infoLines: [String] {
        if case .info(let info) = mode { return info.lines }
        return []
    }

    public var infoTitle: String {
        if case .info(let info) = mode { return info.title }
        return ""
    }
}
