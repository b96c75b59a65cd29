import Foundation
import TimbreCore

/// Offline figures about a playlist's cached entries: what `timbre stats` prints and the
/// interface's `i` shows.
public enum PlaylistStatistics {
    public struct Figures: Sendable {
        public var entries = 0, durationMS = 0, averageMS = 0, artists = 0, albums = 0
        public var likedPercent = 0.0
        public var years: (min: Int, max: Int)?
        public var topArtists: [(name: String, count: Int)] = []
        public var topAlbums: [(name: String, count: Int)] = []
        public var decades: [(decade: Int, count: Int)] = []

        /// The text `timbre stats` prints and the interface's `i` shows.
        public var lines: [String] {
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

        public var json: JSONValue {
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

    /// The figures of a cached playlist: its entries, and which of them are liked; nil when the
    /// cache lacks the playlist.
    public static func figures(of reference: PlaylistRef, in cache: LibraryCache) throws -> Figures? {
        guard let entries = try cache.entries(of: reference) else { return nil }
        return figures(entries, liked: Set(try cache.entries(of: .liked)?.map(\.uri) ?? []))
    }

    public static func figures(_ entries: [CachedEntry], liked: Set<String>) -> Figures {
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
