import Foundation
import TimbreCore
import TimbreLibrary

/// The one place a key or a `Command` becomes a state change plus the effects the app loop runs.
extension TUIState {
    /// What a command needs beyond the state change: reading the cache, the background sync, the
    /// terminal, an edit (through `TUIServices`), quitting. `TUIApp` runs these in order and
    /// nothing else.
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
        /// Run an edit in the background (one at a time, in order), then re-read what it changed.
        case edit(TUIEdit)
        /// Search Spotify's catalogue, then `showCatalogueResults`.
        case catalogueSearch(String)
        /// The statistics of a playlist, then `showInfo`.
        case loadInfo(String)
        /// The answer to an order change's y / r / n question, to the edit waiting for it.
        case answerOrder(OrderChoice)
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
        case .key where mode.kind == .info, .character where mode.kind == .info:
            mode = .normal
            return []
        case .character(let character) where mode.kind == .confirm:
            return answer(key: character)
        case .key where mode.kind == .confirm:
            return answer(key: nil)
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
            guard let key = character == " " ? Key("Space") : Key(String(character)), let command = keymap.command(for: key) else { return [] }
            return apply(command)
        }
    }

    var isTyping: Bool {
        if case .typing = mode { return true }
        return false
    }

    /// Applies a command: changes the state and returns what the app must do about it.
    @discardableResult
    public mutating func apply(_ command: Command) -> [Effect] {
        switch command {
        // These leave the message line as it is (search results replace it themselves).
        case .redraw: return [.redraw]
        case .search(let text?): return [.search(text)]
        case .add(let text?):
            // The query's results replace the message line themselves.
            guard changeablePlaylist("add to") != nil else { return [] }
            return [.catalogueSearch(text)]
        // A key bound to `filter text` does nothing over search results (from the `:` prompt the
        // mode is already back to normal).
        case .filter(.some) where mode != .normal: return []
        default: message = nil
        }
        switch command {
        case .move(let motion, let count): move(motion, count: count)
        case .focus(let target): changeFocus(target)
        case .open: return open()
        case .filter(let text): filter(text)
        case .nextMatch: move(.down, count: 1, wrap: true)
        case .previousMatch: move(.up, count: 1, wrap: true)
        case .clear: clear()
        case .order(let change): order(change)
        case .search:
            // With text it returned above.
            mode = .typing(.search, text: "")
        case .sync: return [.startSync]
        case .help: mode = mode == .help ? .normal : .help
        case .messages: mode = mode == .messages ? .normal : .messages
        case .redraw: return [.redraw]
        case .prompt:
            mode = .typing(.command, text: "")
        case .quit: return [.quit]
        case .mark: toggleMark()
        case .markRange: toggleRange()
        case .remove: return removeSelection()
        case .yank: yank()
        case .paste(let place): return paste(place)
        case .shift(let direction): return shift(direction)
        case .undo: return [.edit(.undo)]
        case .redo: return [.edit(.redo)]
        case .add:
            // With text it returned above.
            guard changeablePlaylist("add to") != nil else { return [] }
            mode = .typing(.catalogue, text: "")
        case .info: return info()
        case .toggle: return toggle()
        case .new, .rename, .delete, .dedupe, .shuffle, .sort, .saveOrder, .export, .importFile, .folder:
            return playlistVerb(command)
        }
        return []
    }

    private mutating func changeFocus(_ target: Command.Focus) {
        switch target {
        case .next, .previous: focus = focus == .playlists ? .tracks : .playlists
        case .playlists: focus = .playlists
        case .tracks: focus = .tracks
        }
    }

    /// Enter: jump to a search hit, add the catalogue's marks, open a folder or a playlist.
    private mutating func open() -> [Effect] {
        if mode.kind == .searchResults { return jumpToSearchHit() }
        if mode.kind == .catalogueResults { return addCatalogueSelection() }
        if focus == .playlists, selectedFolder != nil { return toggleSelectedFolder() }
        if focus == .playlists, let playlist = selectedPlaylist {
            focus = .tracks
            return [.loadTracks(playlist.id)]
        }
        return []
    }

    /// `filter TEXT` (free text and field terms), or `/` to type one.
    private mutating func filter(_ text: String?) {
        guard let text else {
            mode = .typing(.filter, text: currentFilter)
            return
        }
        do {
            let (fields, rest) = try EntryFilter.parse(text)
            if fields.isEmpty {
                setFilter(text)
            } else {
                // Field terms filter entries: they apply to the tracks pane.
                focus = .tracks
                entryFilter = fields
                setFilter(rest)
                message = "filter: \(fields)\(rest.isEmpty ? "" : " /\(rest)") — Esc clears"
            }
        } catch {
            message = error.description
        }
    }

    /// Esc: leaves a mode (and drops its data), else clears the marks, else the filter.
    private mutating func clear() {
        if mode != .normal {
            mode = .normal
        } else if !clearMarks() {
            if !entryFilter.isEmpty { entryFilter = EntryFilter() }
            setFilter("")
        }
    }

    mutating func order(_ change: Command.SortChange) {
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
        if let playlist = openedPlaylistID {
            viewOrders[playlist] = sortField == .position && sortOrder == .asc ? nil : ViewOrder(field: sortField, order: sortOrder)
        }
        message = "sorted by \(sortField.rawValue) \(sortOrder == .asc ? "↑" : "↓")"
    }

    private mutating func info() -> [Effect] {
        guard let playlist = subjectPlaylist else {
            message = "select a playlist for its statistics"
            return []
        }
        return [.loadInfo(playlist.id)]
    }

    private mutating func toggle() -> [Effect] {
        guard focus == .playlists, selectedFolder != nil else {
            message = "o opens or closes the folder under the cursor (left pane)"
            return []
        }
        return toggleSelectedFolder()
    }

    /// Opens or closes the folder at the cursor, and keeps that state (user data).
    private mutating func toggleSelectedFolder() -> [Effect] {
        guard paneRows.indices.contains(playlistCursor), case .folder(let index) = paneRows[playlistCursor] else { return [] }
        let expanded = toggleFolder(index)
        return [.edit(.folder(.setExpanded(folders[index].name, expanded)))]
    }

    /// Enter on a search hit: selects its playlist (unfiltered) and asks for its tracks, with the
    /// cursor to go to the hit's row once they are loaded.
    private mutating func jumpToSearchHit() -> [Effect] {
        guard case .searchResults(let results) = mode, results.hits.indices.contains(results.cursor) else { return [] }
        let hit = results.hits[results.cursor]
        mode = .normal
        playlistFilter = ""
        // A hit in a closed folder opens it (for this run; `o` keeps a state).
        for index in folders.indices where !folders[index].expanded && folders[index].playlists.contains(hit.playlistID) {
            folders[index].expanded = true
        }
        refilterPlaylists()
        if let row = paneRows.firstIndex(where: { playlistIndex(of: $0).map { playlists[$0].id == hit.playlistID } ?? false }) { playlistCursor = row }
        focus = .tracks
        return [.loadTracks(hit.playlistID, focusing: hit.track.position)]
    }

    // MARK: Typing in a prompt

    public enum TypedKey: Sendable, Equatable { case character(Character), backspace, enter, escape }

    /// A key in an input mode. Enter runs what was typed at `:` (through `apply`) or starts the search.
    @discardableResult
    public mutating func type(_ key: TypedKey) -> [Effect] {
        guard case .typing(let prompt, var text) = mode else {
            // Outside a typing mode only Esc does something: back to normal.
            if key == .escape { mode = .normal }
            return []
        }
        switch (prompt, key) {
        case (_, .escape):
            if prompt == .filter { setFilter("") }
            mode = .normal
        case (.filter, .character(let c)):
            text.append(c)
            mode = .typing(.filter, text: text)
            setFilter(text)
        case (.filter, .backspace):
            if !text.isEmpty { text.removeLast() }
            mode = .typing(.filter, text: text)
            setFilter(text)
        case (.filter, .enter):
            mode = .normal
        case (_, .character(let c)):
            text.append(c)
            mode = .typing(prompt, text: text)
        case (_, .backspace):
            if text.isEmpty {
                mode = .normal
            } else {
                text.removeLast()
                mode = .typing(prompt, text: text)
            }
        case (.command, .enter):
            mode = .normal
            do {
                let command = try Command.parse(text)
                return apply(command)
            } catch {
                message = "\(error)"
            }
        case (.search, .enter), (.catalogue, .enter):
            let query = text.trimmingCharacters(in: .whitespaces)
            mode = .normal
            if !query.isEmpty { return apply(prompt == .search ? .search(query) : .add(query)) }
        }
        return []
    }
}
