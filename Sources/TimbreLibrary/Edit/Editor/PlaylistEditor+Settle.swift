import Foundation
import TimbreCore
import TimbreNet

/// The clock the editor reads and sleeps by when it waits out a write a stopped process may still
/// have in flight, and where it says that it waits (stderr for the CLI; nowhere by default).
public struct EditClock: Sendable {
    public var now: @Sendable () -> Date
    public var sleep: @Sendable (Duration) async throws -> Void
    public var say: @Sendable (String) -> Void

    public init(
        now: @escaping @Sendable () -> Date = { Date() }, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        say: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.now = now
        self.sleep = sleep
        self.say = say
    }

    public static let live = EditClock()
}

/// A write that failed in front of the user is settled in front of the user: the playlist is read
/// at once and the edit ends done, or failed with nothing sent again — or, when neither can be
/// told, it stays interrupted, marked as told, so that the next command reconciles and reports it
/// instead of pushing the plan on. A write in flight when a process died is waited out first.
extension PlaylistEditor {
    /// Errors after which the outcome of a plan in a live process is settled by a read (the
    /// answer was lost or 5xx past the retries, the network, the rate limit, the session): not a
    /// refusal (settled already), a stop, a cancellation (the process is going away) or the journal.
    static func settles(_ error: any Error) -> Bool {
        switch error {
        case is WritesStopped, is CancellationError, is CacheError: return false
        default: return !endsEdit(error)
        }
    }

    /// After `error` ended the writes of `plan` in a live process: reads the playlist and ends the
    /// edit by what it shows. Returns when Spotify shows the whole plan applied (a note says the
    /// answer was lost but the edit applied); otherwise throws what to tell the user.
    func settle(
        after error: any Error, plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64, name: String,
        nothingApplied: EditJournal.Entry.State, resumable: Bool = false
    ) async throws {
        let cause = Self.cause(of: error)
        let what = Self.what(plan)
        guard let live = try? await LivePlaylist.read(playlist, api: api, state: fetchState) else {
            let unsettled = WriteUnsettled(journalID: journalID, playlist: name, what: what, cause: cause)
            // A lost answer (not a 5xx) may still land: the next command waits it out first.
            let answered = (error as? WriteOutcomeUnknown).map { $0.reason.hasPrefix("HTTP ") } ?? true
            try journal.tell(journalID, unsettled.told, answered: answered)
            throw unsettled
        }
        let shown = live.meta.name.isEmpty ? name : live.meta.name
        _ = try? await store(live, expected: live.uris)
        guard let reached = plan.lastStep(matching: live.uris) else {
            let lost = EditLost(journalID: journalID, playlist: shown)
            try journal.finish(journalID, .failed, reason: lost.message)
            throw lost
        }
        if reached == plan.writes.count {
            try journal.confirm(journalID, step: reached)
            noteApplied(plan, cause: cause, playlist: shown)
            return
        }
        if reached == 0 && !resumable {
            let notApplied = WriteNotApplied(journalID: journalID, playlist: shown, what: what, cause: cause, leftAs: nothingApplied)
            try journal.finish(journalID, nothingApplied, reason: nothingApplied == .failed ? notApplied.message : nil)
            throw notApplied
        }
        try journal.confirm(journalID, step: reached)
        let partly = WritePartlyApplied(journalID: journalID, playlist: shown, cause: cause, applied: reached, total: plan.writes.count)
        try journal.tell(journalID, partly.told)
        throw partly
    }

    enum Reconciled {
        /// Settled: the line to show.
        case settled(String)
        /// Partly applied: the plan goes on from this step.
        case resume(from: Int)
    }

    /// Finishing an interrupted edit whose failure the user was told of (`entry.told`): it is
    /// reconciled and reported — a write that did not reach Spotify is never sent again — and
    /// one found partly applied goes on (the user was told it would).
    func reconcileTold(_ entry: EditJournal.Entry, plan: EntryEdit.Plan, playlist: SpotifyID, backward: Bool) async throws -> Reconciled {
        let live = try await LivePlaylist.read(playlist, api: api, state: fetchState)
        let name = TerminalText.preview(live.meta.name, limit: 60)
        guard let reached = plan.lastStep(matching: live.uris) else {
            let lost = EditLost(journalID: entry.id, playlist: live.meta.name)
            try journal.finish(entry.id, .failed, reason: lost.message)
            throw lost
        }
        if reached == plan.writes.count {
            try journal.finish(entry.id, backward ? .undone : .done)
            _ = try await store(live, expected: plan.result)
            return .settled("edit \(entry.id) (\(entry.summary)), reported failed when Spotify did not answer, had been applied by Spotify: it is done")
        }
        if reached == 0 {
            let state: EditJournal.Entry.State = backward ? .done : .failed
            try journal.finish(
                entry.id, state,
                reason: state == .failed ? "it did not reach Spotify (found when it was checked after the failure); nothing was sent again" : nil)
            _ = try await store(live, expected: live.uris)
            return .settled("edit \(entry.id) (\(entry.summary)) did not reach Spotify, as you were told; “\(name)” is unchanged and nothing was sent again")
        }
        try journal.confirm(entry.id, step: reached)
        return .resume(from: reached)
    }

