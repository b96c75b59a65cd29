import Foundation
import TimbreCore
import TimbreNet

/// What the user asks of one playlist, in the positions `timbre tracks` showed them.
public struct EditRequest: Sendable {
    public enum What: Sendable, Equatable {
        /// At `position` (nil: the end).
        case add(uris: [String], position: Int?)
        /// Exactly these entries; other copies of the same tracks stay.
        case removePositions([Int])
        /// Every copy of these URIs.
        case removeURIs([String])
        /// Exactly these entries, and every copy of these URIs (`remove --position … --uri …`).
        case removeMixed(positions: [Int], uris: [String])
        /// `length` entries from `start`, so that the first ends at index `to` of the result.
        case move(start: Int, length: Int, to: Int)
        /// A random new order, saved.
        case shuffle
        /// A new order by `key`, saved (stable: equal keys keep their order).
        case sort(SortKey, reverse: Bool)
        /// Later copies removed, the first kept, the order otherwise unchanged.
        case dedupe(fuzzy: Bool)
    }

    public enum SortKey: String, Sendable, CaseIterable { case title, artist, album, year, duration, added }

    public var playlist: SpotifyID
    public var what: What
    /// On a conflict, apply the edit to the same entries, found by URI and occurrence.
    public var force: Bool
    /// Plan and print; send no write.
    public var dryRun: Bool
    /// Shuffle and sort: rewrite the list (⌈n/100⌉ writes, every added date reset) instead of
    /// range moves (one write per run of entries out of place, every added date kept).
    public var rewrite = false
    /// Shuffle: the random order's seed (the same seed, the same order on a list of the same
    /// length), so that an order priced by a dry run is the order then saved; nil: any order.
    public var seed: UInt64?
    /// Shuffle and sort: asked, with what both ways cost, before anything is journalled or sent
    /// (the CLI's and the interface's y/r/n question); nil: as `rewrite` says.
    public var choose: (@Sendable (OrderCost) async -> OrderChoice)?

    public init(playlist: SpotifyID, what: What, force: Bool = false, dryRun: Bool = false, rewrite: Bool = false, seed: UInt64? = nil,
                choose: (@Sendable (OrderCost) async -> OrderChoice)? = nil) {
        self.playlist = playlist
        self.what = what
        self.force = force
        self.dryRun = dryRun
        self.rewrite = rewrite
        self.seed = seed
        self.choose = choose
    }

    /// Shuffle and sort: a new order of the same entries.
    public var isOrderChange: Bool {
        switch what {
        case .shuffle, .sort: return true
        default: return false
        }
    }

    var op: String {
        switch what {
        case .add: return "add"
        case .removePositions, .removeURIs, .removeMixed: return "remove"
        case .move: return "move"
        case .shuffle: return "shuffle"
        case .sort: return "sort"
        case .dedupe: return "dedupe"
        }
    }

    /// Edits that name positions: checked against the live snapshot before anything is written.
    var isPositional: Bool {
        switch what {
        case .add(_, let position): return position != nil
        case .removePositions, .removeMixed, .move, .shuffle, .sort, .dedupe: return true
        case .removeURIs: return false
        }
    }
}

/// A person asked before an order change answered no.
struct OrderCancelled: Error {}

/// What an edit did (or, with --dry-run, would do).
public struct EditOutcome: Sendable {
    public var op: String
    public var playlist: String
    public var playlistName: String
    public var snapshotID: String?
    public var added = 0
    public var removed = 0
    public var moved = 0
    /// Requests sent by the whole command, reads included.
    public var requests = 0
    /// Of those, writes.
    public var writes: [EntryWrite]
    public var journalID: Int64?
    public var dryRun: Bool
    public var warnings: [String] = []
    /// Writes to the library (likes) rather than to a playlist's entries.
    public var libraryWrites = 0
    /// What was done, when it is not a change of one playlist's entries ("liked 3 items").
    public var action: String?
    /// The playlist already was as asked: `action` says so, nothing was sent or journalled.
    public var unchanged = false
    /// For `shuffle` and `sort`: what moves and a rewrite cost (`--dry-run --json` shows both).
    public var orderCost: OrderCost?
    /// The order was rewritten (replace, then adds): every entry's added date is now today's.
    public var rewrote = false
    /// An undo (or redo) of a rewrite: the order comes back, the added dates it reset cannot.
    public var datesLost = false
    /// The person asked said no: nothing was journalled or sent.
    public var cancelled = false
    /// For `dedupe`: each copy removed, and the position of the entry it repeats (Spotify's
    /// indices, from 0; `json` and `entries` count from 1).
    public var duplicates: [(position: Int, uri: String, duplicateOf: Int)] = []
    /// The entries the edit removes or moves, named as a person reads them ("#5 Title — Artist";
    /// dedupe adds "(repeats #2)"): what a dry run lists.
    public var entries: [String] = []
    /// Kept copies that Spotify's remove-every-copy took out and the edit added back: they have a
    /// new added date (the only date change besides a rewrite).
    public var readded = 0

    /// `--json` (docs/CLI.md).
    public var json: JSONValue {
        .object([
            ("op", .string(op)), ("playlist", .string(playlist)), ("snapshot_id", .optional(snapshotID)),
            ("added", .int(added)), ("removed", .int(removed)), ("moved", .int(moved)), ("requests", .int(requests)),
            ("journal_id", journalID.map { .int(Int($0)) } ?? .null), ("dry_run", .bool(dryRun)),
        ] + (dryRun ? orderCost.map { [("moves", .int($0.moves)), ("rewrite_writes", .int($0.rewriteWrites))] } ?? [] : [])
          + (op == "dedupe" ? [("duplicates", .array(duplicates.map {
            .object([("position", .int($0.position + 1)), ("uri", .string($0.uri)), ("duplicate_of", .int($0.duplicateOf + 1))])
        }))] : []))
    }

