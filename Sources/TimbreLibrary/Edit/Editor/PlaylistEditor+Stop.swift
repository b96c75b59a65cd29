import Foundation
import TimbreCore

/// An order change by range moves stopped between two writes (`EditStop`).
extension PlaylistEditor {
    /// Sends an entry edit's plan, journalled as `id`, and brings the cache to what it left. Range
    /// moves (`.reorder`) can stop between writes (Esc, Ctrl-C: `stop`); other edits, a
    /// rewrite among them, finish.
    func sendEntries(
        _ plan: EntryEdit.Plan, edit: EntryEdit, to playlist: SpotifyID, stop: EditStop?, on live: LivePlaylist, journalID id: Int64, outcome: EditOutcome
    ) async throws -> EditOutcome {
        var outcome = outcome
        let stoppable = if case .reorder = edit { true } else { false }
        stop?.begin(stoppable: stoppable)
        defer { stop?.end() }
        tellRequests(
            live.meta.name, toCome: plan.writes.count + requestsAfter(plan.writes, before: live.uris, resultCount: plan.result.count))
        let snapshot: String?
        do {
            snapshot = try await runWrites(
                plan, playlist: playlist, journalID: id, from: 0, name: live.meta.name,
                legacy: live.meta.legacyShape, stop: stoppable ? stop : nil)
        } catch let stopped as WritesStopped {
            return try await self.stopped(stopped, plan: plan, on: live, journalID: id, playlist: playlist, outcome: outcome)
        }
        try journal.finish(id, .done)
        let stored = try await storeAfter(plan, on: live, snapshot: snapshot, playlist: playlist)
        outcome.warnings += stored.warnings
        outcome.snapshotID = stored.snapshotID
        outcome.journalID = id
        return outcome
    }

    /// After `stop.done` of the plan's moves: the journal entry becomes the edit actually applied
    /// (`.reorder` of the order those moves left, planned from the same list before), finished
    /// `done`, so an undo puts back exactly the old order; the cache gets that order.
    func stopped(
        _ stop: WritesStopped, plan: EntryEdit.Plan, on live: LivePlaylist, journalID id: Int64, playlist: SpotifyID, outcome: EditOutcome
    ) async throws -> EditOutcome {
        let name = TerminalText.preview(live.meta.name, limit: 60)
        let made = Array(plan.writes.prefix(stop.done))
        guard let order = EditStop.order(after: made[...], count: live.uris.count) else {
            // Not range moves (never passed a stop): the journal finishes it as after a kill.
            throw InvalidEdit(message: "the edit of “\(name)” stopped part-way", hint: "run `timbre sync`: the next command finishes it")
        }
        var outcome = outcome
        outcome.ending = .stopped(done: stop.done, total: plan.writes.count)
        outcome.writes = made
        outcome.journalID = id
        outcome.counts.moved = order.enumerated().filter { $0.offset != $0.element }.count
        let partial = EntryEdit.Plan(writes: made, result: order.map { live.uris[$0] }, before: live.uris)
        if order == Array(order.indices) {
            try journal.finish(id, .failed, reason: "stopped before any entry had moved; nothing changed")
            outcome.journalID = nil
        } else {
            try journal.update(
                id, change: .entries(.reorder(order: order), before: live.uris), playlist: .playlist(playlist),
                summary: "made \(stop.done) of \(plan.writes.count) moves in “\(name)” before it was stopped (added dates kept)")
            try journal.finish(id, .done)
        }
        let stored = try await storeAfter(partial, on: live, snapshot: stop.snapshot, playlist: playlist)
        outcome.warnings += stored.warnings
        outcome.snapshotID = stored.snapshotID
        return outcome
    }
}
