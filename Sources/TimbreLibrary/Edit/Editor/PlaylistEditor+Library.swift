import Foundation
import TimbreCore
import TimbreNet

/// The library: Liked Songs and followed playlists, through `/me/library`.
extension PlaylistEditor {
    /// Saves (likes, follows) or removes (unlikes, unfollows) items; only those whose state
    /// changes are sent and journalled. `kind` names it in the journal and the JSON.
    func library(_ uris: [String], save: Bool, as kind: LibraryChange.Operation, dryRun: Bool) async throws -> EditOutcome {
        try await operation {
            var seen = Set<String>()
            let unique = uris.filter { seen.insert($0).inserted }
            // Likes of tracks the cached Liked Songs lacks need no `contains`: what Spotify's top
            // of the list shows after the like tells which ones it had already (`applyToLiked`).
            var known = save && !dryRun ? try notLikedInCache(unique) : nil
            if known == nil { known = try await contains(unique) }
            let saved = known ?? [:]
            let change = LibraryEdit(uris: unique.filter { saved[$0] != save }, save: save)
            var outcome = Self.libraryOutcome(change, operation: kind, journalID: nil, dryRun: dryRun)
            if !dryRun, !change.uris.isEmpty {
                let id = try journal.begin(
                    op: kind, playlist: change.target,
                    summary: "\(kind.rawValue) \(change.uris.count)", change: .library(change))
                try await sendLibrary(change, journalID: id, nothingApplied: .failed)
                try journal.finish(id, .done)
                if let applied = try await refresh(after: change, journalID: id) {
                    outcome = Self.libraryOutcome(applied, operation: kind, journalID: id, dryRun: false)
                }
                outcome.journalID = id
            }
            return outcome
        }
    }

    /// Each of `uris` as not liked, when all are tracks (at most 50) that the cached Liked Songs
    /// does not hold; nil otherwise (then Spotify is asked).
    func notLikedInCache(_ uris: [String]) throws -> [String: Bool]? {
        guard !uris.isEmpty, uris.count <= 50, uris.allSatisfy({ $0.hasPrefix("spotify:track:") }),
            let liked = try cache.entries(of: .liked, \.uri)
        else { return nil }
        let present = Set(liked)
        guard uris.allSatisfy({ !present.contains($0) }) else { return nil }
        return Dictionary(uris.map { ($0, false) }) { first, _ in first }
    }

    /// `GET /me/library/contains`, 40 at a time.
    func contains(_ uris: [String]) async throws -> [String: Bool] {
        var result: [String: Bool] = [:]
        for chunk in LibraryEdit(uris: uris, save: true).chunks {
            let response = try await api.get("me/library/contains?uris=" + Self.encodedList(chunk))
            guard let answers = try? JSONSerialization.jsonObject(with: response.body) as? [Bool], answers.count == chunk.count else {
                throw SpotifyError.unexpected(status: response.status, bodyPreview: "not a list of \(chunk.count) booleans", path: "/me/library/contains")
            }
            for (uri, answer) in zip(chunk, answers) { result[uri] = answer }
        }
        return result
    }

    /// Sends every chunk of `change` from `start` (the chunks before it were applied by a process
    /// that stopped: `EditJournal.Entry.step`), recording each one Spotify confirmed as the entry's
    /// step so that finishing an interrupted edit sends only the rest. When Spotify refuses
    /// one for good, the journal entry ends: as `nothingApplied` when it was the first; otherwise
    /// the chunks sent before it become the edit (done, so `timbre undo` reverts what was
    /// applied) — and nothing is ever resent. `backward`: an undo in flight (its applied part
    /// cannot become an edit of its own).
    func sendLibrary(
        _ change: LibraryEdit, journalID: Int64, nothingApplied: EditJournal.Entry.State, backward: Bool = false, from start: Int = 0
    ) async throws {
        let chunks = change.chunks
        var sent: [String] = chunks.prefix(max(0, start)).flatMap { $0 }
        for (applied, chunk) in chunks.enumerated() where applied >= start {
            do {
                _ = try await api.send(change.save ? .put : .delete, "me/library?uris=" + Self.encodedList(chunk), json: nil, reconciles: false)
                sent += chunk
                if chunks.count > 1 { try journal.confirm(journalID, step: applied + 1) }
            } catch let error as SpotifyError where error.isDefinitiveRefusal {
                let name = change.playlistIDs.isEmpty ? CachedPlaylist.likedName : "your library"
                let total = chunks.count
                var state = nothingApplied
                if applied > 0, !backward {
                    try journal.update(
                        journalID, change: .library(LibraryEdit(uris: sent, save: change.save)), playlist: change.target)
                    state = .done
                } else if applied > 0 {
                    state = .failed
                }
                let refusal = EditRefused(
                    journalID: journalID, playlist: name, status: error.status, spotify: error.spotifyMessage ?? error.message,
                    applied: applied, total: total, leftAs: state)
                try journal.finish(journalID, state, reason: state == .failed ? refusal.reason : nil)
                throw refusal
            }
        }
    }

