/// The canonical model (`timbre-sandbox dump`, `GET /__sandbox/library`): what a correct client
/// should have cached, in the shape of `timbre playlists --json` / `timbre tracks --json`.
///
/// Item `kind` is `track`, `local`, `episode`, `null` (`"track": null`, which clients omit) or
/// `malformed` (a track whose id is not 22 base62 characters, which clients skip with a warning).
extension Library {
    public func canonicalItem(_ entry: Entry, position: Int) -> JSONValue {
        var kind: String
        var id: String?
        var uri: String?
        var name: String?
        var artists: [String] = []
        var album: String?
        var duration: Int?
        let foreignItem = entry.kind == .foreign && Int(entry.ref) < foreign.count ? foreign[Int(entry.ref)] : nil
        switch entry.kind {
        case .foreign:
            switch foreignItem {
            case let .track(trackID)?:
                let track = pool.foreignTrack(id: trackID)
                kind = "track"
                (id, uri, name) = (trackID, "spotify:track:\(trackID)", track.name)
                artists = track.artists.map(\.name)
                album = track.album.name
                duration = track.durationMs
            case let .episode(episodeID)?:
                let episode = pool.foreignEpisode(id: episodeID)
                kind = "episode"
                (id, uri, name) = (episodeID, "spotify:episode:\(episodeID)", episode.name)
                artists = [episode.showName]
                album = episode.showName
                duration = episode.durationMs
            case let .local(file)?:
                kind = "local"
                (uri, name) = (file.uri, file.title)
                artists = [file.artist]
                album = file.album
                duration = file.seconds * 1_000
            case nil:
                kind = "null"
            }
        case .track, .malformed:
            let track = pool.track(Int(entry.ref))
            kind = entry.kind == .track ? "track" : "malformed"
            id = entry.kind == .track ? track.id : pool.malformedID(Int(entry.ref))
            uri = "spotify:track:\(id ?? "")"
            name = track.name
            artists = track.artists.map(\.name)
            album = track.album.name
            duration = track.durationMs
        case .local:
            let file = pool.local(Int(entry.ref))
            kind = "local"
            uri = file.uri
            name = file.title
            artists = [file.artist]
            album = file.album
            duration = file.seconds * 1_000
        case .episode:
            let episode = pool.episode(Int(entry.ref))
            kind = "episode"
            id = episode.id
            uri = "spotify:episode:\(episode.id)"
            name = episode.name
            artists = [episode.showName]
            album = episode.showName
            duration = episode.durationMs
        case .null:
            kind = "null"
        }
        return .object([
            ("position", .int(position)),
            ("kind", .string(kind)),
            ("id", .string(id)),
            ("uri", .string(uri)),
            ("name", .string(name)),
            ("artists", .array(artists.map(JSONValue.string))),
            ("album", .string(album)),
            ("duration_ms", duration.map(JSONValue.int) ?? .null),
            ("added_at", entry.addedAt.map { .string(ISODate.format($0)) } ?? .null),
        ])
    }

    public func canonicalPlaylist(_ playlist: Playlist, includeItems: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("id", .string(playlist.id)),
            ("name", .string(playlist.name)),
            ("description", .string(playlist.description)),
            ("owner_id", .string(users[playlist.owner].id)),
            ("owner_name", .string(users[playlist.owner].displayName)),
            ("snapshot_id", .string(playlist.snapshotID)),
            ("track_count", .int(playlist.entries.count)),
            ("collaborative", .bool(playlist.collaborative)),
            ("public", .bool(playlist.isPublic)),
            ("images", .bool(playlist.hasImages)),
            ("readable_in_development_mode", .bool(playlist.readableInDevelopmentMode)),
            ("editable", .bool(playlist.editable)),
            ("followed", .bool(isFollowed(playlist.id))),
            ("spotify_owned", .bool(playlist.spotifyOwned)),
        ]
        if includeItems {
            pairs.append(("items", .array(playlist.entries.enumerated().map { canonicalItem($1, position: $0) })))
        }
        return .object(pairs)
    }

    /// The whole library; `includeItems: false` leaves out item lists (the large library's are ~50 MB).
    /// `onlyPlaylist` keeps one playlist, followed or not, in `playlists` or `unfollowed`.
    public func canonicalModel(includeItems: Bool = true, onlyPlaylist: String? = nil) -> JSONValue {
        let selected = playlists.filter { onlyPlaylist == nil || $0.id == onlyPlaylist }
        let gone = unfollowed.filter { onlyPlaylist == nil || $0.id == onlyPlaylist }
        func list(_ entries: [Entry]) -> JSONValue {
            includeItems ? .array(entries.enumerated().map { canonicalItem($1, position: $0) }) : .null
        }
        return .object([
            ("library", .string(size.rawValue)),
            ("seed", .int(Int(truncatingIfNeeded: seed))),
            ("user", .object([("id", .string(me.id)), ("display_name", .string(me.displayName))])),
            (
                "counts",
                .object([
                    ("playlists", .int(playlists.count)),
                    ("items", .int(totalItems)),
                    ("liked", .int(liked.count)),
                    ("unfollowed", .int(unfollowed.count)),
                    ("saved_episodes", .int(savedEpisodes.count)),
                ])
            ),
            ("playlists", .array(selected.map { canonicalPlaylist($0, includeItems: includeItems) })),
            ("unfollowed", .array(gone.map { canonicalPlaylist($0, includeItems: includeItems) })),
            ("liked", list(liked)),
            ("saved_episodes", list(savedEpisodes)),
        ])
    }
}