    /// One line for a person.
    public var summary: String { summary(undo: "`timbre undo`", redo: "`timbre redo`") }

    /// One line for a person, naming how to undo and redo where they are (the interface's keys).
    public func summary(undo: String, redo: String) -> String {
        if unchanged, let action { return action.prefix(1).uppercased() + action.dropFirst() }
        var parts: [String] = []
        if added > 0 { parts.append("added \(added) \(added == 1 ? "entry" : "entries")") }
        if removed > 0 { parts.append("removed \(removed) \(removed == 1 ? "entry" : "entries")") }
        if moved > 0 { parts.append("moved \(moved) \(moved == 1 ? "entry" : "entries")") }
        if parts.isEmpty, op == "create" { parts.append("created the playlist") }
        if parts.isEmpty, libraryWrites > 0 { parts.append("changed the details") }
        let what = parts.isEmpty ? "changed nothing" : parts.joined(separator: ", ")
        let name = TerminalText.preview(playlistName, limit: 60)
        let count = self.writes.count + libraryWrites
        let writes = "\(count) \(count == 1 ? "write" : "writes")"
        var done = action ?? "\(what) in “\(name)”"
        if readded > 0 {
            done += dryRun ? "; \(readded) kept \(readded == 1 ? "copy" : "copies") of the same tracks would be put back with today's added date"
                : "; \(readded) kept \(readded == 1 ? "copy" : "copies") of the same tracks \(readded == 1 ? "was" : "were") put back with today's added date"
        }
        if rewrote {
            done += dryRun ? "; every entry would get today's added date" + (orderCost.map { " (range moves instead: \(OrderCost.grouped($0.moves)), dates kept)" } ?? "")
                : "; every entry now has today's added date"
        }
        if datesLost { done += "; the added dates the rewrite reset cannot come back (Spotify sets them when an entry is added)" }
        if let orderCost, !rewrote, moved > 0 {
            done += dryRun ? " by \(OrderCost.grouped(self.writes.count)) range \(self.writes.count == 1 ? "move" : "moves"), added dates kept (a rewrite: \(OrderCost.grouped(orderCost.rewriteWrites)) \(orderCost.rewriteWrites == 1 ? "write" : "writes"), every date reset)"
                : ", added dates kept"
        }
        if dryRun { return "would have \(done) (\(writes); nothing was sent)" }
        let sentence = "\(done) (\(writes))"
        switch (op, journalID) {
        case ("undo", let id?): return "Undid edit \(id): \(sentence) · \(redo) applies it again"
        case ("redo", let id?): return "Redid edit \(id): \(sentence) · \(undo) reverts it"
        case (_, let id?): return "\(sentence.prefix(1).uppercased() + sentence.dropFirst()) · edit \(id), \(undo) reverts it"
        default: return sentence.prefix(1).uppercased() + sentence.dropFirst()
        }
    }
}

/// Edits playlists on Spotify so that no entry is ever lost that the user did not ask to remove:
/// each edit is planned on the playlist as Spotify holds it (positional ones only when that is
/// the playlist the user saw), journalled before its first write, and when a write's answer is
/// lost the playlist is read and matched against the plan's steps instead of resending. Then the
/// cache is brought to what Spotify holds.
public final class PlaylistEditor: Sendable {
    let api: any SpotifyAPI
    let cache: LibraryCache
    let journal: EditJournal
    /// How long another sync or edit may hold the lock before this one gives up.
    let lockWait: Duration
    /// Told after each write of a playlist's entries: (writes done, writes in the plan).
    let progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    public init(api: any SpotifyAPI, cache: LibraryCache, journal: EditJournal, lockWait: Duration = .seconds(10),
                progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) {
        self.api = api
        self.cache = cache
        self.journal = journal
        self.lockWait = lockWait
        self.progress = progress
    }

    /// Spotify's limit on a playlist's entries.
    public static let maxEntries = 10_000

    /// The catalogue over the same API (albums to add, searches).
    public var catalog: Catalog { Catalog(api: api) }

    // MARK: Edits

