import Foundation
import TimbreCore
import TimbreLibrary

/// `A`: add the marked entries (or the current one) — or the search hit, or the catalogue's picks —
/// to another playlist, chosen in a fuzzy picker of the playlists the user can change. Liked Songs
/// is not offered: liking is its own verb (`p` in Liked Songs likes). Enter adds them at the
/// chosen playlist's end as one edit (one undo step), after the duplicate question when some are
/// there already (AddCheck.swift).
extension TUIState {
    /// The picker's data: what is added, the playlists it can go to and the query narrowing them.
    public struct Picker: Sendable, Equatable {
        public struct Candidate: Sendable, Equatable {
            public var id: String
            public var name: String
            /// The name folded as `/` and `F` fold (case, accents, width), as characters.
            var folded: [Character]
        }

        /// What Enter does with the chosen candidate.
        public enum Purpose: Sendable, Equatable {
            /// `A`: add `uris` to the chosen playlist.
            case add
            /// `D` (or a play with no active device): send the request there, or move playback there.
            case device(then: PlayerRequest?)
        }

        public internal(set) var purpose: Purpose = .add
        /// The URIs to add, in order (local files already left out).
        public internal(set) var uris: [String]
        /// What is added, for the header ("2 entries", "“Title”").
        public internal(set) var what: String
        public internal(set) var candidates: [Candidate]
        /// The query, edited as a prompt's line.
        public internal(set) var line = PromptLine()
        /// Indices into `candidates` that match the query, best first.
        public internal(set) var matches: [Int] = []
        /// Index into `matches`.
        public internal(set) var cursor = 0

        init(uris: [String], what: String, playlists: [PlaylistRow]) {
            self.uris = uris
            self.what = what
            candidates = playlists.map { Candidate(id: $0.id, name: $0.name, folded: Array(SearchText.fold($0.name))) }
            narrow()
        }

        /// The devices, each with its type and whether it plays now or takes no commands.
        init(devices: [PlayerDevice], then request: PlayerRequest?) {
            purpose = .device(then: request)
            uris = []
            what = request == nil ? "playback" : "the play"
            candidates = devices.map { device in
                let name =
                    TerminalText.sanitize(device.name) + " — " + TerminalText.sanitize(device.type) + (device.isActive ? " · active" : "")
                    + (device.restricted ? " · takes no commands" : "") + (device.volumePercent == nil ? " · fixed volume" : "")
                return Candidate(id: device.id, name: name, folded: Array(SearchText.fold(device.name)))
            }
            narrow()
        }

        /// The playlist under the cursor, if any matches.
        public var chosen: Candidate? { matches.indices.contains(cursor) ? candidates[matches[cursor]] : nil }

        /// The candidates whose folded name holds the query's characters in order (spaces in the
        /// query ignored), the tightest and earliest match first; ties keep the pane's order.
        mutating func narrow() {
            let query = Array(SearchText.fold(line.text).filter { $0 != " " })
            let scored = candidates.indices.compactMap { index in Self.fuzzy(query, in: candidates[index].folded).map { (index, $0) } }
            matches = scored.sorted { ($0.1.span, $0.1.start, $0.0) < ($1.1.span, $1.1.start, $1.0) }.map(\.0)
            cursor = 0
        }

        /// Where `query` occurs as a subsequence of `text`: the shortest span (and its start), or
        /// nil when it does not occur. An empty query matches everything.
        static func fuzzy(_ query: [Character], in text: [Character]) -> (span: Int, start: Int)? {
            guard let first = query.first else { return (0, 0) }
            var best: (span: Int, start: Int)?
            for start in text.indices where text[start] == first {
                var found = 1
                var index = start + 1
                while found < query.count, index < text.count {
                    if text[index] == query[found] { found += 1 }
                    index += 1
                }
                // No later start can match either.
                guard found == query.count else { break }
                if best.map({ index - start < $0.span }) ?? true { best = (index - start, start) }
            }
            return best
        }
    }

    /// The picker, while it is open (nil otherwise).
    public var picker: Picker? {
        if case .picker(let picker) = mode { return picker }
        return nil
    }

