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
        /// Search Spotify's catalogue, then `showCatalogResults`.
        case catalogSearch(String)
        /// The statistics of a playlist, then `showInfo`.
        case loadInfo(String)
        /// The versions timbre kept of a playlist, then `showVersions`.
        case loadVersions(String)
        /// A version compared with the current list, then `showVersionChanges`.
        case loadVersionChanges(String, version: Int)
        /// The answer to an order change's y / r / n question, to the edit waiting for it.
        case answerOrder(OrderChoice)
        /// Read the target's tracks from the cache, then `resolveAdd`: the add, or the duplicate question.
        case checkAdd(PendingAdd)
        /// Put the text on the system clipboard (OSC 52 through the terminal).
        case copyToClipboard(String)
        /// Send a command to the player (held keys joined into one request), then read it once.
        case player(PlayerRequest)
        /// Read the devices, then `showDevices(_:then:)`: `then` goes to the active device, or
        /// waits in the picker for one.
        case pickDevice(then: PlayerRequest?)
        /// Read the playlist's tracks, then `focusTrack(uri:)` (`O`).
        case openPlaying(playlistID: String, uri: String)
        /// `c` while the last read said nothing plays: read the player, then `playPauseAfterRead()`.
        case playPauseAfterRead
    }

    /// One event from the terminal. Help and messages scroll (Overlay.swift); in an input mode
    /// keys edit the line (Typing.swift); otherwise digits make a count and the keymap names the
    /// command.
    mutating func handle(_ event: Terminal.InputEvent) -> [Effect] {
        if case .resize = event { return [] }
        // A warning in the status line has been seen once a key comes after it: it goes (`M`
        // keeps it), so it cannot come back later — as it did when `U` cleared the sync's error.
        status.lastMessage = nil
        // `gg`: only a `g` right after a `g` (no other key between) is the same motion.
        let repeatsTop = afterTopKey
        afterTopKey = false
        switch mode.kind {
        case .help, .messages: return overlayKey(event)
        case .versions: return versionsKey(event)
        case .info:
            mode = .normal
            return []
        case .confirm: return questionKey(event)
        case .filterInput, .promptInput, .searchInput, .catalogInput: return typingKey(event)
        case .picker: return pickerKey(event)
        case .normal, .searchResults, .catalogResults: break
        }
        let key: Key?
        switch event {
        case .key(let named): key = named
        case .character(let character): key = character == " " ? Key("Space") : Key(String(character))
        case .resize: key = nil
        }
        guard let key else {
            pendingCount = nil
            return []
        }
        // A digit not bound in [keys] is a count (vim's `5j`); 0 only after another digit.
        if pendingKeys.isEmpty, keymap.command(for: key) == nil, let digit = Int(key.name), digit > 0 || pendingCount != nil {
            pendingCount = min(Self.countLimit, (pendingCount ?? 0) * 10 + digit)
            return []
        }
        if let effects = sequenceKey(key) { return effects }
        let count = pendingCount
        pendingCount = nil
        guard let command = keymap.command(for: key) else { return [] }
        if case .cursor(.top, _) = command {
            afterTopKey = true
            // `gg` is `g`, and `5gg` is `5g`: the second key stays where the first one went.
            if repeatsTop, count == nil { return [] }
        }
        return apply(command, count: count)
    }

    /// The largest count (as `move down N` takes).
    static let countLimit = 10_000

    /// A command with a count typed before its key: motions go that far (`5G` to the fifth row), `J`/`K` move that many
    /// places, `n`/`N` and Space repeat, `d` and `y` take that many entries from the cursor on;
    /// other commands ignore it.
    mutating func apply(_ command: Command, count: Int?) -> [Effect] {
        guard let count else { return apply(command) }
        if case .cursor(let motion, _) = command, motion == .top || motion == .bottom {
            // `1G`, `42G`, `42gg`: vim's line numbers (counted from 1) — the entry labelled 42.
            message = nil
            goTo(label: count)
            return []
        }
        guard count > 1 else { return apply(command) }
        switch command {
        case .cursor(let motion, let times): return apply(.cursor(motion, count: min(Self.countLimit, times * count)))
        // `3.`: 30 s; `4+`: 20 %.
        case .seek(let seconds): return apply(.seek(seconds * min(count, 100)))
        case .volume(let step): return apply(.volume(step * min(count, 100)))
        case .shift(let direction):
            message = nil
            return shift(direction, by: count)
        case .nextMatch, .previousMatch, .mark:
            return (0..<count).flatMap { _ in apply(command) }
        case .remove, .yank:
            // `3d`, `3y`: the entry under the cursor and the ones after it (marked, so the
            // question and the status line show which).
            guard mode == .normal, focus == .tracks, effectiveMarks.isEmpty, visibleTracks.indices.contains(trackCursor) else { return apply(command) }
            marks = Set(visibleTracks[trackCursor..<min(visibleTracks.count, trackCursor + count)].map { tracks[$0].position })
            return apply(command)
        default: return apply(command)
        }
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
            return [.catalogSearch(text)]
        // A key bound to `filter text` does nothing over search results (from the `:` prompt the
        // mode is already back to normal).
        case .filter(.some) where mode != .normal: return []
        default: message = nil
        }
        switch command {
        case .cursor(let motion, let count): move(motion, count: count)
        case .focus(let target): changeFocus(target)
        case .open: return open()
        case .filter(let text): filter(text)
        case .nextMatch: nextMatch(forward: true)
        case .previousMatch: nextMatch(forward: false)
        case .clear: clear()
        case .order(let change): order(change)
        case .search:
            // With text it returned above.
            mode = .typing(.search, PromptLine())
        case .sync: return [.startSync]
        case .help: mode = mode.kind == .help ? .normal : .help(Overlay())
        case .messages: mode = mode.kind == .messages ? .normal : .messages(Overlay())
        case .redraw: return [.redraw]
        case .prompt:
            mode = .typing(.command, PromptLine())
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
            mode = .typing(.catalog, PromptLine())
        case .addTo(let query): return openPicker(query: query)
        case .copyLink: return copyLink()
        case .info: return info()
        case .versions: return openVersions()
        case .toggle: return toggle()
        case .new, .rename, .delete, .dedupe, .shuffle, .sort, .saveOrder, .export, .importFile, .folder:
            return playlistVerb(command)
        case .play, .playPause, .nextTrack, .previousTrack, .seek, .volume, .devices, .queue, .showPlaying:
            return playback(command)
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
        if mode.kind == .catalogResults { return addCatalogSelection() }
        if focus == .playlists, selectedFolder != nil { return toggleSelectedFolder() }
        if focus == .playlists, let playlist = selectedPlaylist {
            focus = .tracks
            return [.loadTracks(playlist.id)]
        }
        if focus == .tracks, mode == .normal, selectedTrack != nil { return playEntry() }
        return []
    }

    /// `filter TEXT` (free text and field terms), or `/` to type one.
    private mutating func filter(_ text: String?) {
        guard let text else {
            // A new pattern each time, as vim's `/`; the one in force is one Up away.
            promptHistory.add(currentFilter, for: .filter)
            var line = PromptLine()
            line.previous = currentFilter
            mode = .typing(.filter, line)
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
            reportError(error.description)
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

    /// Orders the view; the cursor stays on the track it was on.
    mutating func order(_ change: Command.SortChange) {
        let selectedRow: Int? = visibleTracks.indices.contains(trackCursor) ? visibleTracks[trackCursor] : nil
        switch change {
        case .set(let field, let order):
            sortField = field
            sortOrder = order ?? .asc
        case .nextField:
            let all = Command.ViewOrderKey.allCases
            sortField = all[(all.firstIndex(of: sortField).map { $0 + 1 } ?? 0) % all.count]
            sortOrder = .asc
        case .reverse:
            sortOrder = sortOrder == .asc ? .desc : .asc
        }
        resort()
        if let playlist = openedPlaylistID {
            viewOrders[playlist] = sortField == .position && sortOrder == .asc ? nil : ViewOrder(field: sortField, order: sortOrder)
        }
        if let selectedRow, let row = visibleTracks.firstIndex(of: selectedRow) { trackCursor = row }
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
}
