import Foundation
import TimbreCore

/// A run of text in one style. Text is always sanitised and measured by display width.
public struct Segment: Sendable, Equatable {
    public enum Style: Sendable, Equatable { case normal, selected, current, header, dim, status, warning }
    public var text: String
    public var style: Style

    public init(_ text: String, _ style: Style = .normal) {
        self.text = text
        self.style = style
    }
}

/// Lays the state out on a rows × columns grid. Every line it returns is exactly `columns` wide,
/// so nothing the API sent can push text outside its cell.
public enum Screen {
    public static let minimumColumns = 60
    public static let minimumRows = 10

    public static func render(_ state: TUIState, rows: Int, columns: Int) -> [[Segment]] {
        guard rows >= minimumRows, columns >= minimumColumns else {
            return tooSmall(rows: rows, columns: columns)
        }
        let leftWidth = max(24, min(44, columns / 3))
        let rightWidth = columns - leftWidth - 1
        if state.currentOverlay != nil { return overlay(state, rows: rows, columns: columns) }
        // The lines under the body: a question or a message wrapped onto as many as it needs, the
        // `:` prompt with its candidates under it; one line otherwise. The body keeps 3 rows.
        // The now-playing line (with a player) sits over the status line.
        let playerLine = nowPlayingLine(state, width: columns)
        let playerRows = playerLine == nil ? 0 : 1
        let bottom = bottomLines(state, width: columns, room: rows - 5 - playerRows)
        let bodyRows = rows - 2 - bottom.count - playerRows
        var lines: [[Segment]] = []

        // Header row.
        let filterNote = state.playlistFilter.isEmpty ? "" : "  /\(state.playlistFilter)"
        // All of them (some may be in closed folders), or the matches of the filter.
        let shown = state.playlistFilter.isEmpty ? state.playlists.count : state.visiblePlaylists.count
        let left = TextWidth.pad(" Playlists (\(shown))\(filterNote)", columns: leftWidth)
        lines.append([Segment(left, .header), Segment("│", .dim), Segment(TextWidth.pad(rightHeader(state, width: rightWidth), columns: rightWidth), .header)])

        let leftRows = playlistLines(state, width: leftWidth, height: bodyRows)
        let rightRows: [Segment]
        switch state.mode {
        case .searchResults: rightRows = searchLines(state, width: rightWidth, height: bodyRows)
        case .catalogResults: rightRows = catalogLines(state, width: rightWidth, height: bodyRows)
        case .info: rightRows = infoLines(state, width: rightWidth, height: bodyRows)
        case .versions: rightRows = versionLines(state, width: rightWidth, height: bodyRows)
        case .picker(let picker): rightRows = pickerLines(picker, width: rightWidth, height: bodyRows)
        default: rightRows = trackLines(state, width: rightWidth, height: bodyRows)
        }
        for index in 0..<bodyRows {
            lines.append([leftRows[index], Segment("│", .dim), rightRows[index]])
        }
        lines += bottom.map { [$0] }
        if let playerLine { lines.append([playerLine]) }
        lines.append([Segment(TextWidth.pad(statusText(state, width: columns), columns: columns), .status)])
        return lines
    }

    /// Help or messages over the whole body, scrolled to the overlay's first line; in the help,
    /// group titles stand out, and lines holding the `/` query are highlighted.
    static func overlay(_ state: TUIState, rows: Int, columns: Int) -> [[Segment]] {
        let bodyRows = rows - 3
        let text = state.overlayText
        let overlay = state.currentOverlay ?? TUIState.Overlay()
        let top = min(overlay.top, max(0, text.count - bodyRows))
        let shown = text.isEmpty ? "" : " — lines \(top + 1)–\(min(text.count, top + bodyRows)) of \(text.count)"
        var lines = [[Segment(TextWidth.pad(rightHeader(state) + shown, columns: columns), .header)]]
        let needle = overlay.typingQuery ? "" : overlay.query.lowercased()
        for index in top..<(top + bodyRows) {
            guard text.indices.contains(index) else {
                let empty = index == 0 && state.mode.kind == .messages ? "  No messages." : ""
                lines.append([Segment(TextWidth.pad(empty, columns: columns), .dim)])
                continue
            }
            let line = text[index]
            var style: Segment.Style = state.mode.kind == .help && KeyHelp.isTitle(line) ? .header : .normal
            if !needle.isEmpty, line.lowercased().contains(needle) { style = .selected }
            lines.append([Segment(TextWidth.pad(line, columns: columns), style)])
        }
        lines.append([inputLine(state, width: columns)])
        lines.append([Segment(TextWidth.pad(statusText(state, width: columns), columns: columns), .status)])
        return lines
    }

