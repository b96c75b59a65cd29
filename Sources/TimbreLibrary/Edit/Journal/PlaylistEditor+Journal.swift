import Foundation
import TimbreCore
import TimbreNet

/// The journal replayed: undo, redo, finishing what a stopped process left, abandoning it.
extension PlaylistEditor {
    /// Reverts the newest finished edit, when the playlist still is what that edit left.
    /// `force`: the playlist changed since; revert the same entries, found by track and occurrence.
    func undo(force: Bool = false) async throws -> EditOutcome {
        try await replay(undo: true, force: force)
    }

    /// Applies again the edit undone last, when the playlist still is what the undo left.
    func redo(force: Bool = false) async throws -> EditOutcome {
        try await replay(undo: false, force: force)
    }
    // MARK: Steps

    func replay(undo: Bool, force: Bool) async throws -> EditOutcome {
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
                try await sendLibrary(change, journalID: entry.id, nothingApplied: undo ? .done : .undone, backward: undo)
                try journal.finish(entry.id, undo ? .undone : .done)
                try await refresh(after: change)
                outcome = Self.libraryOutcome(change, operation: undo ? .undo : .redo, journalID: entry.id, dryRun: false)
            case .details(let edit):
                try journal.start(entry.id, undo ? .backward : .forward)
                let change = undo ? edit.inverse : edit
                try await sendDetails(change, journalID: entry.id, nothingApplied: undo ? .done : .undone)
                try journal.finish(entry.id, undo ? .undone : .done)
                outcome = try await detailsOutcome(change, operation: undo ? .undo : .redo, journalID: entry.id)
            }
            outcome.replayed = entry.summary
            return outcome
        }
    }

    func replayEntries(_ entry: EditJournal.Entry, edit: EntryEdit, before: [String], undo: Bool, force: Bool) async throws -> EditOutcome {
        guard let id = entry.playlist?.id else { throw EditLost(journalID: entry.id, playlist: entry.summary) }
        let forward = try Self.plan(edit, on: before)
        // As an edit: the cache's list when its snapshot is Spotify's (one small read), else
        // Spotify's, read in full; whose playlist it is checked first.
        let live = try await planningBase(id)
        // Undo starts from what the edit left; redo from what the undo left (the list before it).
        let reference = undo ? forward.result : before
        var change = undo ? edit.inverse(before: before) : edit
        var journalID = entry.id
        if live.uris != reference {
            guard force else { throw EditConflict(playlist: live.meta.name, cached: nil, live: live.meta.snapshotID) }
            // The playlist moved on: the same entries, found by track and occurrence, as an edit of its own.
            change = try Self.remap(change, from: reference, to: live.uris)
            journalID = try journal.begin(
                op: undo ? .undo : .redo, playlist: entry.playlist,
                summary: "\(undo ? "undid" : "redid") edit \(entry.id) on a changed playlist (\(Self.describe(change, in: live.meta.name)))",
                change: .entries(change, before: live.uris))
        } else {
            try journal.start(entry.id, undo ? .backward : .forward)
        }
        let plan = try Self.plan(change, on: live.uris)
        // Refused with nothing applied: the edit stays as it was (done before an undo, undone
        // before a redo); a separate remapped edit simply failed.
        let unchanged: EditJournal.Entry.State = journalID != entry.id ? .failed : (undo ? .done : .undone)
        let snapshot = try await runWrites(
            plan, playlist: id, journalID: journalID, from: 0, name: live.meta.name,
            legacy: live.meta.legacyShape, nothingApplied: unchanged)
        if journalID != entry.id { try journal.finish(journalID, .done) }
        try journal.finish(entry.id, undo ? .undone : .done)
        // The cache after it derived from the plan, as after an edit (read only when it cannot be).
        let stored = try await storeAfter(plan, on: live, snapshot: snapshot, playlist: id)
        var outcome = EditOutcome(
            operation: undo ? .undo : .redo, playlist: entry.playlist, playlistName: live.meta.name,
            snapshotID: stored.snapshotID, writes: plan.writes, journalID: entry.id, dryRun: false)
        outcome.warnings = stored.warnings
        Self.count(change, plan: plan, into: &outcome)
        if case .permute = edit { outcome.dates = .notRestored }
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
            throw InvalidEdit(
                message: "the playlist changed since it was reordered; a new order would not be the one asked for",
                hint: "shuffle or sort it again")
        case .become:
            // Made equal to a whole list, it would drop whatever changed since.
            throw InvalidEdit(
                message: "the playlist changed since it was restored; making it equal to that list again would undo those changes too",
                hint: "restore it to the version you want: `timbre playlist restore REF --to V`")
        case .putBack(let entries):
            var position = 0
            return .putBack(
                entries: entries.map { entry in
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
                notes += takeSettledNotes()
            } catch  where Self.endsEdit(error) {
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
    func finish(_ entry: EditJournal.Entry) async throws -> String? {
        let backward = entry.direction == .backward
        switch entry.change {
        case .library(let edit) where edit.uris.isEmpty:
            // A creation whose answer never came: which playlist it made (if any) is unknown.
            try journal.finish(entry.id, .failed, reason: "interrupted before Spotify answered the creation")
            return
                "edit \(entry.id) (\(entry.summary)) was interrupted before Spotify answered; if the playlist exists, it is in `timbre playlists` after a sync"
        case .library(let edit) where edit.fill != nil && !backward:
            // A deleted playlist created again: its id was journalled; the entries missing are added.
            try await finishRevival(entry, edit)
        case .library(let edit):
            // The chunks Spotify confirmed (the entry's step) are not sent again; the one in
            // flight when the process stopped is (saving and removing are idempotent).
            let change = backward ? edit.inverse : edit
            try await sendLibrary(
                change, journalID: entry.id, nothingApplied: .failed, backward: backward, from: min(entry.step, change.chunks.count))
            try journal.finish(entry.id, backward ? .undone : .done)
            try await refresh(after: change)
        case .details(let edit):
            try await sendDetails(backward ? edit.inverse : edit, journalID: entry.id, nothingApplied: backward ? .done : .failed)
            try journal.finish(entry.id, backward ? .undone : .done)
            _ = try await detailsOutcome(edit, operation: .edit, journalID: entry.id)
        case .entries(let edit, let before):
            guard let id = entry.playlist?.id else {
                try journal.finish(entry.id, .failed, reason: "the journal names no valid playlist id")
                return nil
            }
            let forward = try Self.plan(edit, on: before)
            let plan = backward ? try Self.plan(edit.inverse(before: before), on: forward.result) : forward
            // A write the stopped process sent may still land: nothing is read before it cannot.
            if let until = entry.inFlightUntil { try await waitOut(until, deadline: entry.sentDeadline) }
            var start: Int?
            if entry.told != nil {
                switch try await reconcileTold(entry, plan: plan, playlist: id, backward: backward) {
                case .settled(let note): return note
                case .resume(let step): start = step
                }
            }
            let meta = try await LivePlaylist.meta(id, api: api)
            let final = try await run(
                plan, playlist: id, journalID: entry.id, from: start, name: meta.name.isEmpty ? id.rawValue : meta.name,
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
            throw InvalidEdit(
                message: "edit \(id) is \(entry.state.rawValue), not interrupted: there is nothing to abandon",
                hint: entry.state == .done ? "`timbre undo` reverts the newest finished edit" : nil)
        }
        let leaves: String
        switch entry.change {
        case .entries(let edit, let before):
            let backward = entry.direction == .backward
            var left = "what Spotify holds now could not be read"
            if let playlist = entry.playlist?.id, let forward = try? Self.plan(edit, on: before),
                let plan = backward ? try? Self.plan(edit.inverse(before: before), on: forward.result) : forward,
                let live = try? await LivePlaylist.read(playlist, api: api)
            {
                let name = TerminalText.preview(live.meta.name, limit: 60)
                if let reached = plan.lastStep(matching: live.uris) {
                    left =
                        reached == 0
                        ? "“\(name)” is as it was before the edit (none of its \(plan.writes.count) writes was applied)"
                        : "“\(name)” stays as \(reached) of the edit's \(plan.writes.count) writes left it (\(live.uris.count) entries)"
                } else {
                    left = "“\(name)” holds \(live.uris.count) entries, in a state the edit does not explain (changed elsewhere since)"
                }
                _ = try? await store(live, expected: live.uris)
            }
            leaves = left
        case .library(let edit) where edit.fill != nil:
            leaves = "the playlist it created (if Spotify answered) stays, with the entries added before it stopped"
        case .library:
            leaves = "the likes or follows sent before it stopped stay as they are on Spotify"
        case .details:
            leaves = "the playlist's details are as Spotify last took them (the change may or may not have been applied)"
        }
        try journal.finish(id, .failed, reason: "abandoned by the user; \(leaves)")
        return leaves
    }
}