    public func apply(_ request: EditRequest) async throws -> EditOutcome {
        try await operation {
            // Whose playlist it is, before its entries: Spotify does not show another user's entries
            // to a development-mode app, and an edit of it must end here anyway.
            let meta = try await LivePlaylist.meta(request.playlist, api: api)
            try await checkPermission(meta)
            let live = try await LivePlaylist.read(request.playlist, api: api, known: meta)
            var duplicates: (removable: [Reordering.Duplicate], skipped: Int)?
            if case .dedupe(let fuzzy) = request.what { duplicates = Self.duplicates(in: live, fuzzy: fuzzy) }
            var edit: EntryEdit
            let plan: EntryEdit.Plan
            var orderCost: OrderCost?
            do {
                edit = try resolve(request, on: live, duplicates: duplicates?.removable ?? [])
                if case .reorder(let order) = edit {
                    // A new order: priced both ways, and (not in a dry run) the caller may choose.
                    let cost = Self.orderCost(order, request: request, on: live)
                    orderCost = cost
                    if !request.dryRun, let choose = request.choose {
                        switch await choose(cost) {
                        case .moves: break
                        case .rewrite: edit = .permute(order: order)
                        case .cancel: throw OrderCancelled()
                        }
                    } else if request.rewrite {
                        edit = .permute(order: order)
                    }
                }
                if case .insert(let uris, _) = edit, live.uris.count + uris.count > Self.maxEntries {
                    throw InvalidEdit(message: "“\(TerminalText.preview(live.meta.name, limit: 60))” would hold \(live.uris.count + uris.count) entries; Spotify keeps at most \(Self.maxEntries) in a playlist",
                                      hint: "nothing was written; split the items over several playlists")
                }
                plan = try Self.plan(edit, on: live.uris)
            } catch is OrderCancelled {
                var outcome = EditOutcome(op: request.op, playlist: live.meta.id, playlistName: live.meta.name, snapshotID: live.meta.snapshotID,
                                          writes: [], dryRun: false)
                outcome.action = "cancelled; nothing was sent"
                outcome.unchanged = true
                outcome.cancelled = true
                return outcome
            } catch let nothing as NothingToChange {
                // Already as asked (no duplicates, already in that order): done, with nothing sent.
                var outcome = EditOutcome(op: request.op, playlist: live.meta.id, playlistName: live.meta.name, snapshotID: live.meta.snapshotID,
                                          writes: [], dryRun: request.dryRun)
                outcome.action = nothing.message + "; nothing was sent"
                outcome.unchanged = true
                outcome.orderCost = orderCost ?? (request.isOrderChange ? Self.orderCost(Array(live.uris.indices), request: request, on: live) : nil)
                return outcome
            }
            var outcome = EditOutcome(op: request.op, playlist: live.meta.id, playlistName: live.meta.name, snapshotID: live.meta.snapshotID,
                                      writes: plan.writes, dryRun: request.dryRun)
            outcome.orderCost = orderCost
            if case .permute = edit {
                outcome.rewrote = plan.writes.contains { if case .replace = $0 { return true } else { return false } }
            }
            Self.count(edit, into: &outcome)
            outcome.entries = Self.named(edit, duplicates: duplicates?.removable ?? [], in: live)
            if let duplicates {
                outcome.duplicates = duplicates.removable.map { ($0.position, $0.uri, $0.duplicateOf) }
                if duplicates.skipped > 0 {
                    outcome.warnings.append("\(duplicates.skipped) duplicate(s) involve local files, which Spotify's API cannot add back; they were left as they are")
                }
            }
            if request.dryRun { return outcome }
            let id = try journal.begin(op: request.op, playlist: live.meta.id, summary: Self.describe(edit, in: live.meta.name),
                                       change: .entries(edit, before: live.uris))
            let final = try await run(plan, playlist: request.playlist, journalID: id, from: 0, name: live.meta.name,
                                      legacy: live.meta.legacyShape)
            try journal.finish(id, .done)
            outcome.warnings += try await store(final, expected: plan.result)
            outcome.snapshotID = final.meta.snapshotID
            outcome.journalID = id
            return outcome
        }
    }

    /// Reverts the newest finished edit, when the playlist still is what that edit left.
    /// `force`: the playlist changed since; revert the same entries, found by track and occurrence.
    public func undo(force: Bool = false) async throws -> EditOutcome {
        try await replay(undo: true, force: force)
    }

    /// Applies again the edit undone last, when the playlist still is what the undo left.
    public func redo(force: Bool = false) async throws -> EditOutcome {
        try await replay(undo: false, force: force)
    }

    /// One operation of the editor: under the sync lock (one edit or sync at a time), after any
    /// edit a stopped process left half-applied is finished (its notes first among the warnings),
    /// with every request it sent counted.
    func operation(_ body: () async throws -> EditOutcome) async throws -> EditOutcome {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        let sentBefore = api.pacing.requestsSent()
        let notes = try await finishInterruptedLocked()
        var outcome = try await body()
        outcome.requests = api.pacing.requestsSent() - sentBefore
        outcome.warnings = notes + outcome.warnings
        return outcome
    }

    /// Brings one playlist in the cache to what Spotify holds — after a failed or refused edit,
    /// so that what the user sees is Spotify's state.
    public func reload(_ playlist: SpotifyID) async throws {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        let live = try await LivePlaylist.read(playlist, api: api)
        try await cache.replaceEntries(of: live.meta, trackCount: live.meta.total, items: live.items)
    }

    /// Finishes every edit a stopped process left half-applied; returns a line for each.
    public func finishInterrupted() async throws -> [String] {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        return try await finishInterruptedLocked()
    }

    /// `finishInterrupted` for a caller that already holds the sync lock (the sync, which
    /// finishes interrupted edits before it reads anything).
    public func finishInterruptedHoldingLock() async throws -> [String] {
        try await finishInterruptedLocked()
    }

    // MARK: Steps

