import Foundation
import TimbreCore

/// What an entry holds: a Spotify track, a local file, or a podcast episode.
public enum EntryKind: String, Sendable, Equatable, CaseIterable {
    case track, local, episode
}

/// One entry of a playlist (or of Liked Songs) as the cache holds it.
public struct CachedEntry: Sendable, Equatable {
    /// The entry's index in the playlist (Spotify's, from 0); entries that were skipped leave
    /// gaps. What a person or a script reads is `number`, counted from 1.
    public var position: Int
    public var kind: EntryKind
    /// nil for local files.
    public var id: String?
    public var uri: String
    public var name: String
    /// For episodes: the show's name.
    public var artists: [String]
    /// For episodes: the show's name.
    public var album: String?
    public var durationMS: Int
    public var addedAt: String?
    /// The album's Spotify id (nil for episodes, local files, and caches synced before timbre kept it).
    public var albumID: String?
    /// The album's release date as Spotify gives it: its length is its precision (`1967`,
    /// `1967-06`, `1967-06-01`).
    public var releaseDate: String?
    /// What `export` writes besides (nil: Spotify did not say, or the cache was synced before timbre
    /// kept it). The artists' ids, one per name in `artists` ("" for an artist without one).
    public var artistIDs: [String]?
    public var discNumber: Int?
    public var trackNumber: Int?
    public var explicit: Bool?
    public var isrc: String?
    /// The id of the user who added the entry (playlists only; Liked Songs have none).
    public var addedBy: String?

    public init(
        position: Int, kind: EntryKind, id: String?, uri: String, name: String, artists: [String], album: String?,
        durationMS: Int, addedAt: String?, albumID: String? = nil, releaseDate: String? = nil,
        artistIDs: [String]? = nil, discNumber: Int? = nil, trackNumber: Int? = nil, explicit: Bool? = nil,
        isrc: String? = nil, addedBy: String? = nil
    ) {
        self.position = position
        self.kind = kind
        self.id = id
        self.uri = uri
        self.name = name
        self.artists = artists
        self.album = album
        self.durationMS = durationMS
        self.addedAt = addedAt
        self.albumID = albumID
        self.releaseDate = releaseDate
        self.artistIDs = artistIDs
        self.discNumber = discNumber
        self.trackNumber = trackNumber
        self.explicit = explicit
        self.isrc = isrc
        self.addedBy = addedBy
    }

    /// The cache's `artist_ids` text: ids joined by `,` (an id holds no comma); "" is none.
    static func artistIDs(_ text: String) -> [String] {
        // Split as bytes: splitting by `Character` cost a fifth of opening a 10,000-entry playlist.
        text.isEmpty ? [] : text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The position as `timbre tracks`, `--position` and the interface count it: from 1.
    public var number: Int { position + 1 }

    /// "#5 Crossing the Satellite — The Neon Cities": how dry runs and questions name an entry
    /// (made inert for a terminal by whoever prints it).
    public var label: String { "#\(number) \(name)\(artists.isEmpty ? "" : " — " + artists.joined(separator: ", "))" }

    /// The release year, when the cache knows the release date.
    public var year: Int? { Self.year(of: releaseDate) }

    /// "1999-05-01" (or "1999") → 1999.
    static func year(of releaseDate: String?) -> Int? { releaseDate.flatMap { Int($0.prefix(4)) } }

    /// One element of `timbre tracks --json`, keys in docs/CLI.md's order; `position` counts from 1.
    public var json: JSONValue {
        .object([
            ("position", .int(number)),
            ("kind", .string(kind.rawValue)),
            ("id", .optional(id)),
            ("uri", .string(uri)),
            ("name", .string(name)),
            ("artists", .array(artists.map(JSONValue.string))),
            ("album", .optional(album)),
            ("duration_ms", .int(durationMS)),
            ("added_at", .optional(addedAt)),
        ])
    }

    public static let csvHeader = "position,name,artists,album,duration_ms,added_at,uri"

    /// One CSV record (no line terminator): text cells through `CSVCell` (quoted, no control
    /// characters, no formulas), the numbers timbre writes itself as they are.
    public var csvRow: String {
        [
            String(number), CSVCell.encode(name), CSVCell.encode(artists.joined(separator: "; ")), CSVCell.encode(album ?? ""),
            String(durationMS), CSVCell.encode(addedAt ?? ""), CSVCell.encode(uri),
        ].joined(separator: ",")
    }
}

/// What a list view shows of an entry (`LibraryCache.listedEntries`): the columns the interface
/// draws, sorts and filters by, and nothing else.
public struct ListedEntry: Sendable, Equatable {
    public var position: Int
    public var uri: String
    public var name: String
    public var artists: [String]
    public var album: String?
    public var durationMS: Int
    public var addedAt: String?
    public var releaseDate: String?

    /// The release year, when the cache knows the release date.
    public var year: Int? { CachedEntry.year(of: releaseDate) }
}

extension ListedEntry {
    /// What a list view shows of a full entry (a search hit's).
    public init(_ entry: CachedEntry) {
        self.init(
            position: entry.position, uri: entry.uri, name: entry.name, artists: entry.artists, album: entry.album,
            durationMS: entry.durationMS, addedAt: entry.addedAt, releaseDate: entry.releaseDate)
    }
}
