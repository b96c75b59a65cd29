import Foundation
import TimbreCore
import TimbreLibrary

/// Marks, yank and paste, and every edit the interface can ask for: each becomes an
/// `Effect.edit` that the app runs through the same editor and journal as the CLI. A playlist the
/// user cannot change is refused here, before anything is sent.
extension TUIState {
    // MARK: Marks

    /// The marked positions, with the range `v` is drawing (anchor to cursor, in view order).
    public var effectiveMarks: Set<Int> {
        guard let anchor = rangeAnchor, let cursorRow = visibleTracks.indices.contains(trackCursor) ? trackCursor : nil,
            let anchorRow = visibleTracks.firstIndex(where: { tracks[$0].position == anchor })
        else { return marks }
        let rows = min(anchorRow, cursorRow)...max(anchorRow, cursorRow)
        return marks.union(rows.map { tracks[visibleTracks[$0]].position })
    }

    /// The marked entries in playlist order, or the one under the cursor when none is marked.
    var selection: [EntryRow] {
        let marked = effectiveMarks
        if marked.isEmpty { return selectedTrack.map { [$0] } ?? [] }
        return tracks.filter { marked.contains($0.position) }.sorted { $0.position < $1.position }
    }

    mutating func toggleMark() {
        if case .catalogResults(var results) = mode {
            guard results.hits.indices.contains(results.cursor) else { return }
            if results.marks.remove(results.cursor) == nil { results.marks.insert(results.cursor) }
            mode = .catalogResults(results)
            move(.down, count: 1)
            return
        }
        guard focus == .tracks, let row = selectedTrack else {
            message = "Space marks entries: open a playlist (Enter) first"
            return
        }
        if marks.remove(row.position) == nil { marks.insert(row.position) }
        move(.down, count: 1)
    }

    mutating func toggleRange() {
        guard focus == .tracks, let row = selectedTrack else {
            message = "v marks a range of entries: open a playlist (Enter) first"
            return
        }
        if rangeAnchor == nil {
            rangeAnchor = row.position
            message = "marking a range: move to extend it, v again to end it"
        } else {
            marks = effectiveMarks
            rangeAnchor = nil
        }
    }

    /// Esc's part: ends a range, else clears the marks. False when there was nothing to clear.
    mutating func clearMarks() -> Bool {
        guard rangeAnchor != nil || !marks.isEmpty else { return false }
        if rangeAnchor != nil {
            marks = effectiveMarks
            rangeAnchor = nil
        } else {
            marks = []
        }
        return true
    }

    // MARK: Which playlist

    /// The playlist a verb applies to: the open one when the tracks pane has the focus, else the selected one.
    var subjectPlaylist: PlaylistRow? { focus == .tracks ? openedPlaylist : selectedPlaylist }

    /// The open playlist when its entries may be changed; otherwise nil and a message saying why.
    mutating func changeablePlaylist(_ verb: String, orderMatters: Bool = false) -> PlaylistRow? {
        guard let playlist = subjectPlaylist else {
            message = "open a playlist first (Enter)"
            return nil
        }
        // A refused edit is an error: kept for `M` too.
        guard playlist.editable else {
            reportError(
                "🔒 “\(TerminalText.preview(playlist.name, limit: 40))” belongs to \(TerminalText.preview(playlist.owner, limit: 30)): only its owner or collaborators can \(verb) it; nothing was sent"
            )
            return nil
        }
        if orderMatters, playlist.isLiked {
            reportError("Liked Songs has no order of its own to \(verb); nothing was sent")
            return nil
        }
        return playlist
    }

    // MARK: Edits

    mutating func removeSelection() -> [Effect] {
        guard focus == .tracks else {
            message = "d removes entries: open a playlist (Enter) first"
            return []
        }
        guard let playlist = changeablePlaylist("change") else { return [] }
        guard !positionsUnsure(playlist.id) else {
            refuseUnsurePositions(playlist)
            return []
        }
        let rows = selection
        guard !rows.isEmpty else {
            message = "nothing to remove"
            return []
        }
        let name = TerminalText.preview(playlist.name, limit: 40)
        if playlist.isLiked {
            ask("Unlike \(rows.count) \(rows.count == 1 ? "song" : "songs")? (y/n)", [.edit(.change(.unlike(rows.map(\.uri))))])
        } else {
            guard let id = spotifyID(of: playlist) else { return [] }
            ask("Remove \(TUIEdit.count(rows.count)) from “\(name)”? (y/n) " + Self.named(rows), [.edit(.entries(id, .removePositions(rows.map(\.position))))])
        }
        // As vim's `d`: what goes also fills the register, so `p` elsewhere moves it.
        if case .confirm(var question) = mode {
            question.yanks = rows.map(\.uri).filter { !$0.isEmpty }
            mode = .confirm(question)
        }
        return []
    }

