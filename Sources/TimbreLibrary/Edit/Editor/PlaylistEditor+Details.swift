import Foundation
import TimbreCore
import TimbreNet

/// A playlist's details, and creating playlists.
extension PlaylistEditor {
    /// Changes what `new` names; only what differs is sent and journalled.
    func details(of playlist: SpotifyID, to new: PlaylistDetails, dryRun: Bool) async throws -> EditOutcome {
        try await operation {
            try refuseKnownForeign(playlist, details: true)
            // The playlist's details and what the change is checked against, in one read.
            let (meta, current) = try await metaAndDetails(playlist)
            try await checkOwner(meta)
            var change = PlaylistDetails(), old = PlaylistDetails()
            if let name = new.name, name != current.name {
                change.name = name
                old.name = current.name
            }
            if let description = new.description, description != (current.description ?? "") {
                change.description = description
                old.description = current.description ?? ""
            }
            if let isPublic = new.isPublic, isPublic != current.isPublic {
                change.isPublic = isPublic
                old.isPublic = current.isPublic
            }
            if let collaborative = new.collaborative, collaborative != current.collaborative {
                change.collaborative = collaborative
                old.collaborative = current.collaborative
            }
            // Spotify's rule, checked before anything is sent: collaborative only when private.
            if new.collaborative ?? current.collaborative, new.isPublic ?? current.isPublic, change.collaborative == true || change.isPublic == true {
                throw CollaborativeMustBePrivate(playlist: meta.name)
            }
            let edit = DetailsEdit(playlist: playlist, old: old, new: change)
            var outcome = EditOutcome(
                operation: .edit, playlist: .playlist(playlist), playlistName: meta.name, snapshotID: meta.snapshotID,
                writes: [], dryRun: dryRun)
            outcome.libraryWrites = change.isEmpty ? 0 : 1
            if !dryRun, !change.isEmpty {
                let id = try journal.begin(
                    op: .edit, playlist: .playlist(playlist),
                    summary: "changed the details of “\(TerminalText.preview(meta.name, limit: 60))”",
                    change: .details(edit))
                try await sendDetails(edit, journalID: id, nothingApplied: .failed)
                try journal.finish(id, .done)
                // Spotify keeps the snapshot (it follows the entries): the cache takes the new
                // details as they were sent, with nothing read again.
                var after = meta
                after.name = change.name ?? meta.name
                after.isPublic = change.isPublic ?? meta.isPublic
                after.collaborative = change.collaborative ?? meta.collaborative
                try await cache.updateMetadata([(after, nil)])
                outcome = EditOutcome(
                    operation: .edit, playlist: .playlist(playlist), playlistName: after.name, snapshotID: nil, writes: [], journalID: id,
                    dryRun: false)
                outcome.libraryWrites = 1
            }
            return outcome
        }
    }