    private func replay(undo: Bool, force: Bool) async throws -> EditOutcome {
        try await operation {
            guard let entry = try undo ? journal.lastDone() : journal.nextRedo() else {
                throw NothingToUndo(message: undo ? "there is no edit to undo" : "there is no undone edit to redo")
            }
            var outcome: EditOutcome
            switch entry.change {
            case .entries(let edit, let before):
                outcome = try await replayEntries(entry, edit: edit, before: before, undo: undo, force: force)
            case .library(let edit):
                try journal.start(entry.id, undo ? .backward : .forward)
                let change = undo ? edit.inverse : edit
                try await sendLibrary(change, journalID: entry.id, nothingApplied: undo ? .done : .undone)
                try journal.finish(entry.id, undo ? .undone : .done)
                try await refresh(after: change)
                outcome = Self.libraryOutcome(change, op: undo ? "undo" : "redo", journalID: entry.id, dryRun: false)
            case .details(let edit):
                try journal.start(entry.id, undo ? .backward : .forward)
                let change = undo ? edit.inverse : edit
                try await sendDetails(change, journalID: entry.id, nothingApplied: undo ? .done : .undone)
                try journal.finish(entry.id, undo ? .undone : .done)
                outcome = try await detailsOutcome(change, op: undo ? "undo" : "redo", journalID: entry.id)
            }
            return outcome
        }
    }

    private func replayEntries(_ entry: EditJournal.Entry, edit: EntryEdit, before: [String], undo: Bool, force: Bool) async throws -> EditOutcome {
        guard let id = SpotifyID(entry.playlist) else { throw EditLost(journalID: entry.id, playlist: entry.playlist) }
        let forward = try Self.plan(edit, on: before)
        let live = try await LivePlaylist.read(id, api: api)
        try await checkPermission(live.meta)
        // Undo starts from what the edit left; redo from what the undo left (the list before it).
        let reference = undo ? forward.result : before
        var change = undo ? edit.inverse(before: before) : edit
        var journalID = entry.id
        if live.uris != reference {
            guard force else { throw EditConflict(playlist: live.meta.name, cached: nil, live: live.meta.snapshotID) }
            // The playlist moved on: the same entries, found by track and occurrence, as an edit of its own.
            change = try Self.remap(change, from: reference, to: live.uris)
            journalID = try journal.begin(op: undo ? "undo" : "redo", playlist: entry.playlist,
                                          summary: "\(undo ? "undid" : "redid") edit \(entry.id) on a changed playlist (\(Self.describe(change, in: live.meta.name)))",
                                          change: .entries(change, before: live.uris))
        } else {
            try journal.start(entry.id, undo ? .backward : .forward)
        }
        let plan = try Self.plan(change, on: live.uris)
        // Refused with nothing applied: the edit stays as it was (done before an undo, undone
        // before a redo); a separate remapped edit simply failed.
        let unchanged: EditJournal.Entry.State = journalID != entry.id ? .failed : (undo ? .done : .undone)
        let final = try await run(plan, playlist: id, journalID: journalID, from: 0, name: live.meta.name,
                                  legacy: live.meta.legacyShape, nothingApplied: unchanged)
        if journalID != entry.id { try journal.finish(journalID, .done) }
        try journal.finish(entry.id, undo ? .undone : .done)
        var outcome = EditOutcome(op: undo ? "undo" : "redo", playlist: entry.playlist, playlistName: live.meta.name,
                                  snapshotID: final.meta.snapshotID, writes: plan.writes, journalID: entry.id, dryRun: false)
        outcome.warnings = try await store(final, expected: plan.result)
        Self.count(change, into: &outcome)
        if case .permute = edit { outcome.datesLost = true }
        return outcome
    }

    /// `edit`, written for the list `reference`, made for `live`: each position follows its
    /// entry (the same URI, the same occurrence of it); an insertion point is kept within range.
    static func remap(_ edit: EntryEdit, from reference: [String], to live: [String]) throws -> EntryEdit {
        func follow(_ position: Int) -> Int? {
            guard reference.indices.contains(position) else { return nil }
            let uri = reference[position]
            return Self.follow(uri, occurrence: reference[..<position].filter { $0 == uri }.count, in: live)
        }
        switch edit {
        case .insert(let uris, let position):
            return .insert(uris: uris, position: min(position, live.count))
        case .remove(let positions):
            let found = positions.compactMap(follow)
            guard !found.isEmpty else { throw NothingToUndo(message: "none of the entries that edit concerns is in the playlist any more") }
            return .remove(positions: found)
        case .move(let start, let length, let to):
            let found = (start..<start + length).compactMap(follow)
            guard found.count == length, found == Array(found[0]..<found[0] + length) else {
                throw InvalidEdit(message: "the entries to move are no longer all there, next to each other", hint: "move them by hand: `timbre playlist move`")
            }
            return .move(start: found[0], length: length, to: min(to, live.count - length))
        case .permute, .reorder:
            throw InvalidEdit(message: "the playlist changed since it was reordered; a new order would not be the one asked for",
                              hint: "shuffle or sort it again")
        case .restore(let entries):
            var position = 0
            return .restore(entries: entries.map { entry in
                defer { position += 1 }
                return EntryEdit.PositionedURI(position: min(entry.position, live.count + position), uri: entry.uri)
            })
        }
    }

    func finishInterruptedLocked() async throws -> [String] {
        var notes: [String] = []
        for entry in try journal.running() {
            do {
                if let note = try await finish(entry) { notes.append(note) }
            } catch where Self.endsEdit(error) {
                // Spotify said no for good, or the playlist went its own way: the edit ends here
                // (never resent) and the command that found it goes on.
                let reason = (error as? any UserFacingError)?.message ?? String(describing: error)
                if try journal.entry(entry.id)?.state == .running { try journal.finish(entry.id, .failed, reason: reason) }
                notes.append("edit \(entry.id) (\(entry.summary)) could not be finished and is marked failed: \(reason)")
            }
        }
        return notes
    }