    mutating func yank() {
        let rows = focus == .tracks ? selection : []
        guard !rows.isEmpty else {
            message = "y copies entries: open a playlist and mark some (Space, v)"
            return
        }
        register = rows.map(\.uri).filter { !$0.isEmpty }
        registerSource = openedPlaylist?.name ?? ""
        marks = []
        rangeAnchor = nil
        message = "yanked \(TUIEdit.count(register.count)) — p pastes after the cursor, P before, in any playlist you can change"
    }

    mutating func paste(_ place: Command.Place) -> [Effect] {
        guard !register.isEmpty else {
            message = "nothing yanked yet (y copies the marked entries)"
            return []
        }
        guard focus == .tracks, let playlist = changeablePlaylist("add to") else {
            if message == nil { message = "p pastes into the open playlist: open one (Enter) first" }
            return []
        }
        let (addable, locals) = Self.addable(register)
        guard !addable.isEmpty else {
            reportError("local files cannot be added through Spotify's API; nothing was sent")
            return []
        }
        if locals > 0 { addMessage("\(locals) local file(s) left out: Spotify's API cannot add them") }
        if playlist.isLiked { return [.edit(.change(.like(addable)))] }
        guard !positionsUnsure(playlist.id) else {
            refuseUnsurePositions(playlist)
            return []
        }
        let position = selectedTrack.map { $0.position + (place == .after ? 1 : 0) } ?? 0
        return resolveAdd(PendingAdd(playlistID: playlist.id, playlistName: playlist.name, uris: addable, position: position), existing: Set(tracks.map(\.uri)))
    }

    /// The first few entries of a question by number and name ("#5 Title — Artist, … +3 more").
    static func named(_ rows: [EntryRow], limit: Int = 3) -> String {
        let shown = rows.prefix(limit).map { TerminalText.preview($0.label, limit: 60) }.joined(separator: ", ")
        return rows.count > limit ? shown + " +\(rows.count - limit) more" : shown
    }

    static func addable(_ uris: [String]) -> (uris: [String], locals: Int) {
        let addable = uris.filter { !$0.hasPrefix("spotify:local:") && !$0.isEmpty }
        return (addable, uris.count - addable.count)
    }

    /// J/K: the marked run (or the current entry) one place down or up, saved on Spotify; the
    /// marks and the cursor follow it.
    mutating func shift(_ direction: Command.Direction, by places: Int = 1) -> [Effect] {
        guard focus == .tracks, let playlist = changeablePlaylist("reorder", orderMatters: true) else { return [] }
        guard !positionsUnsure(playlist.id) else {
            refuseUnsurePositions(playlist)
            return []
        }
        guard sortField == .position, sortOrder == .asc else {
            message = "J/K move entries in the playlist's own order: press s until the header says “sort position ↑”"
            return []
        }
        let positions = selection.map(\.position)
        guard let first = positions.first, let last = positions.last else { return [] }
        guard last - first + 1 == positions.count else {
            message = "J/K move one run of entries: mark neighbours (v) or one entry"
            return []
        }
        let total = tracks.count
        // A count moves that many places, or as far as the list goes.
        let step = direction == .down ? min(places, total - 1 - last) : -min(places, first)
        guard step != 0 else {
            message = direction == .down ? "already at the end" : "already at the top"
            return []
        }
        let to = first + step
        guard let id = spotifyID(of: playlist) else { return [] }
        if !effectiveMarks.isEmpty {
            marks = Set(positions.map { $0 + step })
            rangeAnchor = nil
        }
        move(direction == .down ? .down : .up, count: abs(step))
        moveAhead(start: first, length: positions.count, to: to)
        return [.edit(.entries(id, .move(start: first, length: positions.count, to: to)))]
    }

