import TimbreCore

/// Which rows are visible, in what order, and where the cursors are: the filter, the sort and the
/// motions keep these in step with the rows.
extension TUIState {
    var currentFilter: String { focus == .playlists ? playlistFilter : trackFilter }

    /// Sets the filter of the focused pane. The cursor goes to the first match; when the filter
    /// is cleared it stays on the row it was on (`/river Enter n n Esc` keeps the place).
    mutating func setFilter(_ text: String) {
        if focus == .playlists {
            let selected = paneRows.indices.contains(playlistCursor) ? paneRows[playlistCursor] : nil
            playlistFilter = text
            refilterPlaylists()
            playlistCursor = 0
            if text.isEmpty, let selected, let row = paneRow(of: selected) { playlistCursor = row }
        } else {
            let selectedRow: Int? = visibleTracks.indices.contains(trackCursor) ? visibleTracks[trackCursor] : nil
            let previous = SearchText.foldedBytes(trackFilter)
            let next = SearchText.foldedBytes(text)
            trackFilter = text
            if !previous.isEmpty, next.starts(with: previous) {
                // (The field filter kept only rows it matches; narrowing keeps that.)
                // Typing narrows: every match of the longer text matched the shorter one, and the
                // visible rows are already sorted, so filter them in place.
                visibleTracks = trackColumns.rows(matching: next, among: visibleTracks)
            } else {
                resort()
            }
            trackCursor = 0
            if text.isEmpty, let selectedRow, let row = visibleTracks.firstIndex(of: selectedRow) { trackCursor = row }
        }
        clampCursors()
    }

    /// Where a playlist or folder row of the unfiltered pane is now (the same playlist, in or out of a folder).
    private func paneRow(of row: PaneRow) -> Int? {
        switch row {
        case .folder(let index): return paneRows.firstIndex(of: .folder(index))
        case .playlist(let index, _): return paneRows.firstIndex { playlistIndex(of: $0) == index }
        }
    }

    /// The playlists pane's rows. Liked Songs first, then each folder and (expanded) its
    /// playlists, then the playlists in no folder, in the library's order; while a filter is set,
    /// a flat list of the matching playlists.
    mutating func refilterPlaylists() {
        let needle = SearchText.foldedBytes(playlistFilter)
        if !needle.isEmpty {
            paneRows = playlists.indices.filter { SearchText.contains(SearchText.foldedBytes(playlists[$0].name), needle) }
                .map { .playlist($0, inFolder: false) }
            return
        }
        let indexByID = Dictionary(playlists.indices.map { (playlists[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        var inFolder = Set<Int>()
        var foldered: [PaneRow] = []
        for (folderIndex, folder) in folders.enumerated() {
            foldered.append(.folder(folderIndex))
            let members = folder.playlists.compactMap { indexByID[$0] }
            inFolder.formUnion(members)
            if folder.expanded { foldered += members.map { .playlist($0, inFolder: true) } }
        }
        let loose = playlists.indices.filter { !inFolder.contains($0) }
        let liked = loose.filter { playlists[$0].isLiked }
        paneRows =
            liked.map { .playlist($0, inFolder: false) } + foldered
            + loose.filter { !playlists[$0].isLiked }.map { .playlist($0, inFolder: false) }
    }

    /// Opens or closes a folder in the pane (the cursor stays on it); returns its new state.
    mutating func toggleFolder(_ index: Int) -> Bool {
        folders[index].expanded.toggle()
        refilterPlaylists()
        if let row = paneRows.firstIndex(of: .folder(index)) { playlistCursor = row }
        clampCursors()
        return folders[index].expanded
    }

    mutating func resort() {
        let needle = SearchText.foldedBytes(trackFilter)
        // Rows arrive in position order: the default sort needs no work.
        if sortField == .position, sortOrder == .asc, tracksInPositionOrder {
            // Nothing to match: every row, without folding any text.
            visibleTracks = needle.isEmpty && entryFilter.isEmpty ? Array(tracks.indices) : applyEntryFilter(trackColumns.rows(matching: needle))
            return
        }
        // Otherwise every row is sorted once per list and order, and each filter keeps the
        // matching rows of that order: a keystroke costs one pass, not a sort.
        if sortedRows?.field != sortField || sortedRows?.order != sortOrder {
            sortedRows = (sortField, sortOrder, sortedIndices())
        }
        visibleTracks = applyEntryFilter(trackColumns.rows(matching: needle, among: sortedRows?.indices ?? []))
    }

    /// `:filter`'s field terms, after the text filter.
    private mutating func applyEntryFilter(_ rows: [Int]) -> [Int] {
        guard !entryFilter.isEmpty else { return rows }
        let tracks = self.tracks, columns = trackColumns
        return rows.filter { entryFilter.matches(tracks[$0], folded: columns, at: $0) }
    }

    /// Every row in the current sort order (ties by position).
    private mutating func sortedIndices() -> [Int] {
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
            case .year: return (rows[a].year ?? Int.min) < (rows[b].year ?? Int.min)
            case .duration: return rows[a].durationMS < rows[b].durationMS
            case .added: return (rows[a].addedAt ?? "") < (rows[b].addedAt ?? "")
            }
        }
        indices.sort { a, b in
            if key(a, b) { return sortOrder == .asc }
            if key(b, a) { return sortOrder == .desc }
            return rows[a].position < rows[b].position  // stable tie-break
        }
        return indices
    }

    mutating func move(_ motion: Command.Motion, count: Int, wrap: Bool = false) {
        if case .catalogResults(var results) = mode {
            results.cursor = Self.moved(results.cursor, motion, count: count, total: results.hits.count, page: pageSize, wrap: wrap)
            mode = .catalogResults(results)
            return
        }
        if case .searchResults(var results) = mode {
            results.cursor = Self.moved(results.cursor, motion, count: count, total: results.hits.count, page: pageSize, wrap: wrap)
            mode = .searchResults(results)
            return
        }
        if focus == .playlists {
            playlistCursor = Self.moved(playlistCursor, motion, count: count, total: paneRows.count, page: pageSize, wrap: wrap)
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
        case .halfpageup: next = cursor - max(1, page / 2) * count
        case .halfpagedown: next = cursor + max(1, page / 2) * count
        }
        if wrap { next = ((next % total) + total) % total }
        return min(max(0, next), total - 1)
    }

    mutating func clampCursors() {
        playlistCursor = min(max(0, playlistCursor), max(0, paneRows.count - 1))
        trackCursor = min(max(0, trackCursor), max(0, visibleTracks.count - 1))
    }
}