    /// Errors after which an interrupted edit cannot be finished by trying again.
    static func endsEdit(_ error: any Error) -> Bool {
        switch error {
        case let error as SpotifyError: return error.isDefinitiveRefusal
        case is EditRefused, is PlaylistGone, is UnknownItems, is EditLost, is NotPermitted, is InvalidEdit, is NothingToUndo,
             is OnlyOwnerChangesDetails, is CollaborativeMustBePrivate:
            return true
        default: return false
        }
    }

    /// Finishes one interrupted edit; a line saying so (nil when there is nothing to say).
    private func finish(_ entry: EditJournal.Entry) async throws -> String? {
        let backward = entry.direction == .backward
        switch entry.change {
        case .library(let edit) where edit.uris.isEmpty:
            // A creation whose answer never came: which playlist it made (if any) is unknown.
            try journal.finish(entry.id, .failed, reason: "interrupted before Spotify answered the creation")
            return "edit \(entry.id) (\(entry.summary)) was interrupted before Spotify answered; if the playlist exists, it is in `timbre playlists` after a sync"
        case .library(let edit):
            // Saving and removing are idempotent: sending them again finishes them.
            let change = backward ? edit.inverse : edit
            try await sendLibrary(change, journalID: entry.id, nothingApplied: .failed)
            try journal.finish(entry.id, backward ? .undone : .done)
            try await refresh(after: change)
        case .details(let edit):
            try await sendDetails(backward ? edit.inverse : edit, journalID: entry.id, nothingApplied: backward ? .done : .failed)
            try journal.finish(entry.id, backward ? .undone : .done)
            _ = try await detailsOutcome(edit, op: "finish", journalID: entry.id)
        case .entries(let edit, let before):
            guard let id = SpotifyID(entry.playlist) else {
                try journal.finish(entry.id, .failed, reason: "the journal names no valid playlist id")
                return nil
            }
            let forward = try Self.plan(edit, on: before)
            let plan = backward ? try Self.plan(edit.inverse(before: before), on: forward.result) : forward
            let meta = try await LivePlaylist.meta(id, api: api)
            let final = try await run(plan, playlist: id, journalID: entry.id, from: nil, name: meta.name.isEmpty ? entry.playlist : meta.name,
                                      legacy: meta.legacyShape, nothingApplied: backward ? .done : .failed)
            try journal.finish(entry.id, backward ? .undone : .done)
            _ = try await store(final, expected: plan.result)
        }
        return "finished edit \(entry.id) that was interrupted (\(backward ? "undo of " : "")\(entry.summary))"
    }

    /// Ends an interrupted edit without finishing it: nothing is sent. Returns what it leaves on
    /// Spotify, as far as a read can tell.
    public func abandon(_ id: Int64) async throws -> String {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        guard let entry = try journal.entry(id) else {
            throw InvalidEdit(message: "there is no edit \(id) in the journal", hint: "`timbre history` lists the edits and their numbers")
        }
        guard entry.state == .running else {
            throw InvalidEdit(message: "edit \(id) is \(entry.state.rawValue), not interrupted: there is nothing to abandon",
                              hint: entry.state == .done ? "`timbre undo` reverts the newest finished edit" : nil)
        }
        let leaves: String
        switch entry.change {
        case .entries(let edit, let before):
            let backward = entry.direction == .backward
            var left = "what Spotify holds now could not be read"
            if let playlist = SpotifyID(entry.playlist), let forward = try? Self.plan(edit, on: before),
               let plan = backward ? try? Self.plan(edit.inverse(before: before), on: forward.result) : forward,
               let live = try? await LivePlaylist.read(playlist, api: api) {
                let name = TerminalText.preview(live.meta.name, limit: 60)
                if let reached = plan.lastStep(matching: live.uris) {
                    left = reached == 0 ? "“\(name)” is as it was before the edit (none of its \(plan.writes.count) writes was applied)"
                        : "“\(name)” stays as \(reached) of the edit's \(plan.writes.count) writes left it (\(live.uris.count) entries)"
                } else {
                    left = "“\(name)” holds \(live.uris.count) entries, in a state the edit does not explain (changed elsewhere since)"
                }
                _ = try? await store(live, expected: live.uris)
            }
            leaves = left
        case .library:
            leaves = "the likes or follows sent before it stopped stay as they are on Spotify"
        case .details:
            leaves = "the playlist's details are as Spotify last took them (the change may or may not have been applied)"
        }
        try journal.finish(id, .failed, reason: "abandoned by the user; \(leaves)")
        return leaves
    }

    /// Sends the plan's writes from `start` (nil: wherever the playlist shows it stopped). A
    /// write whose answer is lost is never resent blindly: the playlist is read and matched
    /// against the list after each step, and the plan goes on from the step it shows.
    /// A write Spotify refuses for good ends the edit (see `refused`): `nothingApplied` is what the
    /// journal says of it when none of the plan had been applied.
    private func run(_ plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64, from start: Int?, name: String, legacy: Bool,
                     nothingApplied: EditJournal.Entry.State = .failed) async throws -> LivePlaylist {
        var step: Int
        if let start {
            step = start
        } else {
            step = try await locate(plan, playlist: playlist, journalID: journalID, name: name)
        }
        var unknownInARow = 0
        while step < plan.writes.count {
            do {
                try await send(plan.writes[step], to: playlist, legacy: legacy)
                step += 1
                unknownInARow = 0
                try journal.confirm(journalID, step: step)
                progress?(step, plan.writes.count)
            } catch let error as SpotifyError where error.isDefinitiveRefusal {
                throw try await refused(error, write: plan.writes[step], plan: plan, playlist: playlist, journalID: journalID, name: name,
                                        nothingApplied: nothingApplied)
            } catch let error as WriteOutcomeUnknown {
                unknownInARow += 1
                // Left running: the next command that opens the journal finishes it.
                if unknownInARow > 3 { throw error }
                step = try await locate(plan, playlist: playlist, journalID: journalID, name: name)
            }
        }
        return try await LivePlaylist.read(playlist, api: api)
    }