    /// The cache after a library change: Liked Songs changed from the change itself and, for
    /// likes, the top of the list as Spotify now holds it (the entries just liked, with the
    /// `added_at` Spotify gave them) — never read again in full, unless the cache does not hold
    /// the list the change started from; unfollowed playlists dropped, followed ones synced.
    /// Returns the change as it turned out when Spotify had some of the likes already (nil: as sent).
    @discardableResult
    func refresh(after change: LibraryEdit, journalID: Int64? = nil) async throws -> LibraryEdit? {
        let playlists = change.playlistIDs
        var applied: LibraryEdit?
        var likedDerived = true
        if change.touchesLikedSongs { (likedDerived, applied) = try await applyToLiked(change, journalID: journalID) }
        if !likedDerived || (change.save && !playlists.isEmpty) {
            _ = try await SyncEngine(
                api: api, cache: cache,
                options: SyncOptions(playlists: change.save ? playlists : [], liked: !likedDerived)
            ).run()
        }
        if !change.save, !playlists.isEmpty { try await cache.remove(playlists.map(\.rawValue)) }
        return applied
    }

    /// Changes the cached Liked Songs as Spotify did: likes go on top (read back, one request per
    /// 50), unlikes leave. `derived` false when the cache cannot follow (it does not hold the
    /// list the change started from): the caller reads the list again. Episodes live in "Your
    /// Episodes", not in Liked Songs; a cache without Liked Songs is left for the next sync.
    /// When Spotify's top shows that some likes were liked already (a cache behind Spotify), the
    /// journal entry `journalID` keeps only those it made, returned as `applied`.
    func applyToLiked(_ change: LibraryEdit, journalID: Int64?) async throws -> (derived: Bool, applied: LibraryEdit?) {
        let tracks = Set(change.uris.filter { $0.hasPrefix("spotify:track:") })
        guard !tracks.isEmpty, let (cached, entries) = try cache.playlistWithItems(.liked) else { return (true, nil) }
        let present = Set(entries.map(\.uri))
        var result: [CachedEntry] = []
        if change.save {
            // New likes are on top, each chunk above the one before: the top `tracks.count`
            // entries, read as the sync reads them, are the rows the cache takes.
            var top: [CachedEntry] = []
            while top.count < tracks.count {
                let limit = min(50, tracks.count - top.count)
                let body = try await api.get(PlaylistReader.likedPath(offset: top.count, limit: limit)).body
                guard let page = try? EntryPage.decode(body), page.entries == limit, page.rows.count == limit else { return (false, nil) }
                let offset = top.count
                top += EntryList(page.rows).items.map {
                    var entry = $0
                    entry.position += offset
                    return entry
                }
            }
            var run: [CachedEntry] = []
            for entry in top {
                guard tracks.contains(entry.uri), !present.contains(entry.uri), entry.position == run.count else { break }
                run.append(entry)
            }
            let made = Set(run.map(\.uri))
            if made != tracks {
                let kept = change.uris.filter { !tracks.contains($0) || made.contains($0) }
                let applied = LibraryEdit(uris: kept, save: true)
                if let journalID {
                    if kept.isEmpty {
                        try journal.finish(journalID, .failed, reason: "Spotify had them liked already: nothing changed")
                    } else {
                        try journal.update(journalID, change: .library(applied), playlist: applied.target)
                    }
                }
                return (false, applied)
            }
            result = run
            for var entry in entries {
                entry.position += run.count
                result.append(entry)
            }
        } else {
            guard tracks.isSubset(of: present) else { return (false, nil) }
            var removed = 0
            for var entry in entries {
                if tracks.contains(entry.uri) {
                    removed += 1
                    continue
                }
                entry.position -= removed
                result.append(entry)
            }
        }
        let total = cached.trackCount + result.count - entries.count
        let meta = PlaylistMeta(
            id: CachedPlaylist.likedID, name: CachedPlaylist.likedName, ownerID: cached.ownerID, ownerName: cached.ownerName,
            snapshotID: nil, total: total, collaborative: false, isPublic: false)
        try await cache.replaceEntries(
            of: meta, trackCount: total, items: result, fingerprint: EntryPage.likedFingerprint(total: total, entries: result),
            sortOrder: -1)
        return (true, nil)
    }

    static func encodedList(_ uris: [String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        return uris.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: ",")
    }

    static func libraryOutcome(_ change: LibraryEdit, operation: LibraryChange.Operation, journalID: Int64?, dryRun: Bool) -> EditOutcome {
        var outcome = EditOutcome(
            operation: operation, playlist: change.target,
            playlistName: change.playlistIDs.isEmpty ? CachedPlaylist.likedName : "your library", snapshotID: nil,
            writes: [], journalID: journalID, dryRun: dryRun)
        if change.save { outcome.counts.added = change.uris.count } else { outcome.counts.removed = change.uris.count }
        outcome.libraryWrites = change.chunks.count
        outcome.library = EditOutcome.LibraryItems(
            playlists: change.playlistIDs.count, items: change.uris.count - change.playlistIDs.count,
            save: change.save)
        return outcome
    }
}
