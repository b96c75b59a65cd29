import Foundation
import TimbreCore
import TimbreNet

/// Carries out a `RestorePlan` in the signed-in account, journaled in `RestoreJournal`: each
/// create's intent before it is sent and the new id after; each add confirmed by Spotify moves the
/// count on. A create whose answer never came is looked for in `/me/playlists` (a playlist of that
/// name the account owns that was not there before and no other restored playlist is) before it is
/// sent again; an add whose answer never came is settled by the playlist's live count. What Spotify
/// refuses for good is named in `Outcome.notDone` and never re-sent; anything else (signing in,
/// trust, the network) ends the run, and running it again goes on from the journal.
public struct BackupRestore: Sendable {
    let api: any SpotifyAPI
    let cache: LibraryCache
    let journal: RestoreJournal
    let folders: Folders

    /// `progress(done, total)`: playlists, follows and likes finished, of all.
    let progress: @Sendable (Int, Int) -> Void

    public struct NotDone: Sendable, Equatable {
        /// `playlist`, `follow` or `like`.
        public var what: String
        public var id: String
        public var name: String
        public var reason: String
    }

    public struct Outcome: Sendable, Equatable {
        public var created = 0
        public var resumed = 0
        public var entriesAdded = 0
        public var followed = 0
        public var liked = 0
        public var folders = 0
        public var notDone: [NotDone] = []
        /// Backed-up playlist id → its id in this account.
        public var mapping: [String: String] = [:]
    }

    public init(editor: PlaylistEditor, userData: UserData, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) {
        api = editor.api
        cache = editor.cache
        journal = userData.restoreJournal
        folders = userData.folders
        self.progress = progress
    }

    /// The signed-in account's id (the journal's key).
    public static func account(editor: PlaylistEditor) async throws -> UserProfile { try await editor.api.me() }

    public func run(_ plan: RestorePlan) async throws -> Outcome {
        var outcome = Outcome(mapping: plan.known)
        let total = plan.playlists.count + plan.follows.count + plan.likes.count
        var done = 0
        var taken = Set(try journal.rows(account: plan.account).values.compactMap(\.target))
        for step in plan.playlists {
            do {
                let target = try await restore(step, account: plan.account, taken: taken, outcome: &outcome)
                taken.insert(target)
                outcome.mapping[step.playlist.id] = target
            } catch let error as SpotifyError where error.isDefinitiveRefusal {
                outcome.notDone.append(NotDone(what: "playlist", id: step.playlist.id, name: step.playlist.name, reason: Self.reason(error)))
            }
            done += 1
            progress(done, total)
        }
        let followed = try await save(plan.follows.map { "spotify:playlist:\($0)" }, what: "follow", outcome: &outcome)
        outcome.followed += followed.count
        for id in followed { outcome.mapping[id] = outcome.mapping[id] ?? id }
        done += plan.follows.count
        progress(done, total)
        outcome.liked = try await save(plan.likes, what: "like", outcome: &outcome).count
        progress(total, total)
        outcome.folders = try restoreFolders(plan.folders, mapping: outcome.mapping)
        return outcome
    }

    /// One owned playlist: created (or found, or finished) and filled; returns its id here.
    private func restore(_ step: RestorePlan.PlaylistStep, account: String, taken: Set<String>, outcome: inout Outcome) async throws -> String {
        let playlist = step.playlist
        if step.followBack, try await followBack(playlist, account: account) {
            outcome.followed += 1
            return playlist.id
        }
        var target = step.row?.target
        if step.row != nil { outcome.resumed += 1 }
        if target == nil, let row = step.row {
            // A create was about to be sent when the last restore stopped: did it arrive?
            target = try await findCreated(name: row.name, account: account, excluding: Set(row.existing).union(taken))
            if let target { try journal.created(account: account, source: playlist.id, target: target) }
        }
        let uris = playlist.addableURIs
        var added = 0
        if let target {
            added = min(uris.count, try await LivePlaylist.meta(try Self.id(target), api: api).total)
        } else {
            let created = try await create(playlist, account: account, taken: taken)
            if step.row == nil { outcome.created += 1 }
            target = created
        }
        guard let target else { throw WriteOutcomeUnknown(path: "/me/playlists", reason: "no playlist was made") }
        outcome.entriesAdded += try await fill(target, source: playlist.id, account: account, uris: uris, from: added)
        try journal.filled(account: account, source: playlist.id)
        return target
    }

    /// A deleted playlist of this account followed again (`PUT` is idempotent: no intent needed);
    /// false when Spotify no longer has it (then it is made anew).
    private func followBack(_ playlist: Backup.OwnedPlaylist, account: String) async throws -> Bool {
        do {
            try await put(["spotify:playlist:\(playlist.id)"])
        } catch let error as SpotifyError where error.isDefinitiveRefusal {
            return false
        }
        try journal.creating(account: account, source: playlist.id, name: playlist.name, existing: [])
        try journal.created(account: account, source: playlist.id, target: playlist.id)
        try journal.filled(account: account, source: playlist.id)
        return true
    }

