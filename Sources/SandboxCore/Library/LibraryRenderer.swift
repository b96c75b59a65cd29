/// Spotify-shaped JSON for library objects. `apiBase` is e.g. `https://127.0.0.1:PORT/v1`.
public struct LibraryRenderer: Sendable {
    public var apiBase: String
    /// `--legacy`: playlist objects carry `tracks{…}` and entries `track` instead of `items`/`item`.
    public var legacy: Bool

    public init(apiBase: String, legacy: Bool) {
        self.apiBase = apiBase
        self.legacy = legacy
    }

    static let markets: JSONValue = .array(["AR", "AU", "BR", "CA", "DE", "ES", "FR", "GB", "JP", "MX", "SE", "US"].map(JSONValue.string))

    func externalURLs(_ kind: String, _ id: String) -> JSONValue {
        .object([("spotify", .string("https://open.spotify.com/\(kind)/\(id)"))])
    }

    public func user(_ user: User) -> JSONValue {
        .object([
            ("display_name", .string(user.displayName)),
            ("external_urls", externalURLs("user", user.id)),
            ("href", .string("\(apiBase)/users/\(user.id)")),
            ("id", .string(user.id)),
            ("type", "user"),
            ("uri", .string("spotify:user:\(user.id)")),
        ])
    }

    public func me(_ user: User) -> JSONValue {
        .object([
            ("country", "SE"),
            ("display_name", .string(user.displayName)),
            ("explicit_content", .object([("filter_enabled", false), ("filter_locked", false)])),
            ("external_urls", externalURLs("user", user.id)),
            ("followers", .object([("href", .null), ("total", 3)])),
            ("href", .string("\(apiBase)/users/\(user.id)")),
            ("id", .string(user.id)),
            ("images", .array([])),
            ("product", "premium"),
            ("type", "user"),
            ("uri", .string("spotify:user:\(user.id)")),
        ])
    }

    func images(_ key: String, sizes: [Int]) -> JSONValue {
        .array(
            sizes.map { size in
                .object([("height", .int(size)), ("url", .string("https://i.scdn.co/image/ab67616d0000\(size)\(key)")), ("width", .int(size))])
            })
    }

    func artist(_ artist: Pool.Artist) -> JSONValue {
        .object([
            ("external_urls", externalURLs("artist", artist.id)),
            ("href", .string("\(apiBase)/artists/\(artist.id)")),
            ("id", .string(artist.id)),
            ("name", .string(artist.name)),
            ("type", "artist"),
            ("uri", .string("spotify:artist:\(artist.id)")),
        ])
    }

    /// A simplified album (as in a track object and in search results).
    public func album(_ album: Pool.Album) -> JSONValue {
        .object([
            ("album_type", .string(album.albumType)),
            ("artists", .array(album.artists.map(artist))),
            ("available_markets", LibraryRenderer.markets),
            ("external_urls", externalURLs("album", album.id)),
            ("href", .string("\(apiBase)/albums/\(album.id)")),
            ("id", .string(album.id)),
            ("images", images(album.imageKey, sizes: [640, 300, 64])),
            ("name", .string(album.name)),
            ("release_date", .string(album.releaseDate)),
            ("release_date_precision", "day"),
            ("total_tracks", .int(album.totalTracks)),
            ("type", "album"),
            ("uri", .string("spotify:album:\(album.id)")),
        ])
    }

    /// A simplified track (as in an album's track list): no album, popularity or external ids.
    public func simplifiedTrack(_ track: Pool.Track) -> JSONValue {
        self.track(track).removingKey("album").removingKey("popularity").removingKey("external_ids")
    }

