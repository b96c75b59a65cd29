import Foundation
import TimbreCore

/// The one place a key or a `Command` becomes a state change plus the effects the app loop runs.
extension TUIState {
    /// What a command needs beyond the state change: reading the cache, the background sync, the
    /// terminal, quitting. `TUIApp` runs these in order and nothing else; edits to the library
    /// will be effects too.
    public enum Effect: Sendable, Equatable {
        /// Read the playlist's tracks into `setTracks`; for a search hit, then `focusTrack(at:)`
        /// the row at that position.
        case loadTracks(String, focusing: Int? = nil)
        /// Search every cached playlist, then `showSearchResults`.
        case search(String)
        /// Start the background sync, unless one is running or the app has none (signed out).
        case startSync
        /// Repaint the whole terminal, not only what changed.
        case redraw
        case quit
    }

    /// One event from the terminal. An overlay closes on any key; in an input mode keys type;
    /// otherwise the keymap names the command.
    mutating func handle(_ event: Terminal.InputEvent) -> [Effect] {
        switch event {
        case .resize:
            return []
        case .key where mode == .help, .character where mode == .help:
            return apply(.help)
        case .key where mode == .messages, .character where mode == .messages:
            return apply(.messages)
        case .key(let key) where isTyping:
            switch key.name {
            case "Enter": return type(.enter)
            case "Esc": return type(.escape)
            case "Backspace", "Delete": return type(.backspace)
            default: return []
            }
        case .character(let character) where isTyping:
            return type(.character(character))
        case .key(let key):
            return keymap.command(for: key).map { apply($0) } ?? []
        case .character(let character):
            guard let key = Key(String(character)), let command = keymap.command(for: key) else { return [] }
            return apply(command)
        }
    }

    var isTyping: Bool { [.filterInput, .promptInput, .searchInput].contains(mode) }

    /// Applies a command: changes the state and returns what the app must do about it.
    @discardableResult
    public mutating func apply(_ command: Command) -> [Effect] {
        switch command {
        // These leave the message line as it is (search results replace it themselves).
        case .redraw: return [.redraw]
        case .search(let text?): return [.search(text)]
        // A key bound to `filter text` does nothing over search results (from the `:` prompt the
        // mode is already back to normal).
        case .filter(.some) where mode != .normal: return []
        default: message = nil
        }
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
                return [.loadTracks(playlist.id)]
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
        case .search:
            // With text it returned above.
            mode = .searchInput
            input = ""
        case .sync: return [.startSync]
        case .help: mode = mode == .help ? .normal : .help
        case .messages: mode = mode == .messages ? .normal : .messages
        case .redraw: return [.redraw]
        case .prompt:
            mode = .promptInput
            input = ""
        case .quit: return [.quit]
        }
        return []
    }

    /// Enter on a search hit: selects its playlist (unfiltered) and asks for its tracks, with the
    /// cursor to go to the hit's row once they are loaded.
    private mutating func jumpToSearchHit() -> [Effect] {
        guard searchResults.indices.contains(searchCursor) else { return [] }
        let hit = searchResults[searchCursor]
        mode = .normal
        playlistFilter = ""
        refilterPlaylists()
        if let index = visiblePlaylists.firstIndex(where: { playlists[$0].id == hit.playlistID }) { playlistCursor = index }
        focus = .tracks
        return [.loadTracks(hit.playlistID, focusing: hit.track.position)]
    }

    // MARK: Typing in a prompt

    public enum TypedKey: Sendable, Equatable { case character(Character), backspace, enter, escape }

    /// A key in an input mode. Enter runs what was typed at `:` (through `apply`) or starts the search.
    @discardableResult
    public mutating func type(_ key: TypedKey) -> [Effect] {
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
            do {
                let command = try Command.parse(text)
                return apply(command)
            } catch {
                message = "\(error)"
            }
        case (.searchInput, .enter):
            let text = input.trimmingCharacters(in: .whitespaces)
            mode = .normal
            input = ""
            if !text.isEmpty { return apply(.search(text)) }
        default:
            break
        }
        return []
    }
}