    /// Sends the create once its intent is journaled. A lost answer: the library is searched, and
    /// only when no playlist of that name appeared is the create sent again (once).
    private func create(_ playlist: Backup.OwnedPlaylist, account: String, taken: Set<String>) async throws -> String {
        let existing = try ownedPlaylists(named: playlist.name, account: account)
        try journal.creating(account: account, source: playlist.id, name: playlist.name, existing: existing)
        let details = PlaylistDetails(
            name: playlist.name, description: playlist.description, isPublic: playlist.isPublic, collaborative: playlist.collaborative)
        for attempt in 0..<2 {
            do {
                let response = try await api.send(.post, "me/playlists", json: PlaylistEditor.body(details), reconciles: true)
                guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any], let id = object["id"] as? String,
                    SpotifyID(id) != nil
                else { throw CreationUnknown(name: playlist.name, reason: "Spotify's answer names no playlist") }
                try journal.created(account: account, source: playlist.id, target: id)
                return id
            } catch let error as WriteOutcomeUnknown {
                if let found = try await findCreated(name: playlist.name, account: account, excluding: Set(existing).union(taken)) {
                    try journal.created(account: account, source: playlist.id, target: found)
                    return found
                }
                if attempt == 1 { throw error }
            } catch let error as SpotifyError where error.isDefinitiveRefusal {
                try journal.forget(account: account, source: playlist.id)
                throw error
            }
        }
        throw CreationUnknown(name: playlist.name, reason: "no answer")
    }

    /// Adds `uris[from...]` in order, ≤ 100 a request; each confirmed add is journaled. A lost
    /// answer: the live count says how far the playlist got. Returns the entries added.
    private func fill(_ target: String, source: String, account: String, uris: [String], from start: Int) async throws -> Int {
        var done = start
        var unknown = 0
        try journal.added(account: account, source: source, count: done)
        while done < uris.count {
            let chunk = Array(uris[done..<min(done + RestorePlan.addChunk, uris.count)])
            let body = JSONValue.object([("uris", .array(chunk.map(JSONValue.string)))]).serialized()
            do {
                _ = try await api.send(.post, "playlists/\(target)/items", json: Data(body.utf8), reconciles: true)
                done += chunk.count
                unknown = 0
            } catch let error as WriteOutcomeUnknown {
                unknown += 1
                guard unknown <= 3 else { throw error }
                done = min(uris.count, try await LivePlaylist.meta(try Self.id(target), api: api).total)
            }
            try journal.added(account: account, source: source, count: done)
        }
        return done - start
    }

    /// Follows or likes `uris` (`PUT /me/library`, ≤ 40 a request), the last chunk first, so the
    /// first item ends first (each save goes on top). A chunk Spotify refuses is tried item by item,
    /// and what it refuses alone is named. Returns what was saved (playlist ids for follows).
    private func save(_ uris: [String], what: String, outcome: inout Outcome) async throws -> [String] {
        var saved: [String] = []
        let chunks = LibraryEdit(uris: uris, save: true).chunks
        for chunk in chunks.reversed() {
            do {
                try await put(chunk)
                saved = chunk + saved
            } catch let error as SpotifyError where error.isDefinitiveRefusal {
                var kept: [String] = []
                for uri in chunk.reversed() {
                    do {
                        try await put([uri])
                        kept.insert(uri, at: 0)
                    } catch let error as SpotifyError where error.isDefinitiveRefusal {
                        let id = uri.split(separator: ":").last.map(String.init) ?? uri
                        outcome.notDone.append(NotDone(what: what, id: id, name: uri, reason: Self.reason(error)))
                    }
                }
                saved = kept + saved
            }
        }
        return saved.map { $0.hasPrefix("spotify:playlist:") ? String($0.dropFirst("spotify:playlist:".count)) : $0 }
    }

    private func put(_ uris: [String]) async throws {
        _ = try await api.send(.put, "me/library?uris=" + PlaylistEditor.encodedList(uris), json: nil, reconciles: false)
    }

    /// The local folders, with each backed-up playlist id mapped to its id here (playlists that
    /// are not in this account are left out). Returns the folders written.
    private func restoreFolders(_ backedUp: [Backup.Folder], mapping: [String: String]) throws -> Int {
        var written = 0
        for folder in backedUp {
            let ids = folder.playlists.compactMap { mapping[$0] }
            try folders.perform(.add(playlistIDs: ids, to: folder.name.trimmingCharacters(in: .whitespacesAndNewlines), createMissing: true))
            written += 1
        }
        return written
    }

    /// The account's playlist of `name` that is not one of `excluding`: the one a create whose
    /// answer was lost made.
    private func findCreated(name: String, account: String, excluding: Set<String>) async throws -> String? {
        try await PlaylistReader(api: api, state: Locked(ReaderState())).userPlaylists().first {
            $0.owner?.id == account && $0.name == name && !excluding.contains($0.id ?? "")
        }?.id
    }

    /// The account's playlists of `name` as the cache holds them (synced as the restore began;
    /// the ones this run made are in the journal).
    private func ownedPlaylists(named name: String, account: String) throws -> [String] {
        try cache.playlists().filter { $0.ownerID == account && $0.name == name }.map(\.id)
    }

    private static func id(_ text: String) throws -> SpotifyID {
        guard let id = SpotifyID(text) else { throw SpotifyError.unexpected(status: 200, bodyPreview: "not a playlist id", path: "/me/playlists") }
        return id
    }

    static func reason(_ error: SpotifyError) -> String {
        "Spotify answered \(error.status)\(error.spotifyMessage.map { ": " + $0 } ?? "")"
    }
}

extension PlaylistEditor {
    /// The editor's Web API and cache, for the syncs around a restore and its plan.
    public var webAPI: any SpotifyAPI { api }
    public var libraryCache: LibraryCache { cache }
}
