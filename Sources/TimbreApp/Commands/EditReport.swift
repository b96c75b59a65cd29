import TimbreCore
import TimbreLibrary

/// How an `EditOutcome` is told: the CLI's sentence, dry-run listing and `--json`, and the
/// interface's status line (the same sentence with its own undo and redo keys).
enum EditReport {
    static func show(_ outcome: EditOutcome, json: Bool, console: Console) {
        for warning in outcome.warnings { console.warning(warning) }
        if json {
            console.json(self.json(outcome))
            return
        }
        console.line(sentence(outcome))
        guard outcome.dryRun else { return }
        // Each entry by name, as `timbre tracks` numbers it (from 1), then each write.
        console.lines(outcome.entries.map { "  " + TerminalText.sanitize($0) })
        console.lines(outcome.writes.enumerated().map { index, write in "  \(index + 1). \(describe(write))" })
    }

    /// One write for a person: positions counted from 1.
    static func describe(_ write: EntryWrite) -> String {
        switch write {
        case .add(let uris, let position):
            return "add \(uris.count) at position \(position + 1) (POST …/items)"
        case .removeEvery(let uris):
            return "remove every copy of \(uris.count) \(uris.count == 1 ? "track" : "tracks") (DELETE …/items)"
        case .reorder(let start, let insertBefore, let length):
            let range = length == 1 ? "entry \(start + 1)" : "entries \(start + 1)–\(start + length)"
            return "move \(range) to before entry \(insertBefore + 1) (PUT …/items)"
        case .replace(let uris):
            return "replace the whole list with its first \(uris.count) (PUT …/items)"
        }
    }

    /// `--json` (docs/CLI.md).
    static func json(_ outcome: EditOutcome) -> JSONValue {
        let o = outcome
        var members: [(String, JSONValue)] = [
            ("op", .string(o.operation.rawValue)), ("playlist", .string(o.playlist?.description ?? "")), ("snapshot_id", .optional(o.snapshotID)),
            ("added", .int(o.counts.added)), ("removed", .int(o.counts.removed)), ("moved", .int(o.counts.moved)), ("requests", .int(o.requests)),
            ("journal_id", o.journalID.map { .int(Int($0)) } ?? .null), ("dry_run", .bool(o.dryRun)),
        ]
        if o.dryRun, let cost = o.orderCost { members += [("moves", .int(cost.moves)), ("rewrite_writes", .int(cost.rewriteWrites))] }
        if o.operation == .restore { members += restoreJSON(o) }
        if case .stopped(let done, let total) = o.ending { members += [("stopped", .bool(true)), ("moves_done", .int(done)), ("moves_planned", .int(total))] }
        if o.operation == .dedupe {
            members.append(
                (
                    "duplicates",
                    .array(
                        o.duplicates.map {
                            .object([("position", .int($0.position + 1)), ("uri", .string($0.uri)), ("duplicate_of", .int($0.duplicateOf + 1))])
                        })
                ))
        }
        return .object(members)
    }

    /// One line for a person, naming how to undo and redo where they are (the CLI's commands,
    /// the interface's keys).
    static func sentence(_ outcome: EditOutcome, undo: String = "`timbre undo`", redo: String = "`timbre redo`") -> String {
        switch outcome.ending {
        case .cancelled: return "Cancelled; nothing was sent"
        case .unchanged(let why): return capitalized(why + "; nothing was sent")
        case .stopped(let done, let total): return stopped(outcome, done: done, total: total, undo: undo)
        case .changed: break
        }
        let count = outcome.writes.count + outcome.libraryWrites
        let writes = "\(count) \(count == 1 ? "write" : "writes")"
        let done = done(outcome, undo: outcome.operation == .undo) + dates(outcome)
        if outcome.dryRun { return "would have \(done) (\(writes); nothing was sent)" }
        let sentence = "\(done) (\(writes))"
        // "Undid edit 2 (removed 5 entries from “Road”): put back 5 entries": what the edit was,
        // then what its undo did.
        let replayed = outcome.replayed.map { " (\(TerminalText.preview($0, limit: 80)))" } ?? ""
        switch (outcome.operation, outcome.journalID) {
        case (.undo, let id?): return "Undid edit \(id)\(replayed): \(sentence) · \(redo) applies it again"
        case (.redo, let id?): return "Redid edit \(id)\(replayed): \(sentence) · \(undo) reverts it"
        case (_, let id?): return "\(capitalized(sentence)) · edit \(id), \(undo) reverts it"
        default: return capitalized(sentence)
        }
    }

    /// "Sort stopped after 12 of 140 moves: the order of “Road” is part-way, every entry is there
    /// and keeps its date; u puts the old order back (edit 7)".
    private static func stopped(_ o: EditOutcome, done: Int, total: Int, undo: String) -> String {
        let what = o.operation == .shuffle ? "Shuffle" : "Sort"
        let head = "\(what) stopped after \(done) of \(total) \(total == 1 ? "move" : "moves")"
        let name = "“\(TerminalText.preview(o.playlistName, limit: 60))”"
        guard let id = o.journalID else { return "\(head): no entry of \(name) had moved; nothing changed" }
        return "\(head): the order of \(name) is part-way, every entry is there and keeps its date; \(undo) puts the old order back (edit \(id))"
    }

