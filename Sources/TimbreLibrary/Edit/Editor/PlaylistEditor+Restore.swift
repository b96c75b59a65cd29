import Foundation
import TimbreCore
import TimbreNet

/// A playlist made equal to a list (one of its versions), and a deleted playlist brought back.
extension PlaylistEditor {
    /// `EntryChange.become(to:)` on the playlist as Spotify holds it: `target`, with the entries
    /// Spotify cannot name (a null track) kept where they are — they can be neither removed nor
    /// added. A local file can be kept and moved, never added or removed (the API cannot add one,
    /// and its remove takes every copy): asking for that ends here, before anything is written.
    /// `dates`: the target's added dates; copies of one track are paired with the playlist's copies
    /// added at the same moment (`ListTransform.pairing`), so each keeps its own date and place.
    static func becoming(_ target: [String], addedAt dates: [String?]? = nil, on live: LivePlaylist) throws -> EntryEdit {
        var target = target
        var dates = dates.flatMap { $0.count == target.count ? $0 : nil }
        for (position, uri) in live.uris.enumerated() where LivePlaylist.isUnusable(uri) {
            target.insert(uri, at: min(position, target.count))
            dates?.insert(nil, at: min(position, target.count - 1))
        }
        var have: [String: Int] = [:], want: [String: Int] = [:]
        for uri in live.uris { have[uri, default: 0] += 1 }
        for uri in target { want[uri, default: 0] += 1 }
        let name = TerminalText.preview(live.meta.name, limit: 60)
        let pairing = dates.flatMap { Self.pairing(target, dates: $0, on: live) }
        guard target != live.uris || !ListTransform.keepsPlaces(pairing) else {
            throw NothingToChange(message: "“\(name)” already holds exactly those entries")
        }
        if let local = target.first(where: { !EntryEdit.isResendable($0) && want[$0, default: 0] > have[$0, default: 0] }) {
            throw InvalidEdit(
                message:
                    "the list to restore holds the local file “\(TerminalText.preview(local, limit: 80))” more times than “\(name)” does now: Spotify's API cannot add local files; nothing was written",
                hint: "add it in the Spotify desktop app, then restore again")
        }
        if let local = live.uris.first(where: { !EntryEdit.isResendable($0) && have[$0, default: 0] > want[$0, default: 0] }) {
            throw InvalidEdit(
                message:
                    "“\(name)” holds the local file “\(TerminalText.preview(local, limit: 80))” more times than the list to restore: Spotify's API removes every copy and cannot add one back, so timbre does not remove it; nothing was written",
                hint: "remove it in the Spotify app, then restore again")
        }
        return .become(target: target, pairing: pairing)
    }

    /// `ListTransform.pairing` of `target` (dated `dates`) with the live list, dated as Spotify or
    /// the cache holds its entries.
    static func pairing(_ target: [String], dates: [String?], on live: LivePlaylist) -> [Int?]? {
        var listDates = [String?](repeating: nil, count: live.uris.count)
        for entry in live.items.items where listDates.indices.contains(entry.position) { listDates[entry.position] = entry.addedAt }
        return ListTransform.pairing(target: target, dates: dates, list: live.uris, listDates: listDates)
    }

    /// What `edit` concerns, counted into `outcome`; a `become` from its plan.
    static func count(_ edit: EntryEdit, plan: EntryEdit.Plan, into outcome: inout EditOutcome) {
        count(edit, into: &outcome)
        count(becoming: edit, plan: plan, into: &outcome)
    }

    /// The counts of a `become` plan (entries back, moved, removed, put back): from its plan, as
    /// the edit alone does not know the list it starts from. Nothing for other edits.
    static func count(becoming edit: EntryEdit, plan: EntryEdit.Plan, into outcome: inout EditOutcome) {
        guard case .become(_, let pairing) = edit, let transform = try? ListTransform(from: plan.before, to: plan.result, pairing: pairing) else { return }
        outcome.counts.added = transform.added
        outcome.counts.removed = transform.removed
        outcome.counts.moved = transform.moved
        outcome.counts.readded = transform.readded
    }

    // MARK: A deleted playlist