    /// The step of `plan` the playlist on Spotify is at (the latest, when steps look alike).
    private func locate(_ plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64, name: String) async throws -> Int {
        let live = try await LivePlaylist.read(playlist, api: api)
        guard let reached = plan.lastStep(matching: live.uris) else {
            try journal.finish(journalID, .failed)
            throw EditLost(journalID: journalID, playlist: live.meta.name.isEmpty ? name : live.meta.name)
        }
        try journal.confirm(journalID, step: reached)
        return reached
    }

    /// A write Spotify refused for good: the journal entry ends — never resent — with Spotify's
    /// words and how much of the plan the live playlist shows applied; the cache gets what Spotify
    /// holds. Returns the error to throw.
    private func refused(_ error: SpotifyError, write: EntryWrite, plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64,
                         name: String, nothingApplied: EditJournal.Entry.State) async throws -> any Error {
        if error.status == 404 {
            let gone = PlaylistGone(playlist: name)
            try journal.finish(journalID, .failed, reason: gone.message)
            return gone
        }
        var applied = -1
        var shown = name
        var owner: String?
        if let live = try? await LivePlaylist.read(playlist, api: api) {
            shown = live.meta.name.isEmpty ? name : live.meta.name
            owner = live.meta.ownerName ?? live.meta.ownerID
            applied = plan.lastStep(matching: live.uris) ?? -1
            _ = try? await store(live, expected: live.uris)
        }
        let state: EditJournal.Entry.State = applied == 0 ? nothingApplied : .failed
        func end(_ reason: String) throws { try journal.finish(journalID, state, reason: state == .failed ? reason : nil) }
        let refusal = EditRefused(journalID: journalID, playlist: shown, status: error.status, spotify: error.spotifyMessage ?? error.message,
                                  applied: applied, total: plan.writes.count, leftAs: state)
        if error.status == 400, case .add(let uris, _) = write, (error.spotifyMessage ?? "").localizedCaseInsensitiveContains("non-existing") {
            let unknown = UnknownItems(playlist: shown, unknown: await unknownItems(uris), applied: max(applied, 0))
            try end(unknown.message)
            return unknown
        }
        try end(refusal.reason)
        if error.status == 403, applied == 0, let owner { return NotPermitted(playlist: shown, owner: owner) }
        return refusal
    }

    /// Of `uris`, those the catalogue does not have (asked one by one: only after Spotify refused
    /// a batch of at most 100 for holding such an id).
    func unknownItems(_ uris: [String]) async -> [String] {
        var seen = Set<String>()
        var unknown: [String] = []
        for uri in uris where seen.insert(uri).inserted {
            let parts = uri.split(separator: ":")
            guard parts.count == 3, parts[1] == "track" || parts[1] == "episode", SpotifyID(String(parts[2])) != nil else {
                unknown.append(uri)
                continue
            }
            do {
                _ = try await api.get("\(parts[1])s/\(parts[2])")
            } catch let error as SpotifyError where error.status == 404 || error.status == 400 {
                unknown.append(uri)
            } catch {
                continue
            }
        }
        return unknown
    }

    /// One write of a plan, to `/items` — or `/tracks` on a server of the older shape, which the
    /// playlist's own object told (never a 404: that is an answer about the playlist).
    private func send(_ write: EntryWrite, to playlist: SpotifyID, legacy: Bool) async throws {
        let path = "playlists/\(playlist.rawValue)/\(legacy ? "tracks" : "items")"
        let body: JSONValue
        let method: HTTPMethod
        switch write {
        case .add(let uris, let position):
            method = .post
            body = .object([("uris", .array(uris.map(JSONValue.string))), ("position", .int(position))])
        case .removeEvery(let uris):
            method = .delete
            body = .object([("items", .array(uris.map { .object([("uri", .string($0))]) }))])
        case .reorder(let start, let insertBefore, let length):
            method = .put
            body = .object([("range_start", .int(start)), ("insert_before", .int(insertBefore)), ("range_length", .int(length))])
        case .replace(let uris):
            method = .put
            body = .object([("uris", .array(uris.map(JSONValue.string)))])
        }
        _ = try await api.send(method, path, json: Data(body.serialized().utf8), reconciles: true)
    }

    /// Brings the cache to what Spotify holds after the edit.
    private func store(_ live: LivePlaylist, expected: [String]) async throws -> [String] {
        try await cache.replaceEntries(of: live.meta, trackCount: live.meta.total, items: live.items)
        // An unusable entry's placeholder names the position it was read at, and the plan carries
        // it where the edit moved it: compare what they are, not where they were read.
        func unnamed(_ uris: [String]) -> [String] { uris.map { LivePlaylist.isUnusable($0) ? LivePlaylist.unusablePrefix : $0 } }
        guard unnamed(live.uris) == unnamed(expected) else {
            return ["“\(TerminalText.preview(live.meta.name, limit: 60))” changed on Spotify while the edit ran; the cache holds what Spotify holds now"]
        }
        return []
    }