    /// `--json`'s members for a restore: how many entries get today's date (the ones added and
    /// the kept copies put back), and for a deleted playlist, how it came back.
    private static func restoreJSON(_ o: EditOutcome) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("dates_reset", .int(o.counts.added + o.counts.readded))]
        switch o.revival {
        case .followed: members.append(("revived", .string("followed")))
        case .created(let previous): members += [("revived", .string("created")), ("previous_playlist", .string(previous))]
        case nil: break
        }
        return members
    }

    /// A playlist restored to a version ("restored “Road”: 3 entries back, 2 moved, 1 removed; 3
    /// re-added entries are dated today"), or a deleted one followed again or created anew.
    private static func restored(_ o: EditOutcome) -> String {
        let name = "“\(TerminalText.preview(o.playlistName, limit: 60))”"
        func entries(_ n: Int) -> String { "\(n) \(n == 1 ? "entry" : "entries")" }
        switch o.revival {
        case .followed:
            // Its entries made the version's in the same run, when Spotify's list was not it.
            guard o.counts.added + o.counts.moved + o.counts.removed > 0 else { return "followed \(name) again, as Spotify still holds it" }
            var text = "followed \(name) again and restored its entries: " + Self.parts(o).joined(separator: ", ")
            text += Self.todayDated(o)
            return text
        case .created:
            let id = o.playlist.map { " \($0)" } ?? ""
            return "created \(name) again as a new playlist\(id)" + (o.counts.added > 0 ? " with \(entries(o.counts.added)), all dated today" : "")
        case nil:
            break
        }
        let parts = Self.parts(o)
        return "restored \(name): " + (parts.isEmpty ? "the same entries" : parts.joined(separator: ", ")) + Self.todayDated(o)
    }

    /// "3 entries back", "2 moved", "1 removed".
    private static func parts(_ o: EditOutcome) -> [String] {
        func entries(_ n: Int) -> String { "\(n) \(n == 1 ? "entry" : "entries")" }
        var parts: [String] = []
        if o.counts.added > 0 { parts.append("\(entries(o.counts.added)) back") }
        if o.counts.moved > 0 { parts.append("\(o.counts.moved) moved") }
        if o.counts.removed > 0 { parts.append("\(o.counts.removed) removed") }
        return parts
    }

    /// "; 3 re-added entries are dated today — 1 kept copy among them, …".
    private static func todayDated(_ o: EditOutcome) -> String {
        var text = ""
        let today = o.counts.added + o.counts.readded
        if today > 0 {
            text += "; \(today) re-added \(today == 1 ? "entry" : "entries") \(o.dryRun ? "would be" : today == 1 ? "is" : "are") dated today"
        }
        if o.counts.readded > 0 {
            let copies = o.counts.readded == 1 ? "1 kept copy" : "\(o.counts.readded) kept copies"
            text += " — \(copies) among them, as Spotify's remove takes every copy of a track"
        }
        return text
    }

    /// What was done: "liked 3 items", "removed 2 entries in “Road”".
    /// `undo`: in an undo's own words — what it added was put back, what it removed was taken
    /// out again, what it moved went back.
    private static func done(_ o: EditOutcome, undo: Bool = false) -> String {
        if o.operation == .restore { return restored(o) }
        if let library = o.library, library.playlists + library.items > 0 {
            var done: [String] = []
            if library.playlists > 0 {
                let noun = library.playlists == 1 ? "playlist" : "playlists"
                done.append(library.save ? "followed \(library.playlists) \(noun)" : "deleted (unfollowed) \(library.playlists) \(noun)")
            }
            if library.items > 0 { done.append("\(library.save ? "liked" : "unliked") \(library.items) \(library.items == 1 ? "item" : "items")") }
            return done.joined(separator: ", ")
        }
        var parts: [String] = []
        func entries(_ n: Int) -> String { "\(n) \(n == 1 ? "entry" : "entries")" }
        if o.counts.added > 0 { parts.append("\(undo ? "put back" : "added") \(entries(o.counts.added))") }
        if o.counts.removed > 0 { parts.append("\(undo ? "took out" : "removed") \(entries(o.counts.removed))") }
        if o.counts.moved > 0 { parts.append("moved \(entries(o.counts.moved))\(undo ? " back" : "")") }
        if parts.isEmpty, o.operation == .create { parts.append("created the playlist") }
        if parts.isEmpty, o.libraryWrites > 0 { parts.append("changed the details") }
        let what = parts.isEmpty ? "changed nothing" : parts.joined(separator: ", ")
        return "\(what) in “\(TerminalText.preview(o.playlistName, limit: 60))”"
    }

    /// What became of the added dates, and how an order change was made.
    private static func dates(_ o: EditOutcome) -> String {
        var text = ""
        if o.operation != .restore, o.counts.readded > 0 {
            let copies = "\(o.counts.readded) kept \(o.counts.readded == 1 ? "copy" : "copies") of the same tracks"
            text +=
                o.dryRun
                ? "; \(copies) would be put back with today's added date"
                : "; \(copies) \(o.counts.readded == 1 ? "was" : "were") put back with today's added date"
        }
        switch o.dates {
        case .rewritten:
            text +=
                o.dryRun
                ? "; every entry would get today's added date"
                    + (o.orderCost.map { " (range moves instead: \(OrderCost.grouped($0.moves)), dates kept)" } ?? "")
                : "; every entry now has today's added date"
        case .notRestored:
            text += "; the added dates the rewrite reset cannot come back (Spotify sets them when an entry is added)"
        case .kept:
            break
        }
        if let cost = o.orderCost, o.dates != .rewritten, o.counts.moved > 0 {
            let moves = o.writes.count
            text +=
                o.dryRun
                ? " by \(OrderCost.grouped(moves)) range \(moves == 1 ? "move" : "moves") (\(OrderCost.duration(of: moves, secondsPerWrite: cost.secondsPerWrite)) at Spotify's pace), added dates kept (a rewrite: \(OrderCost.grouped(cost.rewriteWrites)) \(cost.rewriteWrites == 1 ? "write" : "writes"), every date reset)"
                : ", added dates kept"
        }
        return text
    }

    private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