    /// Creates a playlist and returns its id. The request is sent once: when its answer is lost
    /// nobody can tell which playlist it made, so timbre says so rather than make another.
    func create(_ details: PlaylistDetails, dryRun: Bool) async throws -> EditOutcome {
        try await operation {
            let name = details.name ?? ""
            var outcome = EditOutcome(operation: .create, playlist: nil, playlistName: name, snapshotID: nil, writes: [], dryRun: dryRun)
            outcome.libraryWrites = 1
            outcome.counts.added = 0
            guard !dryRun else { return outcome }
            let id = try journal.begin(
                op: .create, playlist: nil, summary: "created “\(TerminalText.preview(name, limit: 60))”",
                change: .library(LibraryEdit(uris: [], save: true)))
            let response: HTTPResponse
            do {
                response = try await api.send(.post, "me/playlists", json: Self.body(details), reconciles: true)
            } catch let error as WriteOutcomeUnknown {
                try journal.finish(id, .failed)
                throw CreationUnknown(name: name, reason: error.reason)
            } catch {
                try journal.finish(id, .failed)
                throw error
            }
            guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any], let created = object["id"] as? String,
                let playlist = SpotifyID(created)
            else {
                try journal.finish(id, .failed)
                throw CreationUnknown(name: name, reason: "Spotify's answer names no playlist")
            }
            try journal.update(id, change: .library(LibraryEdit(uris: ["spotify:playlist:\(created)"], save: true)), playlist: .playlist(playlist))
            try journal.finish(id, .done)
            // Spotify's answer is the new playlist's object: the cache takes it as it is (empty,
            // at that snapshot) — no read of what was just made.
            if let object = try? API.decode(response.body, as: API.Playlist.self),
                var meta = SyncEngine.meta(object, warnings: Locked([])), meta.id == created
            {
                meta.total = 0
                try await cache.replaceEntries(of: meta, trackCount: 0, items: [CachedEntry]())
            } else {
                _ = try await SyncEngine(api: api, cache: cache, options: SyncOptions(playlists: [playlist])).run()
            }
            outcome.playlist = .playlist(playlist)
            outcome.snapshotID = object["snapshot_id"] as? String
            outcome.journalID = id
            return outcome
        }
    }

    /// Sends a details change; a definitive refusal ends the journal entry (`nothingApplied`: one
    /// write, refused, changed nothing) and is never resent.
    func sendDetails(_ edit: DetailsEdit, journalID: Int64, nothingApplied: EditJournal.Entry.State) async throws {
        guard !edit.new.isEmpty else { return }
        do {
            _ = try await api.send(.put, "playlists/\(edit.playlist)", json: Self.body(edit.new), reconciles: false)
        } catch let error as SpotifyError where error.isDefinitiveRefusal {
            let name = (try? cache.playlist(.playlist(edit.playlist)))?.name ?? edit.playlist.rawValue
            if error.status == 404 {
                let gone = PlaylistGone(playlist: name)
                try journal.finish(journalID, .failed, reason: gone.message)
                throw gone
            }
            let refusal = EditRefused(
                journalID: journalID, playlist: name, status: error.status, spotify: error.spotifyMessage ?? error.message,
                applied: 0, total: 1, leftAs: nothingApplied)
            try journal.finish(journalID, nothingApplied, reason: nothingApplied == .failed ? refusal.reason : nil)
            throw refusal
        }
    }

    /// The outcome of a details change, with the cache brought up to date.
    func detailsOutcome(_ edit: DetailsEdit, operation: LibraryChange.Operation, journalID: Int64) async throws -> EditOutcome {
        var name = edit.new.name ?? edit.playlist.rawValue
        _ = try await SyncEngine(api: api, cache: cache, options: SyncOptions(playlists: [edit.playlist])).run()
        if let cached = try cache.playlist(.playlist(edit.playlist)) { name = cached.name }
        var outcome = EditOutcome(
            operation: operation, playlist: .playlist(edit.playlist), playlistName: name, snapshotID: nil, writes: [], journalID: journalID, dryRun: false)
        outcome.libraryWrites = edit.new.isEmpty ? 0 : 1
        return outcome
    }

    struct CurrentDetails {
        var name: String
        var description: String?
        var isPublic: Bool
        var collaborative: Bool
    }

    /// `GET /playlists/{id}` with the fields the cache keeps and the description.
    func metaAndDetails(_ playlist: SpotifyID) async throws -> (PlaylistMeta, CurrentDetails) {
        let path = "playlists/\(playlist.rawValue)?fields=\(PlaylistReader.playlistFields),description"
        let response = try await api.get(path)
        guard let decoded = try? API.decode(response.body, as: API.Playlist.self),
            let meta = SyncEngine.meta(decoded, warnings: Locked([])), meta.id == playlist.rawValue,
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        else {
            throw SpotifyError.unexpected(status: response.status, bodyPreview: "not the playlist asked for", path: "/playlists/\(playlist.rawValue)")
        }
        return (
            meta,
            CurrentDetails(
                name: meta.name, description: object["description"] as? String, isPublic: meta.isPublic, collaborative: meta.collaborative)
        )
    }

    func currentDetails(_ playlist: SpotifyID) async throws -> CurrentDetails {
        let response = try await api.get("playlists/\(playlist.rawValue)?fields=name,description,public,collaborative")
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
            throw SpotifyError.unexpected(status: response.status, bodyPreview: "not a playlist object", path: "/playlists/\(playlist.rawValue)")
        }
        return CurrentDetails(
            name: object["name"] as? String ?? "", description: object["description"] as? String,
            isPublic: object["public"] as? Bool ?? false, collaborative: object["collaborative"] as? Bool ?? false)
    }

    static func body(_ details: PlaylistDetails) -> Data {
        var members: [(String, JSONValue)] = []
        if let name = details.name { members.append(("name", .string(name))) }
        if let description = details.description { members.append(("description", .string(description))) }
        if let isPublic = details.isPublic { members.append(("public", .bool(isPublic))) }
        if let collaborative = details.collaborative { members.append(("collaborative", .bool(collaborative))) }
        return Data(JSONValue.object(members).serialized().utf8)
    }
}

/// A creation whose answer never came.
public struct CreationUnknown: UserFacingError, Equatable {
    public var name: String
    public var reason: String
    public var message: String { "no answer from Spotify to creating “\(TerminalText.preview(name, limit: 60))” (\(reason)); it may or may not exist" }
    public var hint: String? { "run `timbre sync` and check `timbre playlists` before creating it again" }
    public var exitStatus: ExitStatus { .failure }
}

extension PlaylistEditor {
    /// A playlist's entry URIs as Spotify holds them now; Liked Songs as the cache holds them.
    public func entryURIs(of ref: PlaylistRef) async throws -> [String] {
        switch ref {
        case .liked: return try cache.entries(of: .liked)?.map(\.uri) ?? []
        case .playlist(let id): return try await LivePlaylist.read(id, api: api).uris
        }
    }
}