    /// Waits until `until` (a write of a stopped process may land until then), saying so.
    func waitOut(_ until: Date, deadline: Duration?) async throws {
        var left = until.timeIntervalSince(clock.now())
        guard left > 0 else { return }
        // A clock set back since: never longer than the deadline itself.
        if let deadline { left = min(left, Double(deadline.components.seconds) + 1) }
        clock.say("waiting \(Int(left.rounded(.up))) s for a write the stopped process may still have in flight")
        try await clock.sleep(.milliseconds(Int((left * 1000).rounded(.up))))
    }

    /// Says (with the operation's warnings) that a write whose answer was lost was applied.
    func noteApplied(_ plan: EntryEdit.Plan, cause: String, playlist: String) {
        settledNotes.withLock {
            $0.append("Spotify's answer to \(Self.what(plan)) on “\(TerminalText.preview(playlist, limit: 60))” was lost (\(cause)), but Spotify applied it")
        }
    }

    /// The notes of writes settled since the last call (each said once).
    func takeSettledNotes() -> [String] {
        settledNotes.withLock { notes in
            defer { notes.removeAll() }
            return notes
        }
    }

    /// What failed, in a few words: `HTTP 503`, `the connection was reset`, or the error's message.
    static func cause(of error: any Error) -> String {
        if let unknown = error as? WriteOutcomeUnknown { return TerminalText.sanitize(unknown.reason) }
        if let error = error as? any UserFacingError { return TerminalText.preview(error.message, limit: 160) }
        return TerminalText.preview(String(describing: error), limit: 160)
    }

    /// The plan as the user knows it: "the move", "the addition", or "the edit" when it takes several writes.
    static func what(_ plan: EntryEdit.Plan) -> String {
        guard plan.writes.count == 1, let write = plan.writes.first else { return "the edit" }
        switch write {
        case .add: return "the addition"
        case .removeEvery: return "the removal"
        case .reorder: return "the move"
        case .replace: return "the rewrite"
        }
    }
}

/// A write failed in front of the user, and the playlist shows none of the edit applied: it ended
/// (failed; for an undo or redo, the edit stays as it was) and is never sent again.
public struct WriteNotApplied: UserFacingError, Equatable {
    public var journalID: Int64
    public var playlist: String
    public var what: String
    public var cause: String
    public var leftAs: EditJournal.Entry.State
    public var message: String {
        "\(what) did not reach Spotify (\(cause)) — nothing changed in “\(TerminalText.preview(playlist, limit: 60))”"
    }
    public var hint: String? {
        switch leftAs {
        case .done: return "the edit stays done and nothing will be resent; try the undo again later"
        case .undone: return "the edit stays undone and nothing will be resent; try the redo again later"
        default: return "edit \(journalID) is marked failed and will not be sent again; try it again when Spotify answers"
        }
    }
    public var exitStatus: ExitStatus { .failure }
}

/// Spotify stopped answering after part of an edit of several writes: the playlist holds what
/// those writes did; the edit stays interrupted, and the user is told the next command sends the rest.
public struct WritePartlyApplied: UserFacingError, Equatable {
    public var journalID: Int64
    public var playlist: String
    public var cause: String
    public var applied: Int
    public var total: Int
    public var message: String {
        let shown = TerminalText.preview(playlist, limit: 60)
        if applied == 0 { return "edit \(journalID) on “\(shown)”: Spotify stopped answering (\(cause)) before any of its \(total) writes" }
        return "edit \(journalID) on “\(shown)”: Spotify stopped answering (\(cause)) after \(applied) of its \(total) writes, which stay applied"
    }
    public var hint: String? {
        "the next timbre command sends the other \(total - applied) (none twice); `timbre history --abandon \(journalID)` leaves the playlist as it is"
    }
    /// What `timbre history` shows beside it.
    var told: String { "stopped after \(applied) of \(total) writes (\(cause)); the next command sends the rest" }
    public var exitStatus: ExitStatus { .failure }
}

/// A write failed in front of the user and the playlist could not be read to tell whether it was
/// applied: the edit stays interrupted, marked so — the next command checks and reports it, and
/// never sends again a write that did not reach Spotify.
public struct WriteUnsettled: UserFacingError, Equatable {
    public var journalID: Int64
    public var playlist: String
    public var what: String
    public var cause: String
    public var message: String {
        "no answer from Spotify to \(what) on “\(TerminalText.preview(playlist, limit: 60))” (\(cause)), and the playlist could not be read to check whether it was applied"
    }
    public var hint: String? {
        "the next timbre command checks it and says what happened; it never sends \(what) again (`timbre history` shows edit \(journalID))"
    }
    var told: String { "Spotify did not answer (\(cause)); the next command checks whether it was applied and never resends it" }
    public var exitStatus: ExitStatus { .failure }
}