    /// Brings back a playlist no longer in the library: followed again when Spotify still answers
    /// for it, else created anew with `details` and `entries`.
    func revive(_ playlist: SpotifyID, details: PlaylistDetails, entries: [String], dryRun: Bool) async throws -> EditOutcome {
        try await operation {
            let uri = playlist.playlistURI
            let name = details.name ?? playlist.rawValue
            if try await contains([uri])[uri] == true {
                var outcome = EditOutcome(
                    operation: .restore, playlist: .playlist(playlist), playlistName: name, snapshotID: nil, writes: [], dryRun: dryRun)
                outcome.ending = .unchanged("“\(TerminalText.preview(name, limit: 60))” is in your library")
                return outcome
            }
            let meta: PlaylistMeta?
            do {
                meta = try await LivePlaylist.meta(playlist, api: api)
            } catch let error as SpotifyError where error.status == 404 {
                meta = nil
            }
            if let meta { return try await followAgain(meta, playlist: playlist, entries: entries, dryRun: dryRun) }
            return try await recreate(playlist, details: details, entries: entries, dryRun: dryRun)
        }
    }

    /// Spotify still has it: one follow, journalled as such (its undo unfollows it again), then —
    /// in the same run — its entries made equal to `entries` when Spotify's list is not that list
    /// and the user may change it: a restore of its own in the journal (its undo puts back the
    /// entries as Spotify held them; a second undo unfollows).
    private func followAgain(_ meta: PlaylistMeta, playlist: SpotifyID, entries: [String], dryRun: Bool) async throws -> EditOutcome {
        let change = LibraryEdit(uris: [playlist.playlistURI], save: true)
        var outcome = Self.libraryOutcome(change, operation: .restore, journalID: nil, dryRun: dryRun)
        outcome.playlist = .playlist(playlist)
        outcome.playlistName = meta.name
        outcome.snapshotID = meta.snapshotID
        outcome.revival = .followed
        outcome.counts = EditOutcome.Counts()
        let name = TerminalText.preview(meta.name, limit: 60)
        // Its entries as Spotify holds them, and — when the user may change them — the writes
        // that make them the version's (another user's playlist is only followed).
        let mine = (try? await checkPermission(meta)) != nil
        let live = try? await LivePlaylist.read(playlist, api: api, known: meta, state: fetchState)
        var entryEdit: (edit: EntryEdit, plan: EntryEdit.Plan, live: LivePlaylist)?
        if let live, live.uris != entries {
            let differ = "“\(name)” holds \(live.uris.count) entries on Spotify, not the \(entries.count) of the version asked for"
            if mine {
                do {
                    let edit = try Self.becoming(entries, on: live)
                    entryEdit = (edit, try Self.plan(edit, on: live.uris), live)
                } catch is NothingToChange {
                    entryEdit = nil
                } catch let error as any UserFacingError {
                    outcome.warnings.append("\(differ), and they stay so: \(error.message)")
                }
            } else {
                outcome.warnings.append("\(differ); only its owner can change them")
            }
        }
        if let entryEdit {
            outcome.writes = entryEdit.plan.writes
            Self.count(entryEdit.edit, plan: entryEdit.plan, into: &outcome)
        }
        // The follow, the sync of the playlist it brings back, then the entries' writes (the list
        // after them derived from the plan when Spotify's answers allow).
        let toCome = 1 + Self.syncOfOne(entries: live?.uris.count ?? entries.count) + outcome.writes.count
        outcome.requestsToCome = toCome
        guard !dryRun else { return outcome }
        tellRequests(meta.name, toCome: toCome)
        let id = try journal.begin(
            op: .restore, playlist: .playlist(playlist),
            summary: "followed “\(name)” again", change: .library(change))
        try await sendLibrary(change, journalID: id, nothingApplied: .failed)
        try journal.finish(id, .done)
        try await refresh(after: change)
        outcome.journalID = id
        guard let (edit, plan, base) = entryEdit else { return outcome }
        let entriesID = try journal.begin(
            op: .restore, playlist: .playlist(playlist), summary: Self.describe(edit, in: meta.name),
            change: .entries(edit, before: base.uris))
        let snapshot = try await runWrites(
            plan, playlist: playlist, journalID: entriesID, from: 0, name: meta.name, legacy: meta.legacyShape)
        try journal.finish(entriesID, .done)
        let stored = try await storeAfter(plan, on: base, snapshot: snapshot, playlist: playlist)
        outcome.warnings += stored.warnings
        outcome.snapshotID = stored.snapshotID
        outcome.journalID = entriesID
        return outcome
    }

