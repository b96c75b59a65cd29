import Foundation
import TimbreCore

/// A playlist's entries as CSV in Exportify's layout (watsonbox/exportify: its 19 columns in its
/// order, artists joined by `, ` with commas in names escaped `\,`); the columns timbre does not
/// keep stay empty (docs/CLI.md lists them). Cells a spreadsheet would run as a formula are
/// neutralised. `timbre export` and the interface's `:export` both use it.
public enum PlaylistExport {
    public static let header = [
        "Track URI", "Track Name", "Artist URI(s)", "Artist Name(s)", "Album URI", "Album Name", "Album Artist URI(s)",
        "Album Artist Name(s)", "Album Release Date", "Album Image URL", "Disc Number", "Track Number", "Track Duration (ms)",
        "Track Preview URL", "Explicit", "Popularity", "ISRC", "Added By", "Added At",
    ]

    public static func csv(_ entries: [CachedEntry]) -> String {
        let rows = [header.map(CSVCell.encode).joined(separator: ",")] + entries.map { record($0).joined(separator: ",") }
        return rows.joined(separator: "\r\n") + "\r\n"
    }

    /// One entry's cells, encoded, in `header`'s order. Album Artist URI(s) and Name(s), Album Image
    /// URL, Track Preview URL and Popularity stay empty: Spotify sends them, the sync does not ask.
    public static func record(_ entry: CachedEntry) -> [String] {
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

    public static func write(_ entries: [CachedEntry], to output: String) throws {
        do {
            try Data(csv(entries).utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw InvalidInput(message: "cannot write \(TerminalText.preview(output)): \((error as NSError).localizedDescription)")
        }
    }
}