    /// The Spotify id of a playlist the interface shows; nil, and the reason said, for one without
    /// (Liked Songs is not a playlist to Spotify: its changes are likes and unlikes).
    mutating func spotifyID(of playlist: PlaylistRow) -> SpotifyID? {
        if let id = SpotifyID(playlist.id) { return id }
        reportError("“\(TerminalText.preview(playlist.name, limit: 40))” is not a playlist Spotify can change that way; nothing was sent")
        return nil
    }

    /// An edit starts: the view shows what it will leave when it can (moves were already moved by
    /// J/K; removals take their rows out now); when it cannot (adds, dedupe, shuffle, undo…),
    /// positions typed meanwhile could name other entries once it lands, so `positionsUnsure`
    /// refuses positional edits of that playlist until it ends.
    mutating func editStarted(_ edit: TUIEdit) {
        if let (playlist, change) = edit.entryChange, playlist.rawValue == openedPlaylistID {
            switch change {
            case .removePositions(let positions): removeAhead(positions: Set(positions), uris: [])
            case .removeMixed(let positions, let uris): removeAhead(positions: Set(positions), uris: Set(uris))
            case .removeURIs(let uris): removeAhead(positions: [], uris: Set(uris))
            default: break
            }
        }
        if let key = Self.unmirroredKey(edit) { unmirroredEdits[key, default: 0] += 1 }
    }

    /// An edit ended (done or failed); `all`: the queue was emptied (a failure drops the rest).
    mutating func editEnded(_ edit: TUIEdit, all: Bool = false) {
        if all { unmirroredEdits = [:] }
        guard let key = Self.unmirroredKey(edit), let count = unmirroredEdits[key] else { return }
        unmirroredEdits[key] = count > 1 ? count - 1 : nil
    }

    /// Whether an edit under way of `playlist` is one the view does not show yet.
    func positionsUnsure(_ playlist: String) -> Bool {
        (unmirroredEdits[playlist] ?? 0) > 0 || (unmirroredEdits["*"] ?? 0) > 0
    }

    /// The message when a positional edit must wait.
    mutating func refuseUnsurePositions(_ playlist: PlaylistRow) {
        message =
            "“\(TerminalText.preview(playlist.name, limit: 40))” has an edit under way that the view cannot show yet: wait for it to finish (positions now could name other entries); nothing was sent"
    }

    /// The playlist an edit the view cannot mirror concerns ("*": any, for undo and redo); nil
    /// for those it mirrors (moves, positional and by-track removals) and those without positions.
    static func unmirroredKey(_ edit: TUIEdit) -> String? {
        switch edit {
        case .change(let change):
            switch change {
            case .entries(let playlist, let what, _):
                switch what {
                case .move, .removePositions, .removeMixed, .removeURIs: return nil
                default: return playlist.rawValue
                }
            case .like, .unlike: return PlaylistRef.liked.description
            case .undo, .redo: return "*"
            case .revive(let playlist, _, _): return playlist.rawValue
            case .create, .details, .delete, .follow, .folder: return nil
            }
        case .transfer(.importFile(_, let playlist)), .restoreVersion(let playlist, _): return playlist.rawValue
        case .transfer(.export): return nil
        }
    }

    /// Removed rows leave the view at once; the rest close up and are numbered again.
    mutating func removeAhead(positions: Set<Int>, uris: Set<String>) {
        guard rowsAreTheList else { return }
        let keptRows = tracks.filter { !positions.contains($0.position) && !uris.contains($0.uri) }
        guard keptRows.count < tracks.count else { return }
        let newIndex = Dictionary(uniqueKeysWithValues: keptRows.enumerated().map { ($0.element.position, $0.offset) })
        pendingRows = Set(pendingRows.compactMap { newIndex[$0] })
        marks = []
        rangeAnchor = nil
        showAhead(keptRows)
        clampCursors()
    }

    /// Every row's position is its index (the whole list in the playlist's own order): the view
    /// can run ahead of Spotify only then.
    private var rowsAreTheList: Bool { tracksInPositionOrder && tracks.enumerated().allSatisfy { $0.offset == $0.element.position } }