    public func track(_ track: Pool.Track, id overrideID: String? = nil) -> JSONValue {
        let id = overrideID ?? track.id
        return .object([
            ("album", album(track.album)),
            ("artists", .array(track.artists.map(artist))),
            ("available_markets", LibraryRenderer.markets),
            ("disc_number", .int(Self.discNumber(track))),
            ("duration_ms", .int(track.durationMs)),
            ("episode", false),
            ("explicit", .bool(track.explicit)),
            ("external_ids", .object([("isrc", .string(track.isrc))])),
            ("external_urls", externalURLs("track", id)),
            ("href", .string("\(apiBase)/tracks/\(id)")),
            ("id", .string(id)),
            ("is_local", false),
            ("name", .string(track.name)),
            ("popularity", .int(track.popularity)),
            ("preview_url", .null),
            ("track", true),
            ("track_number", .int(track.trackNumber)),
            ("type", "track"),
            ("uri", .string("spotify:track:\(id)")),
        ])
    }

    /// Albums of more than 12 tracks are two discs (the second half on disc 2, numbered on as
    /// Spotify numbers some reissues), so a client cannot mistake one number for the other.
    static func discNumber(_ track: Pool.Track) -> Int {
        track.album.totalTracks > 12 && track.trackNumber > (track.album.totalTracks + 1) / 2 ? 2 : 1
    }

    public func local(_ file: Pool.LocalFile) -> JSONValue {
        .object([
            (
                "album",
                .object([
                    ("album_type", .null), ("artists", .array([])), ("available_markets", .array([])),
                    ("external_urls", .object([])), ("href", .null), ("id", .null), ("images", .array([])),
                    ("name", .string(file.album)), ("release_date", .null), ("release_date_precision", .null),
                    ("type", "album"), ("uri", .null),
                ])
            ),
            (
                "artists",
                .array([
                    .object([
                        ("external_urls", .object([])), ("href", .null), ("id", .null),
                        ("name", .string(file.artist)), ("type", "artist"), ("uri", .null),
                    ])
                ])
            ),
            ("available_markets", .array([])),
            ("disc_number", 0),
            ("duration_ms", .int(file.seconds * 1_000)),
            ("explicit", false),
            ("external_ids", .object([])),
            ("external_urls", .object([])),
            ("href", .null),
            ("id", .null),
            ("is_local", true),
            ("name", .string(file.title)),
            ("popularity", 0),
            ("preview_url", .null),
            ("track_number", 0),
            ("type", "track"),
            ("uri", .string(file.uri)),
        ])
    }

    public func episode(_ episode: Pool.Episode) -> JSONValue {
        .object([
            ("audio_preview_url", .null),
            ("description", .string(episode.description)),
            ("duration_ms", .int(episode.durationMs)),
            ("episode", true),
            ("explicit", false),
            ("external_urls", externalURLs("episode", episode.id)),
            ("href", .string("\(apiBase)/episodes/\(episode.id)")),
            ("html_description", .string("<p>\(episode.description)</p>")),
            ("id", .string(episode.id)),
            ("images", images(episode.imageKey, sizes: [640, 300, 64])),
            ("is_externally_hosted", false),
            ("is_playable", true),
            ("language", "en"),
            ("languages", .array(["en"])),
            ("name", .string(episode.name)),
            ("release_date", .string(episode.releaseDate)),
            ("release_date_precision", "day"),
            (
                "show",
                .object([
                    ("available_markets", LibraryRenderer.markets),
                    ("copyrights", .array([])),
                    ("description", "A show."),
                    ("explicit", false),
                    ("external_urls", externalURLs("show", episode.showID)),
                    ("href", .string("\(apiBase)/shows/\(episode.showID)")),
                    ("html_description", "<p>A show.</p>"),
                    ("id", .string(episode.showID)),
                    ("images", images(episode.imageKey, sizes: [640, 300, 64])),
                    ("is_externally_hosted", false),
                    ("languages", .array(["en"])),
                    ("media_type", "audio"),
                    ("name", .string(episode.showName)),
                    ("publisher", .string(episode.publisher)),
                    ("total_episodes", 40),
                    ("type", "show"),
                    ("uri", .string("spotify:show:\(episode.showID)")),
                ])
            ),
            ("track", false),
            ("type", "episode"),
            ("uri", .string("spotify:episode:\(episode.id)")),
        ])
    }