    /// Spotify has it no more: a new playlist with its details, then its entries in order. The
    /// creation is sent once (a lost answer is reported, never resent); the new id is journalled
    /// before the first entry is sent, so an interrupted one is finished without creating twice.
    private func recreate(_ playlist: SpotifyID, details: PlaylistDetails, entries: [String], dryRun: Bool) async throws -> EditOutcome {
        try LibraryChange.checkAddable(entries)
        let name = details.name ?? ""
        let plan = entries.isEmpty ? nil : try Self.plan(.insert(uris: entries, position: 0), on: [])
        var outcome = EditOutcome(operation: .restore, playlist: nil, playlistName: name, snapshotID: nil, writes: plan?.writes ?? [], dryRun: dryRun)
        outcome.libraryWrites = 1
        outcome.counts.added = entries.count
        outcome.revival = .created(previous: playlist.rawValue)
        // The creation, the new playlist's details, its entries' writes, then its sync.
        let toCome = 2 + outcome.writes.count + Self.syncOfOne(entries: entries.count)
        outcome.requestsToCome = toCome
        guard !dryRun else { return outcome }
        tellRequests(name, toCome: toCome)
        let journalID = try journal.begin(
            op: .restore, playlist: nil,
            summary: "created “\(TerminalText.preview(name, limit: 60))” again (deleted playlist \(playlist.rawValue)) with \(entries.count) entries",
            change: .library(LibraryEdit(uris: [], save: true, fill: entries)))
        let created = try await postPlaylist(details, journalID: journalID)
        try journal.update(
            journalID, change: .library(LibraryEdit(uris: [created.playlistURI], save: true, fill: entries)), playlist: .playlist(created))
        if let plan {
            let meta = try await LivePlaylist.meta(created, api: api)
            let final = try await run(plan, playlist: created, journalID: journalID, from: 0, name: name, legacy: meta.legacyShape, resumable: true)
            outcome.snapshotID = final.meta.snapshotID
        }
        try journal.finish(journalID, .done)
        _ = try await SyncEngine(api: api, cache: cache, options: SyncOptions(playlists: [created])).run()
        outcome.playlist = .playlist(created)
        outcome.journalID = journalID
        return outcome
    }

    /// `POST /me/playlists`, once: the new playlist's id, or the journal entry ended `failed`.
    private func postPlaylist(_ details: PlaylistDetails, journalID: Int64) async throws -> SpotifyID {
        let name = details.name ?? ""
        let response: HTTPResponse
        do {
            response = try await api.send(.post, "me/playlists", json: Self.body(details), reconciles: true)
        } catch let error as WriteOutcomeUnknown {
            try journal.finish(journalID, .failed, reason: "no answer to the creation: \(error.reason)")
            throw CreationUnknown(name: name, reason: error.reason)
        } catch {
            try journal.finish(journalID, .failed, reason: (error as? any UserFacingError)?.message)
            throw error
        }
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any], let id = object["id"] as? String,
            let created = SpotifyID(id)
        else {
            try journal.finish(journalID, .failed, reason: "Spotify's answer to the creation names no playlist")
            throw CreationUnknown(name: name, reason: "Spotify's answer names no playlist")
        }
        return created
    }

    /// An interrupted re-creation whose playlist Spotify made: the entries still missing added
    /// (the plan's step found by reading it), then the cache brought up to date.
    func finishRevival(_ entry: EditJournal.Entry, _ edit: LibraryEdit) async throws {
        guard let created = edit.playlistIDs.first else {
            try journal.finish(entry.id, .failed, reason: "the journal names no created playlist")
            return
        }
        if let fill = edit.fill, !fill.isEmpty {
            if let until = entry.inFlightUntil { try await waitOut(until, deadline: entry.sentDeadline) }
            let plan = try Self.plan(.insert(uris: fill, position: 0), on: [])
            let meta = try await LivePlaylist.meta(created, api: api)
            _ = try await run(plan, playlist: created, journalID: entry.id, from: nil, name: meta.name, legacy: meta.legacyShape, resumable: true)
        }
        try journal.finish(entry.id, .done)
        _ = try await SyncEngine(api: api, cache: cache, options: SyncOptions(playlists: [created])).run()
    }
}