    /// `rows` shown ahead of Spotify, numbered again from the top.
    private mutating func showAhead(_ rows: [EntryRow]) {
        tracks = rows.enumerated().map { index, row in
            var row = row
            row.position = index
            return row
        }
        foldedTracks = nil
        sortedRows = nil
        resort()
    }

    /// The view ahead of the server: the rows move at once, marked pending until the list read
    /// after the edit (Spotify's, or on a failure what Spotify holds) replaces them. Only in the
    /// playlist's own order, the one J/K work in, where a row's position is its index.
    mutating func moveAhead(start: Int, length: Int, to: Int) {
        guard rowsAreTheList, tracks.indices.contains(start), start + length <= tracks.count, to >= 0, to + length <= tracks.count else { return }
        // Spotify's own move, simulated as the editor simulates it; rows pending before keep
        // being pending where they went.
        let write = EntryWrite.move(start: start, length: length, to: to)
        var rows = tracks
        var pending = tracks.indices.map { pendingRows.contains($0) }
        guard write.reorder(&rows), write.reorder(&pending) else { return }
        showAhead(rows)
        pendingRows = Set(pending.indices.filter { pending[$0] }).union(to..<(to + length))
    }

    mutating func playlistVerb(_ command: Command) -> [Effect] {
        switch command {
        case .new(let text):
            // Private unless asked (`:new --public NAME`), as the CLI's `playlist create` is not:
            // a playlist made from the terminal is the user's until they share it.
            var name = Substring(text)
            var isPublic = false
            for flag in ["--public", "--private"] where name == flag || name.hasPrefix(flag + " ") {
                isPublic = flag == "--public"
                name = name.dropFirst(flag.count).drop { $0 == " " }
            }
            guard !name.isEmpty else {
                message = ":new NAME (or :new --public NAME)"
                return []
            }
            return [.edit(.change(.create(PlaylistDetails(name: String(name), isPublic: isPublic))))]
        case .rename(let name):
            guard let playlist = subjectPlaylist, !playlist.isLiked else {
                message = "select a playlist to rename"
                return []
            }
            guard playlist.editable else {
                reportError("🔒 only the owner can rename “\(TerminalText.preview(playlist.name, limit: 40))”; nothing was sent")
                return []
            }
            guard let id = spotifyID(of: playlist) else { return [] }
            return [.edit(.change(.details(id, PlaylistDetails(name: name))))]
        case .delete:
            guard let playlist = subjectPlaylist, !playlist.isLiked else {
                message = "select a playlist to delete"
                return []
            }
            guard let id = spotifyID(of: playlist) else { return [] }
            ask("Delete (unfollow) “\(TerminalText.preview(playlist.name, limit: 40))”? `u` follows it again. (y/n)", [.edit(.change(.delete([id])))])
            return []
        case .dedupe(let fuzzy):
            guard let playlist = changeablePlaylist("change", orderMatters: true), let id = spotifyID(of: playlist) else { return [] }
            return [.edit(.entries(id, .dedupe(fuzzy: fuzzy)))]
        case .shuffle:
            guard let playlist = changeablePlaylist("shuffle", orderMatters: true), let id = spotifyID(of: playlist) else { return [] }
            return [.edit(.entries(id, .shuffle))]
        case .sort(let key, let reverse, save: false):
            guard let field = Command.ViewOrderKey(rawValue: key.rawValue) else { return [] }
            order(.set(field, reverse ? .desc : .asc))
            message =
                "sorted the view by \(key.rawValue) \(reverse ? "↓" : "↑") (Spotify's order is unchanged): :sort! \(key.rawValue)\(reverse ? " reverse" : "") or :save-order saves it"
            return []
        case .sort(let key, let reverse, save: true):
            guard let playlist = changeablePlaylist("sort", orderMatters: true), let id = spotifyID(of: playlist) else { return [] }
            return [.edit(.entries(id, .sort(key, reverse: reverse)))]
        case .saveOrder:
            guard let key = LibraryChange.SortKey(rawValue: sortField.rawValue) else {
                message =
                    sortOrder == .asc
                    ? "the view shows the playlist's own order: nothing to save (sort the view with s or :sort FIELD first)"
                    : "Spotify's order can be saved by \(LibraryChange.SortKey.allCases.map(\.rawValue).joined(separator: ", ")), not by position"
                return []
            }
            guard let playlist = changeablePlaylist("sort", orderMatters: true), let id = spotifyID(of: playlist) else { return [] }
            return [.edit(.entries(id, .sort(key, reverse: sortOrder == .desc)))]
        case .export(let path):
            guard let playlist = subjectPlaylist else {
                message = "select a playlist to export"
                return []
            }
            guard let ref = PlaylistRef(stored: playlist.id) else {
                reportError("“\(TerminalText.preview(playlist.name, limit: 40))” has no id timbre can read; nothing was written")
                return []
            }
            return [.edit(.transfer(.export(ref, path: path)))]
        case .importFile(let path):
            guard let playlist = changeablePlaylist("import into", orderMatters: true), let id = spotifyID(of: playlist) else { return [] }
            return [.edit(.transfer(.importFile(path: path, into: id)))]
        case .folder(let action):
            return folderVerb(action)
        default:
            return []
        }
    }