    /// The object an entry points at, or null.
    public func itemObject(_ entry: Entry, library: Library) -> JSONValue {
        let pool = library.pool
        switch entry.kind {
        case .track: return track(pool.track(Int(entry.ref)))
        case .malformed: return track(pool.track(Int(entry.ref)), id: pool.malformedID(Int(entry.ref)))
        case .local: return local(pool.local(Int(entry.ref)))
        case .episode: return episode(pool.episode(Int(entry.ref)))
        case .foreign:
            guard Int(entry.ref) < library.foreign.count else { return .null }
            switch library.foreign[Int(entry.ref)] {
            case let .track(id): return track(pool.foreignTrack(id: id))
            case let .episode(id): return episode(pool.foreignEpisode(id: id))
            case let .local(file): return local(file)
            }
        case .null: return .null
        }
    }

    /// A playlist entry (`/items` or `/tracks` shape).
    public func playlistEntry(_ entry: Entry, library: Library, trackKey: Bool) -> JSONValue {
        let adder = library.users[Int(entry.addedBy) < library.users.count ? Int(entry.addedBy) : 0]
        return .object([
            ("added_at", entry.addedAt.map { .string(ISODate.format($0)) } ?? .null),
            ("added_by", entry.addedAt == nil ? .null : user(adder).removingKey("display_name")),
            ("is_local", .bool(entry.kind == .local)),
            ("primary_color", .null),
            (trackKey ? "track" : "item", itemObject(entry, library: library)),
            ("video_thumbnail", .object([("url", .null)])),
        ])
    }

    public func likedEntry(_ entry: Entry, library: Library) -> JSONValue {
        .object([
            ("added_at", entry.addedAt.map { .string(ISODate.format($0)) } ?? .null),
            ("track", itemObject(entry, library: library)),
        ])
    }

    /// Simplified playlist object (as in `/me/playlists`); `full` adds followers and the first page.
    public func playlist(_ playlist: Playlist, library: Library, firstPage: JSONValue? = nil) -> JSONValue {
        let href = "\(apiBase)/playlists/\(playlist.id)"
        let itemsKey = legacy ? "tracks" : "items"
        var pairs: [(String, JSONValue)] = [
            ("collaborative", .bool(playlist.collaborative)),
            ("description", .string(playlist.description)),
            ("external_urls", externalURLs("playlist", playlist.id)),
        ]
        if firstPage != nil { pairs.append(("followers", .object([("href", .null), ("total", .int(playlist.followers))]))) }
        pairs += [
            ("href", .string(href)),
            ("id", .string(playlist.id)),
            ("images", playlist.hasImages ? images(String(playlist.id.prefix(16)), sizes: [640]) : .null),
        ]
        if !legacy {
            pairs.append((itemsKey, firstPage ?? .object([("href", .string("\(href)/items")), ("total", .int(playlist.entries.count))])))
        }
        pairs += [
            ("name", .string(playlist.name)),
            ("owner", user(library.users[playlist.owner])),
            ("primary_color", .null),
            ("public", .bool(playlist.isPublic)),
            ("snapshot_id", .string(playlist.snapshotID)),
        ]
        if legacy {
            pairs.append((itemsKey, firstPage ?? .object([("href", .string("\(href)/tracks")), ("total", .int(playlist.entries.count))])))
        }
        pairs += [("type", "playlist"), ("uri", .string("spotify:playlist:\(playlist.id)"))]
        return .object(pairs)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }

    func removingKey(_ key: String) -> JSONValue {
        guard case let .object(pairs) = self else { return self }
        return .object(pairs.filter { $0.0 != key })
    }
}

/// `2024-01-01T00:00:00Z` without DateFormatter (fast, and no shared mutable formatter).
public enum ISODate {
    public static func format(_ seconds: Int64) -> String {
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return String(format4: year) + "-" + String(pad2: month) + "-" + String(pad2: day) + "T"
            + String(pad2: secondOfDay / 3_600) + ":" + String(pad2: secondOfDay / 60 % 60) + ":" + String(pad2: secondOfDay % 60) + "Z"
    }
}
