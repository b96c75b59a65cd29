import TimbreCore
import TimbreNet

/// A playlist as Spotify holds it right now: its details, its snapshot, and every entry's URI at
/// its position — what an edit is planned on and checked against.
struct LivePlaylist: Sendable {
    var meta: PlaylistMeta
    /// One per position; an entry Spotify cannot name (a null track, a malformed id) holds a
    /// placeholder that never equals a URI, so it is never removed or re-added by mistake.
    var uris: [String]
    /// The entries as the cache stores them.
    var items: EntryList

    static let unusablePrefix = "timbre:unusable:"

    static func isUnusable(_ uri: String) -> Bool { uri.hasPrefix(unusablePrefix) }

    /// The playlist's details alone.
    static func meta(_ id: SpotifyID, api: any SpotifyAPI) async throws -> PlaylistMeta {
        try await meta(id, PlaylistReader(api: api, state: Locked(ReaderState())))
    }

    /// What an edit checks before planning on the cache, in one small request: the playlist's
    /// snapshot, its entry count and its shape (`/items` or the older `/tracks`).
    struct Probe: Sendable, Equatable {
        var snapshotID: String?
        var total: Int?
        var legacyShape: Bool
    }

    static let probeFields = "snapshot_id,items(total),tracks(total)"

    static func probe(_ id: SpotifyID, api: any SpotifyAPI) async throws -> Probe {
        let reader = PlaylistReader(api: api, state: Locked(ReaderState()))
        let object = try await reader.getDecoded("playlists/\(id.rawValue)?fields=\(probeFields)", as: API.Playlist.self)
        return Probe(snapshotID: object.snapshotID, total: object.total, legacyShape: object.legacyShape)
    }

    private static func meta(_ id: SpotifyID, _ reader: PlaylistReader) async throws -> PlaylistMeta {
        guard let meta = SyncEngine.meta(try await reader.playlist(id), warnings: Locked([])), meta.id == id.rawValue else {
            throw SpotifyError.unexpected(status: 200, bodyPreview: "not the playlist asked for", path: "/playlists/\(id.rawValue)")
        }
        return meta
    }

    /// Reads the playlist's entries between two reads of its details: a list read while the
    /// playlist changed (the snapshot moved, the pages disagree) is read again, up to three times.
    /// `known`: details just read, which serve as the first of the two.
    /// `state`: what earlier reads learned about the server (the items page size), to keep.
    static func read(
        _ id: SpotifyID, api: any SpotifyAPI, known: PlaylistMeta? = nil, state: Locked<ReaderState> = Locked(ReaderState())
    ) async throws -> LivePlaylist {
        let reader = PlaylistReader(api: api, state: state)
        var meta: PlaylistMeta
        if let known { meta = known } else { meta = try await Self.meta(id, reader) }
        for _ in 0..<3 {
            let fetched = try await reader.playlistEntries(id.rawValue, legacy: meta.legacyShape)
            let after = try await Self.meta(id, reader)
            guard fetched.consistent, after.snapshotID == meta.snapshotID else {
                meta = after
                continue
            }
            let (items, _) = SyncEngine.rows(of: fetched.pages)
            var uris = (0..<fetched.count).map { "\(unusablePrefix)\($0)" }
            for item in items.items where uris.indices.contains(item.position) && !item.uri.isEmpty { uris[item.position] = item.uri }
            // The details read after the entries (the same snapshot): a name changed since the
            // cache's, when `known` came from it, is the one shown.
            var stored = after
            stored.total = fetched.count
            return LivePlaylist(meta: stored, uris: uris, items: items)
        }
        throw PlaylistKeptChanging(playlist: id.rawValue)
    }
}

/// Three reads in a row found the playlist changing under them.
struct PlaylistKeptChanging: UserFacingError {
    var playlist: String
    var message: String { "playlist \(playlist) kept changing on Spotify while timbre read it; nothing was written" }
    var hint: String? { "try again in a moment" }
    var exitStatus: ExitStatus { .failure }
}

extension LivePlaylist {
    /// The cache standing in for a live read: the playlist as the cache holds it, taken as what
    /// Spotify holds when the probe's snapshot and count agree with the cache's — nil unless it is
    /// a complete list (every stored position inside its count). (An initializer of the extension,
    /// so the memberwise one stays.)
    init?(trustingCache playlist: CachedPlaylist, entries: [CachedEntry], legacyShape: Bool) {
        guard !playlist.unavailable, !playlist.isLiked, playlist.snapshotID != nil,
            entries.allSatisfy({ (0..<playlist.trackCount).contains($0.position) && !$0.uri.isEmpty })
        else { return nil }
        var uris = (0..<playlist.trackCount).map { "\(Self.unusablePrefix)\($0)" }
        for entry in entries { uris[entry.position] = entry.uri }
        let meta = PlaylistMeta(
            id: playlist.id, name: playlist.name, ownerID: playlist.ownerID, ownerName: playlist.ownerName, snapshotID: playlist.snapshotID,
            total: playlist.trackCount, collaborative: playlist.collaborative, isPublic: playlist.isPublic, legacyShape: legacyShape)
        self.init(meta: meta, uris: uris, items: EntryList(EntryRows(entries)))
    }
}
