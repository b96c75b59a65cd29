import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre stats REF`: offline figures about a cached playlist (docs/CLI.md has the JSON).
public struct StatsCommand: Sendable {
    public var ref: String
    public var json: Bool

    public init(ref: String, json: Bool) {
        self.ref = ref
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let reference = try invocation.playlistRef(ref)
        let context = try invocation.context()
        let stats = try Self.figures(of: reference, context: context)
        if json {
            context.console.json(stats.json)
            return .success
        }
        context.console.lines(stats.lines.map(TerminalText.sanitize))
        return .success
    }

    struct Figures {
        var entries = 0, durationMS = 0, averageMS = 0, artists = 0, albums = 0
        var likedPercent = 0.0
        var years: (min: Int, max: Int)?
        var topArtists: [(name: String, count: Int)] = []
        var topAlbums: [(name: String, count: Int)] = []
        var decades: [(decade: Int, count: Int)] = []

        /// The text `timbre stats` prints and the interface's `i` shows.
        var lines: [String] {
            let stats = self
            let hours = stats.durationMS / 3_600_000, minutes = (stats.durationMS / 60_000) % 60
            var lines = [
            "entries:   \(stats.entries) (\(hours) h \(minutes) min; average \(ClockText.minutesSeconds(milliseconds: stats.averageMS)))",
            "artists:   \(stats.artists) · albums: \(stats.albums) · liked: \(String(format: "%.1f", stats.likedPercent)) %",
            "years:     " + (stats.years.map { "\($0.min)–\($0.max)" } ?? "unknown (run `timbre sync`)"),
        ]
        lines.append("top artists: " + stats.topArtists.map { "\($0.name) (\($0.count))" }.joined(separator: ", "))
        lines.append("top albums:  " + stats.topAlbums.map { "\($0.name) (\($0.count))" }.joined(separator: ", "))
        if !stats.decades.isEmpty { lines.append("decades:   " + stats.decades.map { "\($0.decade)s: \($0.count)" }.joined(separator: " · ")) }
            return lines
        }

        var json: JSONValue {
            .object([
                ("entries", .int(entries)), ("duration_ms", .int(durationMS)), ("average_ms", .int(averageMS)),
                ("artists", .int(artists)), ("albums", .int(albums)), ("liked_percent", .double((likedPercent * 10).rounded() / 10)),
                ("years", years.map { .object([("min", .int($0.min)), ("max", .int($0.max))]) } ?? .null),
                ("top_artists", .array(topArtists.map { .object([("name", .string($0.name)), ("count", .int($0.count))]) })),
                ("top_albums", .array(topAlbums.map { .object([("name", .string($0.name)), ("count", .int($0.count))]) })),
                ("decades", .object(decades.map { (String($0.decade), .int($0.count)) })),
            ])
        }
    }

    /// The figures of a cached playlist (offline): its entries, and which of them are liked.
    static func figures(of reference: PlaylistRef, context: AppContext) throws -> Figures {
        let (cache, entries) = try context.cachedEntries(of: reference)
        return figures(entries, liked: Set(try cache.entries(of: .liked)?.map(\.uri) ?? []))
    }

    static func figures(_ entries: [CachedEntry], liked: Set<String>) -> Figures {
        var figures = Figures()
        figures.entries = entries.count
        figures.durationMS = entries.reduce(0) { $0 + $1.durationMS }
        figures.averageMS = entries.isEmpty ? 0 : figures.durationMS / entries.count
        var artistCounts: [String: Int] = [:], albumCounts: [String: Int] = [:], albumKeys = Set<String>(), decades: [Int: Int] = [:]
        for entry in entries {
            for artist in Set(entry.artists) where !artist.isEmpty { artistCounts[artist, default: 0] += 1 }
            if let album = entry.album, !album.isEmpty {
                albumCounts[album, default: 0] += 1
                albumKeys.insert(entry.albumID ?? album)
            }
            if let year = entry.year {
                figures.years = (min(figures.years?.min ?? year, year), max(figures.years?.max ?? year, year))
                decades[year / 10 * 10, default: 0] += 1
            }
        }
        figures.artists = artistCounts.count
        figures.albums = albumKeys.count
        figures.likedPercent = entries.isEmpty ? 0 : Double(entries.filter { liked.contains($0.uri) }.count) * 100 / Double(entries.count)
        func top(_ counts: [String: Int]) -> [(name: String, count: Int)] {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5).map { ($0.key, $0.value) }
        }
        figures.topArtists = top(artistCounts)
        figures.topAlbums = top(albumCounts)
        figures.decades = decades.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return figures
    }
}

/// `timbre export REF [-o FILE]`: CSV in Exportify's layout (watsonbox/exportify: its 19 columns in
/// its order, artists joined by `, ` with commas in names escaped `\,`); the columns timbre does not
/// keep stay empty (docs/CLI.md lists them). Cells a spreadsheet would run as a formula are neutralised.
public struct ExportCommand: Sendable {
    public var ref: String
    public var output: String?

    public init(ref: String, output: String?) {
        self.ref = ref
        self.output = output
    }

    public static let header = [
        "Track URI", "Track Name", "Artist URI(s)", "Artist Name(s)", "Album URI", "Album Name", "Album Artist URI(s)",
        "Album Artist Name(s)", "Album Release Date", "Album Image URL", "Disc Number", "Track Number", "Track Duration (ms)",
        "Track Preview URL", "Explicit", "Popularity", "ISRC", "Added By", "Added At",
    ]

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let reference = try invocation.playlistRef(ref)
        let context = try invocation.context()
        let entries = try context.cachedEntries(of: reference).entries
        guard let output, output != "-" else {
            context.console.write(Self.csv(entries))
            return .success
        }
        try Self.write(entries, to: output)
        context.console.say("Exported \(entries.count) entries to \(TerminalText.sanitize(output))")
        return .success
    }

    static func csv(_ entries: [CachedEntry]) -> String {
        let rows = [header.map(CSVCell.encode).joined(separator: ",")] + entries.map { record($0).joined(separator: ",") }
        return rows.joined(separator: "\r\n") + "\r\n"
    }

    /// One entry's cells, encoded, in `header`'s order. Album Artist URI(s) and Name(s), Album Image
    /// URL, Track Preview URL and Popularity stay empty: Spotify sends them, the sync does not ask.
    static func record(_ entry: CachedEntry) -> [String] {
        let artistURIs = entry.artistIDs.map { ids in
            entry.artists.indices.map { ids.indices.contains($0) && !ids[$0].isEmpty ? "spotify:artist:" + ids[$0] : "" }
        }
        func number(_ value: Int?) -> String { value.map(String.init) ?? "" }
        return [
            CSVCell.encode(entry.uri),
            CSVCell.encode(entry.name),
            CSVCell.encode(artistURIs?.joined(separator: ", ") ?? ""),
            CSVCell.encode(artistNames(entry.artists)),
            CSVCell.encode(entry.kind == .episode ? "" : entry.albumID.map { "spotify:album:" + $0 } ?? ""),
            CSVCell.encode(entry.album ?? ""),
            "", "",
            CSVCell.encode(entry.releaseDate ?? ""),
            "",
            number(entry.discNumber),
            number(entry.trackNumber),
            String(entry.durationMS),
            "",
            entry.explicit.map { $0 ? "true" : "false" } ?? "",
            "",
            CSVCell.encode(entry.isrc ?? ""),
            CSVCell.encode(entry.addedBy.map { "spotify:user:" + $0 } ?? ""),
            CSVCell.encode(entry.addedAt ?? ""),
        ]
    }

    /// Exportify's `Artist Name(s)`: names joined by `, `, a comma inside a name written `\,`.
    public static func artistNames(_ names: [String]) -> String {
        names.map { $0.replacingOccurrences(of: ",", with: "\\,") }.joined(separator: ", ")
    }

    static func write(_ entries: [CachedEntry], to output: String) throws {
        do {
            try Data(csv(entries).utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw UsageError(message: "cannot write \(TerminalText.preview(output)): \((error as NSError).localizedDescription)")
        }
    }
}
