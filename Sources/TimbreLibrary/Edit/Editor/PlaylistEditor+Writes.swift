import Foundation
import TimbreCore
import TimbreNet

/// Sending a plan's writes: step by step, never resending one whose answer was lost.
extension PlaylistEditor {
    /// Sends the plan's writes from `start` (nil: wherever the playlist shows it stopped). A
    /// write whose answer is lost is never resent blindly: the playlist is read and matched
    /// against the list after each step, and the plan goes on from the step it shows.
    /// A write Spotify refuses for good ends the edit (see `refused`): `nothingApplied` is what the
    /// journal says of it when none of the plan had been applied.
    /// `resumable`: the edit began before this plan (a re-created playlist's entries), so a plan
    /// that failed with nothing of it applied stays for the next command to finish, as one partly applied does.
    func run(
        _ plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64, from start: Int?, name: String, legacy: Bool,
        nothingApplied: EditJournal.Entry.State = .failed, resumable: Bool = false
    ) async throws -> LivePlaylist {
        _ = try await runWrites(
            plan, playlist: playlist, journalID: journalID, from: start, name: name, legacy: legacy, nothingApplied: nothingApplied,
            resumable: resumable)
        return try await LivePlaylist.read(playlist, api: api, state: fetchState)
    }

    /// `run` without the read after: returns the snapshot Spotify gave the last write's answer,
    /// nil when that is not known (no snapshot in the answer, or the edit's end was found by a read
    /// after a lost answer) — then only a read tells what the playlist holds.
    /// `stop`: asked between two confirmed writes, it ends them there (`WritesStopped`); only an
    /// order change by range moves passes one, as every prefix of its writes is a permutation.
    func runWrites(
        _ plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64, from start: Int?, name: String, legacy: Bool,
        nothingApplied: EditJournal.Entry.State = .failed, stop: EditStop? = nil, resumable: Bool = false
    ) async throws -> String? {
        var snapshot: String?
        var step: Int
        if let start {
            step = start
        } else {
            step = try await locate(plan, playlist: playlist, journalID: journalID, name: name)
        }
        var unknownInARow = 0
        do {
            while step < plan.writes.count {
                do {
                    // Before it leaves: a process finishing this edit after a crash waits it out.
                    try journal.sending(journalID, at: clock.now(), deadline: api.pacing.requestDeadline)
                    snapshot = try await send(plan.writes[step], to: playlist, legacy: legacy)
                    step += 1
                    unknownInARow = 0
                    try journal.confirm(journalID, step: step)
                    progress?(step, plan.writes.count)
                    if let stop, stop.isRequested, step < plan.writes.count { throw WritesStopped(done: step, snapshot: snapshot) }
                } catch let error as SpotifyError where error.isDefinitiveRefusal {
                    throw try await refused(
                        error, write: plan.writes[step], plan: plan, playlist: playlist, journalID: journalID, name: name,
                        nothingApplied: nothingApplied)
                } catch let error as WriteOutcomeUnknown {
                    unknownInARow += 1
                    if unknownInARow > 3 { throw error }
                    // The playlist tells what the lost write did; the plan goes on from there.
                    try await api.pacing.backOff(unknownInARow - 1)
                    let sent = step
                    step = try await locate(plan, playlist: playlist, journalID: journalID, name: name)
                    if step > sent { noteApplied(plan, cause: Self.cause(of: error), playlist: name) }
                    snapshot = nil
                }
            }
        } catch  where Self.settles(error) {
            // Failed in front of the user: settled now, not left for an unrelated command to push.
            try await settle(
                after: error, plan: plan, playlist: playlist, journalID: journalID, name: name, nothingApplied: nothingApplied, resumable: resumable)
            return nil
        }
        return snapshot
    }

    /// The step of `plan` the playlist on Spotify is at (the latest, when steps look alike).
    func locate(_ plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64, name: String) async throws -> Int {
        let live = try await LivePlaylist.read(playlist, api: api, state: fetchState)
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
    func refused(
        _ error: SpotifyError, write: EntryWrite, plan: EntryEdit.Plan, playlist: SpotifyID, journalID: Int64,
        name: String, nothingApplied: EditJournal.Entry.State
    ) async throws -> any Error {
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
        let refusal = EditRefused(
            journalID: journalID, playlist: shown, status: error.status, spotify: error.spotifyMessage ?? error.message,
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
    /// Returns the snapshot Spotify's answer gives the playlist after the write, if it does.
    @discardableResult
    func send(_ write: EntryWrite, to playlist: SpotifyID, legacy: Bool) async throws -> String? {
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
        let answer = try await api.send(method, path, json: Data(body.serialized().utf8), reconciles: true)
        // `{"snapshot_id": "…"}`; anything else (an empty body from a stand-in) tells nothing.
        return (try? API.decode(answer.body, as: API.Playlist.self))?.snapshotID
    }

    /// Brings the cache to what Spotify holds after the edit.
    func store(_ live: LivePlaylist, expected: [String]) async throws -> [String] {
        try await cache.replaceEntries(of: live.meta, trackCount: live.meta.total, items: live.items)
        // An unusable entry's placeholder names the position it was read at, and the plan carries
        // it where the edit moved it: compare what they are, not where they were read.
        func unnamed(_ uris: [String]) -> [String] { uris.map { LivePlaylist.isUnusable($0) ? LivePlaylist.unusablePrefix : $0 } }
        guard unnamed(live.uris) == unnamed(expected) else {
            return ["“\(TerminalText.preview(live.meta.name, limit: 60))” changed on Spotify while the edit ran; the cache holds what Spotify holds now"]
        }
        return []
    }
}