    /// The notice, wrapped to the width it has (the short form when even that does not fit), in
    /// the middle of the rows.
    static func tooSmall(rows: Int, columns: Int) -> [[Segment]] {
        let long = "Terminal too small (\(columns)×\(rows)); timbre needs \(minimumColumns)×\(minimumRows)."
        var text = TextWidth.wrap(long, columns: max(1, columns))
        if text.count > max(rows, 0) { text = TextWidth.wrap("\(minimumColumns)×\(minimumRows) needed", columns: max(1, columns)) }
        let top = max(0, (rows - text.count) / 2)
        return (0..<max(rows, 0)).map { row in
            [Segment(TextWidth.pad(text.indices.contains(row - top) ? text[row - top] : "", columns: max(columns, 0)))]
        }
    }

    /// The right pane's title, with the mode's keys after it when they fit in `width` (else the
    /// hint line shows them: `modeKeys`).
    static func rightHeader(_ state: TUIState, width: Int = .max) -> String {
        if let (title, keys) = modeTitle(state) {
            let whole = title + " — " + keys
            return TextWidth.width(of: whole) <= width ? whole : title
        }
        if state.mode.kind == .help { return " Keys, as bound now" }
        if state.mode.kind == .messages { return " Messages (\(state.messages.count)), newest first" }
        if let picker = state.picker { return pickerHeader(picker) }
        guard let playlist = state.openedPlaylist else { return " Tracks — Enter opens the selected playlist" }
        var tail = " · \(state.visibleTracks.count + (state.tracksToCome ?? 0))"
        if state.visibleTracks.count != state.tracks.count { tail += "/\(state.tracks.count + (state.tracksToCome ?? 0))" }
        // The parts after the name and count, most needed first: each shown whole or not at all
        // (a narrow pane drops the ones that do not fit rather than cutting one mid-word). A long
        // name is cut (down to `shortestName` columns) before the count and the sort are dropped.
        var parts: [String] = []
        if !playlist.editable { parts.append("🔒 read-only") }
        if !state.trackFilter.isEmpty { parts.append("/\(state.trackFilter)") }
        if !state.entryFilter.isEmpty { parts.append("filter \(state.entryFilter)") }
        parts.append("sort \(state.sortField.rawValue) \(state.sortOrder == .asc ? "↑" : "↓")")
        if !playlist.isLiked { parts.append(playlist.visibility.rawValue) }
        let name = TerminalText.sanitize(playlist.name)
        let nameWidth = TextWidth.width(of: name)
        let shortestName = min(nameWidth, 16)
        for part in parts {
            let longer = tail + " · " + part
            if 1 + shortestName + TextWidth.width(of: longer) <= width { tail = longer }
        }
        let nameColumns = width - 1 - TextWidth.width(of: tail)
        return " " + (nameWidth <= nameColumns ? name : TextWidth.fit(name, columns: max(1, nameColumns))) + tail
    }

    /// The title of a mode over the right pane and the keys it takes.
    static func modeTitle(_ state: TUIState) -> (title: String, keys: String)? {
        switch state.mode {
        case .searchResults: return (" Search results (\(state.searchResults.count))", "Enter jumps, Esc closes")
        case .catalogResults: return (" Spotify catalogue (\(state.catalogResults.count))", "Space marks, Enter adds, Esc closes")
        case .info: return (" Statistics of “\(state.infoTitle)”", "any key closes")
        case .versions(let versions):
            return (
                " Versions of “\(versions.title)” (\(versions.rows.count))",
                versions.diff == nil ? "Enter compares with now, r restores, Esc closes" : "r restores it, Esc goes back"
            )
        default: return nil
        }
    }