    func checkPermission(_ meta: PlaylistMeta) async throws {
        guard !meta.collaborative else { return }
        let me = try await api.me()
        guard meta.ownerID == me.id else { throw NotPermitted(playlist: meta.name, owner: meta.ownerName ?? meta.ownerID) }
    }

    /// Details are the owner's alone, collaborative or not (Spotify answers 403 to anyone else).
    func checkOwner(_ meta: PlaylistMeta) async throws {
        let me = try await api.me()
        guard meta.ownerID == me.id else {
            if meta.collaborative { throw OnlyOwnerChangesDetails(playlist: meta.name, owner: meta.ownerName ?? meta.ownerID) }
            throw NotPermitted(playlist: meta.name, owner: meta.ownerName ?? meta.ownerID)
        }
    }

    // MARK: Planning

    /// The request in positions of the live playlist. Positional edits are planned on what the
    /// user saw: when the cache's snapshot is not Spotify's, that is a conflict — unless `force`,
    /// which finds the same entries by URI and occurrence.
    /// `dedupe`'s findings: the duplicates that can go, and how many cannot (a local file is never
    /// removed: neither it nor the copy it repeats could be added back).
    static func duplicates(in live: LivePlaylist, fuzzy: Bool) -> (removable: [Reordering.Duplicate], skipped: Int) {
        let all = Reordering.duplicates(Reordering.entries(of: live), uris: live.uris, fuzzy: fuzzy)
        let removable = all.filter { EntryEdit.isResendable($0.uri) && EntryEdit.isResendable(live.uris[$0.duplicateOf]) }
        return (removable, all.count - removable.count)
    }

    /// `duplicates`: for `dedupe`, what `duplicates(in:fuzzy:)` found.
    func resolve(_ request: EditRequest, on live: LivePlaylist, duplicates: [Reordering.Duplicate] = []) throws -> EntryEdit {
        var map: (Int) throws -> Int = { $0 }
        // The user saw the cached list. The snapshot says whether Spotify's is the same; when the
        // cache does not know its snapshot (an upgraded cache before its next sync), the entries do.
        if request.isPositional, let cached = try cache.playlist(.playlist(request.playlist)),
           let entries = try cache.entries(of: .playlist(request.playlist)) {
            let sameSnapshot = cached.snapshotID.map { $0 == live.meta.snapshotID }
            let sameEntries = cached.trackCount == live.uris.count
                && entries.allSatisfy { live.uris.indices.contains($0.position) && live.uris[$0.position] == $0.uri }
            if !(sameSnapshot ?? sameEntries) {
                guard request.force else { throw EditConflict(playlist: live.meta.name, cached: cached.snapshotID, live: live.meta.snapshotID) }
                map = { position in try Self.occurrence(of: position, in: entries, live: live.uris) }
            }
        }
        /// The live positions of the entries the user saw at `positions` (each must name a track).
        func exactly(_ positions: [Int]) throws -> [Int] {
            let mapped = try positions.map(map)
            if let bad = mapped.first(where: { live.uris.indices.contains($0) && LivePlaylist.isUnusable(live.uris[$0]) }) {
                throw InvalidEdit(message: "the entry at position \(bad + 1) has no track Spotify can name, so it cannot be removed", hint: nil)
            }
            return mapped
        }
        /// The live positions of every copy of `uris` (at least one).
        func everyCopy(of uris: [String]) throws -> [Int] {
            let wanted = Set(uris)
            let positions = live.uris.indices.filter { wanted.contains(live.uris[$0]) }
            guard !positions.isEmpty else {
                throw InvalidEdit(message: "none of the given tracks is in “\(TerminalText.preview(live.meta.name, limit: 60))”", hint: "`timbre tracks REF` lists its entries")
            }
            return positions
        }
        switch request.what {
        case .add(let uris, let position):
            if let local = uris.first(where: { $0.hasPrefix("spotify:local:") || LivePlaylist.isUnusable($0) }) {
                throw InvalidEdit(message: "“\(TerminalText.preview(local, limit: 80))” is a local file: Spotify's API cannot add local files to a playlist; nothing was written",
                                  hint: "add local files in the Spotify desktop app")
            }
            return .insert(uris: uris, position: position ?? live.uris.count)
        case .removePositions(let positions):
            return .remove(positions: try exactly(positions))
        case .removeMixed(let positions, let uris):
            return .remove(positions: Array(Set(try exactly(positions)).union(try everyCopy(of: uris))).sorted())
        case .removeURIs(let uris):
            return .remove(positions: try everyCopy(of: uris))
        case .shuffle:
            // Planned as moves; `apply` turns it into a rewrite when that is asked for.
            return .reorder(order: Reordering.shuffled(live.uris.count, seed: request.seed))
        case .sort(let key, let reverse):
            return .reorder(order: Reordering.sorted(Reordering.entries(of: live), by: key, reverse: reverse))
        case .dedupe:
            guard !duplicates.isEmpty else { throw NothingToChange(message: "“\(TerminalText.preview(live.meta.name, limit: 60))” has no duplicates") }
            return .remove(positions: duplicates.map(\.position))
        case .move(let start, let length, let to):
            let mapped = try (start..<start + length).map(map)
            guard mapped == Array(mapped[0]..<mapped[0] + length) else {
                throw InvalidEdit(message: "the entries to move are no longer next to each other on Spotify", hint: "run `timbre sync` and choose the range again")
            }
            return .move(start: mapped[0], length: length, to: to)
        }
    }

