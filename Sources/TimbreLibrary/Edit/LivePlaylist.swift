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
        try await meta(id, Fetcher(api: api, state: Locked(RunState())))
    }

    private static func meta(_ id: SpotifyID, _ fetcher: Fetcher) async throws -> PlaylistMeta {
        guard let meta = SyncEngine.meta(try await fetcher.playlist(id), warnings: Locked([])), meta.id == id.rawValue else {
            throw SpotifyError.unexpected(status: 200, bodyPreview: "not the playlist asked for", path: "/playlists/\(id.rawValue)")
        }
        return meta
    }

    /// Reads the playlist's entries between two reads of its details: a list read while the
    /// playlist changed (the snapshot moved, the pages disagree) is read again, up to three times.
    /// `known`: details just read, which serve as the first of the two.
    static func read(_ id: SpotifyID, api: any SpotifyAPI, known: PlaylistMeta? = nil) async throws -> LivePlaylist {
        let fetcher = Fetcher(api: api, state: Locked(RunState()))
        var meta: PlaylistMeta
        if let known { meta = known } else { meta = try await Self.meta(id, fetcher) }
        for _ in 0..<3 {
            let fetched = try await fetcher.playlistEntries(id.rawValue, legacy: meta.legacyShape)
            let after = try await Self.meta(id, fetcher)
            guard fetched.consistent, after.snapshotID == meta.snapshotID else {
                meta = after
                continue
            }
            let (items, _) = SyncEngine.rows(of: fetched.pages)
            var uris = (0..<fetched.count).map { "\(unusablePrefix)\($0)" }
            for item in items.items where uris.indices.contains(item.position) && !item.uri.isEmpty { uris[item.position] = item.uri }
            var stored = meta
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