    /// `A` (`add-to [TEXT]`, TEXT starting the query): opens the picker for what is selected.
    mutating func openPicker(query: String?) -> [Effect] {
        guard let (uris, what) = pickerSubject() else { return [] }
        let (addable, locals) = Self.addable(uris)
        guard !addable.isEmpty else {
            reportError(locals > 0 ? "local files cannot be added through Spotify's API; nothing was sent" : "nothing to add")
            return []
        }
        let targets = playlists.filter { $0.editable && !$0.isLiked && !$0.unavailable }
        guard !targets.isEmpty else {
            message = "no playlist you can change: :new NAME creates one"
            return []
        }
        var picker = Picker(uris: addable, what: what, playlists: targets)
        if let query {
            for character in query { picker.line.edit(.insert(character)) }
            picker.narrow()
        }
        mode = .picker(picker)
        message = locals > 0 ? "\(locals) local file(s) left out: Spotify's API cannot add them" : nil
        return []
    }

    /// What `A` adds: the search hit or the catalogue's picks under the cursor, else the marked
    /// entries (or the current one) of the open playlist; nil (and a message) when nothing is.
    private mutating func pickerSubject() -> ([String], String)? {
        switch mode {
        case .searchResults(let results):
            guard results.hits.indices.contains(results.cursor) else { return nil }
            let hit = results.hits[results.cursor].track
            return ([hit.uri], "“\(TerminalText.preview(hit.title, limit: 40))”")
        case .catalogResults(let results):
            let picked = (results.marks.isEmpty ? [results.cursor] : results.marks.sorted()).filter { results.hits.indices.contains($0) }
            guard !picked.isEmpty else { return nil }
            return (
                picked.map { results.hits[$0].uri },
                picked.count == 1 ? "“\(TerminalText.preview(results.hits[picked[0]].title, limit: 40))”" : "\(picked.count) tracks"
            )
        default:
            let rows = focus == .tracks ? selection : []
            guard !rows.isEmpty else {
                message = "A adds entries to another playlist: open a playlist (Enter), mark some (Space, v) or put the cursor on one"
                return nil
            }
            return (rows.map(\.uri), rows.count == 1 ? "“\(TerminalText.preview(rows[0].title, limit: 40))”" : TUIEdit.count(rows.count))
        }
    }

    /// A key while the picker is open: characters narrow, Up/Down/C-p/C-n move, Enter adds, Esc closes.
    mutating func pickerKey(_ event: Terminal.InputEvent) -> [Effect] {
        guard case .picker(var picker) = mode else { return [] }
        switch event {
        case .resize: return []
        case .character(let character):
            picker.line.edit(.insert(character))
            picker.narrow()
        case .key(let key):
            switch key.name {
            case "Esc":
                mode = .normal
                message = picker.purpose == .add ? "nothing was added" : "nothing was sent"
                return []
            case "Enter": return addPicked()
            case "Up", "C-p": picker.cursor = max(0, picker.cursor - 1)
            case "Down", "C-n": picker.cursor = max(0, min(picker.matches.count - 1, picker.cursor + 1))
            default:
                guard let edit = Self.pickerEdits[key.name] else { return [] }
                picker.line.edit(edit)
                picker.narrow()
            }
        }
        mode = .picker(picker)
        return []
    }

    static let pickerEdits: [String: PromptLine.Edit] = [
        "Backspace": .backspace, "Delete": .deleteForward, "C-w": .deleteWord, "C-u": .deleteToStart,
        "Left": .left, "Right": .right, "Home": .home, "End": .end, "C-a": .home, "C-e": .end,
    ]

    /// Enter: the chosen playlist gets the entries at its end — once the cache says which of
    /// their tracks it holds already (`Effect.checkAdd`).
    mutating func addPicked() -> [Effect] {
        guard case .picker(let picker) = mode else { return [] }
        if case .device(let request) = picker.purpose { return pickDevice(picker, then: request) }
        guard let chosen = picker.chosen else {
            message = "no playlist matches “\(TerminalText.preview(picker.line.text, limit: 30))” — Backspace widens, Esc closes"
            return []
        }
        // The marks stay until the add goes out (n to the duplicate question keeps them).
        mode = .normal
        return [.checkAdd(PendingAdd(playlistID: chosen.id, playlistName: chosen.name, uris: picker.uris, position: nil))]
    }
}