    static func window(cursor: Int, total: Int, height: Int) -> Range<Int> {
        guard total > height else { return 0..<total }
        let top = max(0, min(cursor - height / 2, total - height))
        return top..<(top + height)
    }

    static func playlistLines(_ state: TUIState, width: Int, height: Int) -> [Segment] {
        let range = window(cursor: state.playlistCursor, total: state.paneRows.count, height: height)
        var out: [Segment] = []
        // The cursor of the pane without focus: dim reverse, and `›` in a column of its own.
        let width = width - 1
        for row in range {
            let selected = row == state.playlistCursor
            let cursorStyle: Segment.Style = state.focus == .playlists ? .selected : .current
            let gutter = selected && state.focus != .playlists ? "›" : " "
            switch state.paneRows[row] {
            case .folder(let index):
                let folder = state.folders[index]
                let count = String(folder.playlists.count)
                let text = (folder.expanded ? "▾ " : "▸ ") + TextWidth.pad(folder.name, columns: width - 4 - count.count) + " " + count + " "
                out.append(Segment(gutter + TextWidth.pad(text, columns: width), selected ? cursorStyle : .header))
            case .playlist(let index, let inFolder):
                let playlist = state.playlists[index]
                let count = String(playlist.trackCount)
                let marker = (inFolder ? "  " : "") + (playlist.isLiked ? "♥ " : (playlist.unavailable ? "⊘ " : (playlist.editable ? "  " : "🔒")))
                let visibility = playlist.isLiked ? " " : playlist.visibility.marker
                let nameWidth = width - TextWidth.width(of: marker) - count.count - 3
                let text = marker + TextWidth.pad(playlist.name, columns: nameWidth) + " " + visibility + count + " "
                let style: Segment.Style = selected ? cursorStyle : (playlist.unavailable ? .dim : .normal)
                out.append(Segment(gutter + TextWidth.pad(text, columns: width), style))
            }
        }
        if state.playlists.isEmpty {
            out.append(Segment(TextWidth.pad(" (no playlists cached yet)", columns: width + 1), .dim))
        }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width + 1))) }
        return Array(out.prefix(height))
    }

    struct Columns {
        var title: Int, artist: Int, album: Int, showAlbum: Bool, showAdded: Bool
    }

    static func trackColumns(width: Int) -> Columns {
        let showAdded = width >= 90
        let showAlbum = width >= 64
        let fixed = 6 + 8 + (showAdded ? 11 : 0)
        let flexible = max(10, width - fixed - (showAlbum ? 3 : 2))
        if showAlbum {
            let title = flexible * 4 / 10, artist = flexible * 3 / 10
            return Columns(title: title, artist: artist, album: flexible - title - artist, showAlbum: true, showAdded: showAdded)
        }
        let title = flexible * 6 / 10
        return Columns(title: title, artist: flexible - title, album: 0, showAlbum: false, showAdded: showAdded)
    }

    static func trackLines(_ state: TUIState, width: Int, height: Int) -> [Segment] {
        var out: [Segment] = []
        if let opened = state.openedPlaylist, opened.unavailable, state.tracks.isEmpty {
            let reason = opened.unavailableReason ?? "Spotify does not let this app read this playlist's entries"
            out.append(Segment(TextWidth.pad(" \(reason).", columns: width), .dim))
        } else if state.openedPlaylist != nil, state.tracks.isEmpty {
            out.append(Segment(TextWidth.pad(" (empty — or not synced yet: press U)", columns: width), .dim))
        }
        let c = trackColumns(width: width)
        let range = window(cursor: state.trackCursor, total: state.visibleTracks.count, height: height)
        let marks = state.effectiveMarks
        for row in range {
            let track = state.tracks[state.visibleTracks[row]]
            let marked = marks.contains(track.position)
            // A row the view shows ahead of Spotify (a move not confirmed yet): dim, with "…".
            let pending = state.pendingRows.contains(track.position)
            let unfocusedCursor = row == state.trackCursor && state.focus != .tracks
            var text =
                (marked ? "•" : pending ? "…" : unfocusedCursor ? "›" : " ") + String(track.position + 1).leftPadded(to: 4) + " "
                + TextWidth.pad(track.title, columns: c.title) + " "
                + TextWidth.pad(track.artist, columns: c.artist) + " "
            if c.showAlbum { text += TextWidth.pad(track.album, columns: c.album) + " " }
            text += track.duration.leftPadded(to: 7)
            if c.showAdded { text += "  " + TextWidth.pad(String((track.addedAt ?? "").prefix(10)), columns: 10) }
            let style: Segment.Style =
                row == state.trackCursor ? (state.focus == .tracks ? .selected : .current) : (marked ? .header : pending ? .dim : .normal)
            out.append(Segment(TextWidth.pad(text, columns: width), style))
        }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width))) }
        return Array(out.prefix(height))
    }

    static func catalogLines(_ state: TUIState, width: Int, height: Int) -> [Segment] {
        let range = window(cursor: state.catalogCursor, total: state.catalogResults.count, height: height)
        var out: [Segment] = range.map { row in
            let hit = state.catalogResults[row]
            let marked = state.catalogMarks.contains(row)
            let duration = ClockText.minutesSeconds(milliseconds: hit.durationMS).leftPadded(to: 6)
            let text = (marked ? "•" : " ") + " " + TextWidth.pad("\(hit.title) — \(hit.artist) · \(hit.album)", columns: width - 9) + duration
            return Segment(TextWidth.pad(text, columns: width), row == state.catalogCursor ? .selected : (marked ? .header : .normal))
        }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width))) }
        return Array(out.prefix(height))
    }

    /// Each statistic wrapped to the pane, its continuation lines indented under it.
    static func infoLines(_ state: TUIState, width: Int, height: Int) -> [Segment] {
        var out = state.infoLines.flatMap { line in
            TextWidth.wrap(line, columns: max(10, width - 4)).enumerated().map { index, part in
                Segment(TextWidth.pad((index == 0 ? "  " : "    ") + part, columns: width))
            }
        }
        if out.isEmpty { out.append(Segment(TextWidth.pad("  (no statistics)", columns: width), .dim)) }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width))) }
        return Array(out.prefix(height))
    }

    /// The versions, or one compared with now: its first line (what a restore does) wrapped to the
    /// pane, the changes under it one a line.
    static func versionLines(_ state: TUIState, width: Int, height: Int) -> [Segment] {
        var lines = state.versionLines
        if state.versions?.diff != nil, let head = lines.first {
            lines = TextWidth.wrap(head.text, columns: max(10, width - 3)).map { ($0, false) } + lines.dropFirst()
        }
        let cursor = lines.firstIndex { $0.selected } ?? 0
        let range = window(cursor: cursor, total: lines.count, height: height)
        var out = range.map { index in
            let line = lines[index]
            let style: Segment.Style =
                line.selected ? .selected : line.text.hasPrefix("+") ? .header : line.text.hasPrefix("-") ? .warning : .normal
            return Segment(TextWidth.pad("  " + line.text, columns: width), style)
        }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width))) }
        return Array(out.prefix(height))
    }

    static func searchLines(_ state: TUIState, width: Int, height: Int) -> [Segment] {
        let range = window(cursor: state.searchCursor, total: state.searchResults.count, height: height)
        var out: [Segment] = range.map { row in
            let hit = state.searchResults[row]
            let playlistWidth = min(24, width / 3)
            // What matched, in a column of its own at the end; an album match shows the album.
            let field = hit.field.rawValue
            let album = hit.field == .album ? " · \(hit.track.album)" : ""
            let text =
                " " + TextWidth.pad(hit.playlistName, columns: playlistWidth) + " › "
                + TextWidth.pad("\(hit.track.position + 1). \(hit.track.title) — \(hit.track.artist)\(album)", columns: max(0, width - playlistWidth - 12))
                + " " + TextWidth.pad(field, columns: 7)
            return Segment(TextWidth.pad(text, columns: width), row == state.searchCursor ? .selected : .normal)
        }
        while out.count < height { out.append(Segment(String(repeating: " ", count: width))) }
        return Array(out.prefix(height))
    }

    /// The one line under the body: the line being typed, else the message (its first line), else
    /// the keys to try. `bottomLines` gives more room to what needs it.
    static func inputLine(_ state: TUIState, width: Int) -> Segment {
        if let overlay = state.currentOverlay {
            if overlay.typingQuery { return Segment(TextWidth.pad("/" + overlay.query + "▏", columns: width)) }
            if state.message == nil { return Segment(TextWidth.pad(hint(overlayHints, width: width), columns: width), .dim) }
        }
        switch state.mode {
        case .typing(let prompt, let line):
            let label: String
            switch prompt {
            case .filter: label = "/"
            case .command: label = ":"
            case .search: label = "Search all playlists: "
            case .catalog: label = "Add from Spotify, search: "
            }
            return Segment(TextWidth.pad(label + line.beforeCursor + "▏" + line.afterCursor, columns: width))
        case .confirm(let question): return questionLines(question, width: width, room: 1)[0]
        case .picker(let picker):
            let label = picker.purpose == .add ? "Add to: " : "Device: "
            return Segment(TextWidth.pad(label + picker.line.beforeCursor + "▏" + picker.line.afterCursor, columns: width))
        default:
            if let message = state.message {
                // An error kept in `M` says so when the line cannot show all of it.
                let inMessages = state.messages.last?.text == message
                return Segment(TextWidth.pad(" " + cut(message, columns: width - 1, more: inMessages), columns: width), .warning)
            }
            // The keys of a mode whose header had no room for them, else the keys to try.
            if let (title, keys) = modeTitle(state), rightHeader(state, width: width - max(24, min(44, width / 3)) - 1) == title {
                return Segment(TextWidth.pad(" " + keys, columns: width), .dim)
            }
            return Segment(TextWidth.pad(hint(normalHints, width: width), columns: width), .dim)
        }
    }

    /// `text`'s first line, cut to `columns` with " (M for more)" when `more` and anything is left out.
    static func cut(_ text: String, columns: Int, more: Bool) -> String {
        let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if first == text, TextWidth.width(of: text) <= columns { return text }
        guard more else { return TextWidth.fit(first, columns: columns) }
        let suffix = " (M for more)"
        return TextWidth.fit(first, columns: max(8, columns - suffix.count)) + suffix
    }

    static func statusText(_ state: TUIState, width: Int = 200) -> String {
        let status = state.status
        var parts: [String] = []
        parts.append(status.user.map { "♪ \($0)" } ?? "not signed in")
        // `v` marking a range: said for as long as it lasts, whatever moves the cursor.
        if state.rangeAnchor != nil { parts.append("-- VISUAL --") }
        if let count = state.pendingCount { parts.append("count \(count)") }
        if status.offline { parts.append("OFFLINE") }
        if let edit = status.editProgress {
            let stops = status.editStopKey.map { " — \($0) stops" } ?? "…"
            parts.append(edit + stops + (status.editsQueued > 0 ? " (+\(status.editsQueued) waiting)" : ""))
        }
        let marked = state.effectiveMarks.count
        if marked > 0 { parts.append("\(marked) marked") }
        if !state.register.isEmpty { parts.append("\(state.register.count) yanked") }
        if let progress = status.syncProgress { parts.append("syncing \(progress)") } else if let last = status.lastSync { parts.append("synced \(last)") }
        if let wait = status.rateLimitWait, wait > 0 { parts.append("rate-limited, waiting \(wait) s") }
        if let hint = status.hint { parts.append(hint) }
        let head = " " + parts.joined(separator: " · ")
        // The latest error or warning last, in the room left: its first line, and a pointer to
        // `M` when the whole of it does not fit.
        guard let notice = status.lastError.map({ "error: \($0)" }) ?? status.lastMessage.map({ "⚠ \($0)" }) else { return head }
        return head + " · " + cut(notice, columns: max(16, width - TextWidth.width(of: head) - 3), more: true)
    }
}
