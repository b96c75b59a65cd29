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
                try await sendLibrary(change, journalID: id, nothingApplied: .failed)
                try journal.finish(id, .done)
                try await refresh(after: change)
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

    /// Sends every chunk of `change`. When Spotify refuses one for good, the journal entry ends:
    /// as `nothingApplied` when it was the first; otherwise the chunks sent before it become the
    /// edit (done, so `timbre undo` reverts what was applied) — and nothing is ever resent.
    /// `backward`: an undo in flight (its applied part cannot become an edit of its own).
    func sendLibrary(_ change: LibraryEdit, journalID: Int64, nothingApplied: EditJournal.Entry.State, backward: Bool = false) async throws {
        var sent: [String] = []
        for (applied, chunk) in change.chunks.enumerated() {
            do {
                _ = try await api.send(change.save ? .put : .delete, "me/library?uris=" + Self.encodedList(chunk), json: nil, reconciles: false)
                sent += chunk
            } catch let error as SpotifyError where error.isDefinitiveRefusal {
                let name = change.playlistIDs.isEmpty ? CachedPlaylist.likedName : "your library"
                let total = change.chunks.count
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

    /// The cache after a library change: Liked Songs read again; unfollowed playlists dropped,
    /// followed ones synced.
    func refresh(after change: LibraryEdit) async throws {
        let playlists = change.playlistIDs
        if change.touchesLikedSongs || (change.save && !playlists.isEmpty) {
            _ = try await SyncEngine(
                api: api, cache: cache,
                options: SyncOptions(playlists: change.save ? playlists : [], liked: change.touchesLikedSongs)
            ).run()
        }
        if !change.save, !playlists.isEmpty { try await cache.remove(playlists.map(\.rawValue)) }
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