    /// Enter on catalogue results: adds the marked results (or the current one) at the end of the open playlist.
    mutating func addCatalogSelection() -> [Effect] {
        guard case .catalogResults(let results) = mode else { return [] }
        let picked = results.marks.isEmpty ? [results.cursor] : results.marks.sorted()
        let uris = picked.filter { results.hits.indices.contains($0) }.map { results.hits[$0].uri }
        mode = .normal
        guard !uris.isEmpty, let playlist = changeablePlaylist("add to") else { return [] }
        if playlist.isLiked { return [.edit(.change(.like(uris)))] }
        return resolveAdd(PendingAdd(playlistID: playlist.id, playlistName: playlist.name, uris: uris, position: nil), existing: Set(tracks.map(\.uri)))
    }

    public mutating func showCatalogResults(_ hits: [CatalogHit], query: String) {
        mode = .catalogResults(CatalogResults(hits: hits))
        message =
            hits.isEmpty
            ? "Spotify found no track for “\(TerminalText.preview(query, limit: 40))”"
            : "\(hits.count) from Spotify — Space marks, Enter adds to “\(TerminalText.preview(openedPlaylist?.name ?? "", limit: 30))”, Esc closes"
    }

    public mutating func showInfo(_ lines: [String], of playlistID: String) {
        mode = .info(Info(title: playlists.first { $0.id == playlistID }?.name ?? "", lines: lines))
    }

    /// After an edit created a playlist (`:new`, `:import`): put the cursor on it.
    public mutating func selectPlaylist(id: String) {
        if let row = paneRows.firstIndex(where: { playlistIndex(of: $0).map { playlists[$0].id == id } ?? false }) {
            playlistCursor = row
        }
    }

    mutating func ask(_ text: String, _ effects: [Effect]) {
        mode = .confirm(Question(text: text, effects: effects))
    }

    /// y runs what was asked; any other key cancels.
    mutating func answer(_ yes: Bool) -> [Effect] {
        answer(key: yes ? "y" : nil)
    }

    /// y runs what was asked, r the rewrite and s the skip when the question offers them; n (or
    /// Esc, nil) cancels. Other keys never get here (Questions.swift).
    mutating func answer(key: Character?) -> [Effect] {
        let asked = question
        mode = .normal
        let key = key.map { Character($0.lowercased()) }
        if key == "y" || (key == "r" && asked?.rewrite != nil) || (key == "s" && asked?.skip != nil) {
            marks = []
            rangeAnchor = nil
            if key == "s" { return skipAnswer(asked?.skip ?? []) }
            if key == "y", let yanks = asked?.yanks { fillRegister(yanks) }
            return (key == "y" ? asked?.effects : asked?.rewrite) ?? []
        }
        message = "cancelled; nothing was sent"
        return asked?.otherwise ?? []
    }

    /// An order change waits for a person's choice (`OrderCost.question`): y moves (dates kept),
    /// r rewrites, any other key sends nothing.
    public mutating func askOrder(_ cost: OrderCost) {
        mode = .confirm(
            Question(
                text: cost.question, effects: [.answerOrder(.moves)], rewrite: cost.canRewrite ? [.answerOrder(.rewrite)] : nil,
                otherwise: [.answerOrder(.cancel)]))
    }
}
