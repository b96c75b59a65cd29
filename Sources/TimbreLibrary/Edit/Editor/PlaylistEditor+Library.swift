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
            let saved = try await contains(unique)
            let change = LibraryEdit(uris: unique.filter { saved[$0] != save }, save: save)
            var outcome = Self.libraryOutcome(change, operation: kind, journalID: nil, dryRun: dryRun)
            if !dryRun, !change.uris.isEmpty {
                let id = try journal.begin(
                    op: kind.rawValue, playlist: change.target,
                    summary: "\(kind.rawValue) \(change.uris.count)", change: .library(change))
                let dates = try await sendLibrary(change, journalID: id, nothingApplied: .failed)
                try journal.finish(id, .done)
                try await refresh(after: change, dates: dates)
                outcome.journalID = id
            }
            return outcome
        }
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
    /// step so that finishing an interrupted edit sends only the rest. Returns the `added_at`
    /// Spotify gave each chunk sent (its answer's `Date`, by chunk index). When Spotify refuses
    /// one for good, the journal entry ends: as `nothingApplied` when it was the first; otherwise
    /// the chunks sent before it become the edit (done, so `timbre undo` reverts what was
    /// applied) — and nothing is ever resent. `backward`: an undo in flight (its applied part
    /// cannot become an edit of its own).
    @discardableResult
    func sendLibrary(
        _ change: LibraryEdit, journalID: Int64, nothingApplied: EditJournal.Entry.State, backward: Bool = false, from start: Int = 0
    ) async throws -> [Int: String] {
        let chunks = change.chunks
        var sent: [String] = chunks.prefix(max(0, start)).flatMap { $0 }
        var dates: [Int: String] = [:]
        for (applied, chunk) in chunks.enumerated() where applied >= start {
            do {
                let response = try await api.send(
                    change.save ? .put : .delete, "me/library?uris=" + Self.encodedList(chunk), json: nil, reconciles: false)
                sent += chunk
                dates[applied] = Self.isoDate(httpDate: response.header("date")) ?? ClockText.iso(Date())
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
        return dates
    }

    /// The cache after a library change: Liked Songs changed from the change itself and Spotify's
    /// answers (`dates`: each chunk's `added_at`), never read again — unless the cache does not
    /// hold what the change started from; unfollowed playlists dropped, followed ones synced.
    func refresh(after change: LibraryEdit, dates: [Int: String]) async throws {
        let playlists = change.playlistIDs
        let likedDerived = change.touchesLikedSongs ? try await applyToLiked(change, dates: dates) : true
        if !likedDerived || (change.save && !playlists.isEmpty) {
            _ = try await SyncEngine(
                api: api, cache: cache,
                options: SyncOptions(playlists: change.save ? playlists : [], liked: !likedDerived)
            ).run()
        }
        if !change.save, !playlists.isEmpty { try await cache.remove(playlists.map(\.rawValue)) }
    }

    /// Changes the cached Liked Songs as Spotify did: likes go on top in the order sent, each
    /// chunk above the one before, added at its answer's date; unlikes leave. False when the cache
    /// cannot follow (it does not hold the list as the change found it, a chunk's date is unknown,
    /// a track liked cannot be named): the caller reads the list again. Episodes live in "Your
    /// Episodes", not in Liked Songs; a cache without Liked Songs is left for the next sync.
    func applyToLiked(_ change: LibraryEdit, dates: [Int: String]) async throws -> Bool {
        let tracks = Set(change.uris.filter { $0.hasPrefix("spotify:track:") })
        guard !tracks.isEmpty, let (cached, entries) = try cache.playlistWithItems(.liked) else { return true }
        let present = Set(entries.map(\.uri))
        var result: [CachedEntry] = []
        if change.save {
            guard tracks.isDisjoint(with: present) else { return false }
            var known: [String: CachedEntry] = [:]
            for (uri, entry) in try cache.anyEntries(uris: tracks) { known[uri] = entry }
            let missing = tracks.subtracting(known.keys)
            if !missing.isEmpty {
                guard let found = await catalogueEntries(missing) else { return false }
                known.merge(found) { old, _ in old }
            }
            for (index, chunk) in change.chunks.enumerated().reversed() {
                guard let date = dates[index] else { return false }
                for uri in chunk where tracks.contains(uri) {
                    guard var entry = known[uri] else { return false }
                    entry.position = result.count
                    entry.addedAt = date
                    entry.addedBy = nil
                    result.append(entry)
                }
            }
            let added = result.count
            for var entry in entries {
                entry.position += added
                result.append(entry)
            }
        } else {
            guard tracks.isSubset(of: present) else { return false }
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
        return true
    }

    /// `Sun, 22 Nov 2026 10:00:00 GMT` (an answer's `Date`) as `2026-11-22T10:00:00Z` (how Spotify
    /// writes `added_at`); nil when it is not such a date.
    static func isoDate(httpDate text: String?) -> String? {
        guard let text else { return nil }
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && Int($0) != nil }) else { return nil }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month + 1))-\(two(day))T\(time[0]):\(time[1]):\(time[2])Z"
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
