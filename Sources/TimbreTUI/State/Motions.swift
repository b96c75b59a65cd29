import TimbreCore

/// vim's motions that go by label or pattern: `NG` (and `Ngg`) to the entry labelled N, `n`/`N` to
/// the next row holding the last `/` pattern once Esc has cleared the filter.
extension TUIState {
    /// `NG`: in the tracks pane the entry labelled N (its position), wherever the filter hides
    /// rows or the sort puts it; elsewhere the Nth row. An entry the filter hides leaves the
    /// cursor on the nearest one shown after it (or before it), and says so.
    mutating func goTo(label: Int) {
        guard mode == .normal, focus == .tracks, !visibleTracks.isEmpty else {
            move(.top, count: 1)
            if label > 1 { move(.down, count: label - 1) }
            return
        }
        let position = label - 1
        if let row = visibleTracks.firstIndex(where: { tracks[$0].position == position }) {
            trackCursor = row
            return
        }
        let shown = visibleTracks.enumerated().map { (row: $0.offset, position: tracks[$0.element].position) }
        let nearest =
            shown.filter { $0.position > position }.min { $0.position < $1.position }
            ?? shown.filter { $0.position < position }.max { $0.position < $1.position }
        guard let nearest else { return }
        trackCursor = nearest.row
        let total = tracks.map(\.position).max().map { $0 + 1 } ?? 0
        message =
            label > total
            ? "the list has \(Self.grouped(total)) entries: on the last one shown"
            : "entry \(label) is hidden by the filter: on \(nearest.position + 1), the nearest shown"
    }

    /// `n`/`N`: the next (previous) row of the filtered view, wrapping; with no filter in force
    /// (Esc cleared it) the next row holding the pane's last `/` pattern, as vim's search history.
    mutating func nextMatch(forward: Bool) {
        let pattern = lastPattern[focus] ?? ""
        guard mode == .normal, currentFilter.isEmpty, entryFilter.isEmpty || focus == .playlists, !pattern.isEmpty else {
            move(forward ? .down : .up, count: 1, wrap: true)
            return
        }
        let needle = SearchText.foldedBytes(pattern)
        let hits: [Bool]
        let cursor: Int
        if focus == .tracks {
            let matching = Set(trackColumns.rows(matching: needle, among: visibleTracks))
            hits = visibleTracks.map { matching.contains($0) }
            cursor = trackCursor
        } else {
            hits = paneRows.map { row in
                guard case .playlist(let index, _) = row else { return false }
                return SearchText.contains(SearchText.foldedBytes(playlists[index].name), needle)
            }
            cursor = playlistCursor
        }
        let total = hits.count
        guard total > 0 else { return }
        for step in 1...total {
            let row = ((cursor + (forward ? step : -step)) % total + total) % total
            guard hits[row] else { continue }
            if focus == .tracks { trackCursor = row } else { playlistCursor = row }
            let wrapped = forward ? row <= cursor : row >= cursor
            if wrapped { message = forward ? "search hit the end, continuing at the top" : "search hit the top, continuing at the end" }
            return
        }
        message = "“\(TerminalText.preview(pattern, limit: 40))” is not in this list"
    }
}