    /// The live position of the entry the cache had at `position`: the same URI, the same
    /// occurrence of it.
    static func occurrence(of position: Int, in cached: [CachedEntry], live: [String]) throws -> Int {
        guard let entry = cached.first(where: { $0.position == position }) else {
            throw InvalidEdit(message: "there is no entry at position \(position + 1) in the cached playlist", hint: "`timbre tracks REF` lists its entries")
        }
        let nth = cached.filter { $0.uri == entry.uri && $0.position < position }.count
        guard let found = follow(entry.uri, occurrence: nth, in: live) else {
            throw InvalidEdit(message: "“\(TerminalText.preview(entry.name, limit: 60))” (position \(position + 1)) is no longer in the playlist on Spotify", hint: nil)
        }
        return found
    }

    /// The position in `list` of the `nth` (0-based) copy of `uri`, if it has that many.
    static func follow(_ uri: String, occurrence nth: Int, in list: [String]) -> Int? {
        var seen = 0
        for index in list.indices where list[index] == uri {
            if seen == nth { return index }
            seen += 1
        }
        return nil
    }

    static func plan(_ edit: EntryEdit, on list: [String]) throws -> EntryEdit.Plan {
        do {
            return try edit.plan(on: list)
        } catch .positionOutOfRange(let position, let count) {
            throw InvalidEdit(message: count > 0 ? "position \(position + 1) is outside the playlist (1–\(count))" : "position \(position + 1) is outside the playlist (it is empty)",
                              hint: "positions count from 1; `timbre tracks REF` lists its entries with their positions")
        } catch .nothingToDo {
            throw NothingToChange(message: "that edit changes nothing")
        } catch .cannotAddBack(let uri) {
            throw InvalidEdit(message: LivePlaylist.isUnusable(uri)
                ? "an entry without a track cannot be removed through Spotify's API"
                : "“\(TerminalText.preview(uri, limit: 80))” is a local file: Spotify's API cannot add it back, so timbre removes neither it nor other copies of it (an undo could not restore them)",
                hint: "remove local files in the Spotify app; nothing was written")
        } catch {
            throw InvalidEdit(message: "timbre could not plan that edit safely, so nothing was written", hint: "please report this with the command you ran")
        }
    }

    /// The entries a removal or a move concerns, named as `timbre tracks` shows them.
    static func named(_ edit: EntryEdit, duplicates: [Reordering.Duplicate], in live: LivePlaylist) -> [String] {
        let entries = Reordering.entries(of: live)
        func label(_ position: Int) -> String {
            guard entries.indices.contains(position), let entry = entries[position] else { return "#\(position + 1) (no track Spotify can name)" }
            return entry.label
        }
        if !duplicates.isEmpty { return duplicates.map { "\(label($0.position)) (repeats #\($0.duplicateOf + 1))" } }
        switch edit {
        case .remove(let positions): return Set(positions).sorted().map(label)
        case .move(let start, let length, _): return (start..<start + length).map(label)
        case .insert, .restore, .permute, .reorder: return []
        }
    }

    static func count(_ edit: EntryEdit, into outcome: inout EditOutcome) {
        switch edit {
        case .insert(let uris, _): outcome.added = uris.count
        case .remove(let positions):
            outcome.removed = Set(positions).count
            // Spotify removed every copy: the ones kept went back in with the adds.
            outcome.readded = outcome.writes.reduce(0) { sum, write in
                if case .add(let uris, _) = write { return sum + uris.count }
                return sum
            }
        case .move(_, let length, _): outcome.moved = length
        case .restore(let entries): outcome.added = entries.count
        case .permute(let order), .reorder(let order): outcome.moved = order.enumerated().filter { $0.offset != $0.element }.count
        }
    }

    /// What `order` costs on `live` by moves and by a rewrite.
    static func orderCost(_ order: [Int], request: EditRequest, on live: LivePlaylist) -> OrderCost {
        var key: String?
        if case .sort(let by, let reverse) = request.what { key = by.rawValue + (reverse ? ", reversed" : "") }
        let moves = order == Array(order.indices) ? 0 : EntryEdit.moves(order).count
        let canRewrite = live.uris.allSatisfy(EntryEdit.isResendable)
        return OrderCost(op: request.op, playlistName: live.meta.name, key: key, entries: order.count, moves: moves,
                         rewriteWrites: canRewrite ? (order.count + EntryWrite.maxURIs - 1) / EntryWrite.maxURIs : moves, canRewrite: canRewrite)
    }

    static func describe(_ edit: EntryEdit, in name: String) -> String {
        let name = TerminalText.preview(name, limit: 60)
        switch edit {
        case .insert(let uris, let position): return "added \(uris.count) to “\(name)” at \(position + 1)"
        case .remove(let positions): return "removed \(Set(positions).count) from “\(name)”"
        case .move(let start, let length, let to): return "moved \(length) in “\(name)” from \(start + 1) to \(to + 1)"
        case .restore(let entries): return "put back \(entries.count) in “\(name)”"
        case .permute(let order): return "rewrote the order of \(order.count) in “\(name)” (every added date reset)"
        case .reorder(let order): return "reordered \(order.count) in “\(name)” (added dates kept)"
        }
    }
}
