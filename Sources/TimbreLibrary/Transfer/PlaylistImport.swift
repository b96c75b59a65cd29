import Foundation
import TimbreCore

/// Reading a playlist file to import — Exportify CSV (either layout), Timor CSV,
/// `timbre tracks --csv`, or URIs/links one a line — and matching its rows to the catalogue
/// (rows without a usable URI by catalogue search, at most `maxSearches` searches, counted before
/// the first is sent). `timbre import` and the interface's `:import` both use it.
public enum PlaylistImport {
    /// One row to import: its line in the file, and what it says.
    public struct Row: Equatable, Sendable {
        public var line: Int
        public var uri: String?
        public var title: String
        public var artist: String
        public var durationMS: Int?

        public init(line: Int, uri: String?, title: String, artist: String, durationMS: Int?) {
            self.line = line
            self.uri = uri
            self.title = title
            self.artist = artist
            self.durationMS = durationMS
        }
    }

    /// What `match` found: the URIs to add, in the file's order, and how they were found.
    public struct Matches: Sendable {
        public var uris: [String]
        public var byURI: Int
        public var bySearch: Int
        public var unmatched: [Row]
    }

    /// Searches one import may send unless `--max-searches` allows more: one request each, and
    /// Spotify's rate limit counts them with everything else the app sends.
    public static let defaultMaxSearches = 500

    public static let maxBytes = 64 << 20

    /// The searches `match` will send: one per distinct title and artist among the rows without a
    /// URI (a row without a title is unmatched without one).
    public static func searchKeys(_ rows: [Row]) -> Set<String> {
        Set(rows.lazy.filter { $0.uri == nil && !$0.title.isEmpty }.map { Reordering.key(title: $0.title, artist: $0.artist) })
    }

    /// More searches than allowed is a usage error, before any is sent.
    public static func checkSearches(_ rows: [Row], max: Int) throws {
        let searches = searchKeys(rows).count
        guard searches > max else { return }
        let count = searches.formatted(.number.locale(Locale(identifier: "en_US")))
        throw InvalidInput(
            message: "would search \(count) rows: more than \(max.formatted(.number.locale(Locale(identifier: "en_US")))) — pass --max-searches \(searches)",
            hint: "rows with a Spotify URI or ID need no search; each row without one is a catalogue search. Nothing was sent")
    }

    /// Each row's URI: its own, else the catalogue's match (one search per distinct title and
    /// artist, at most `maxSearches` of them, else a usage error before the first); the rows
    /// nothing matched. `progress` hears (searches done, searches to do) after each search.
    public static func match(
        _ rows: [Row], catalog: Catalog, maxSearches: Int = defaultMaxSearches,
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> Matches {
        try checkSearches(rows, max: maxSearches)
        let total = searchKeys(rows).count
        var uris: [String] = []
        var byURI = 0, bySearch = 0
        var unmatched: [Row] = []
        var searched: [String: String?] = [:]
        for row in rows {
            if let uri = row.uri {
                uris.append(uri)
                byURI += 1
                continue
            }
            guard !row.title.isEmpty else {
                unmatched.append(row)
                continue
            }
            let key = Reordering.key(title: row.title, artist: row.artist)
            if searched[key] == nil {
                searched[key] = .some(try await catalog.match(title: row.title, artist: row.artist, durationMS: row.durationMS))
                progress(searched.count, total)
            }
            if let found = searched[key] ?? nil {
                uris.append(found)
                bySearch += 1
            } else {
                unmatched.append(row)
            }
        }
        return Matches(uris: uris, byURI: byURI, bySearch: bySearch, unmatched: unmatched)
    }

    public static func contents(of file: String) throws -> Data {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file) else {
            throw InvalidInput(message: "cannot read \(TerminalText.preview(file)): no such file")
        }
        guard (attributes[.size] as? Int ?? 0) <= Self.maxBytes else {
            throw InvalidInput(message: "\(TerminalText.preview(file)) is over 64 MB: not a playlist")
        }
        guard let read = FileManager.default.contents(atPath: file) else { throw InvalidInput(message: "cannot read \(TerminalText.preview(file))") }
        return read
    }

    public static func text(_ data: Data) throws -> String {
        guard data.count <= Self.maxBytes else { throw InvalidInput(message: "the input is over 64 MB: not a playlist") }
        guard let text = String(data: data, encoding: .utf8) else { throw InvalidInput(message: "the input is not UTF-8 text", hint: "save the CSV as UTF-8") }
        return text
    }

    /// The rows of any format timbre reads, recognised by the header (or by a first line that is a
    /// URI). Exportify's layouts: watsonbox's (`Track URI`, artists `A\, B, C`), the 2024 one
    /// (`Track URI`, artists `A;B`, `Duration (ms)`) and the older one (`Spotify ID`: bare ids);
    /// a UTF-8 byte-order mark, CRLF, a `;`-separated re-save (Excel in a comma-decimal locale),
    /// short or long rows and blank records are all taken as they come.
    public static func rows(_ text: String) throws -> [Row] {
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVReader.records(text, separator: CSVReader.separator(of: text))
        } catch {
            throw InvalidInput(message: "line \(error.line): a quoted field is never closed", hint: "the file may be cut short")
        }
        guard let header = records.first else { return [] }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        func column(_ candidates: [String]) -> Int? { names.firstIndex { name in candidates.contains { $0.caseInsensitiveCompare(name) == .orderedSame } } }
        let uri = column(["Track URI", "Spotify URI", "uri"])
        let bareID = column(["Spotify ID", "id"])
        let title = column(["Track Name", "Title", "name"])
        let artist = column(["Artist Name(s)", "Artist", "artists"])
        let duration = column(["Track Duration (ms)", "Duration (ms)", "Duration", "duration_ms"])
        guard uri != nil || bareID != nil || (title != nil && artist != nil) else {
            // No header: URIs or links one a line.
            return try records.map { record in
                let text = record.fields.joined(separator: ",").trimmingCharacters(in: .whitespaces)
                do {
                    let ref = try ItemRef.parse(text)
                    guard ref.kind != .album else { throw InvalidInput(message: "line \(record.line): albums are added with `playlist add`") }
                    return Row(line: record.line, uri: ref.uri, title: "", artist: "", durationMS: nil)
                } catch is InvalidItem {
                    throw InvalidInput(
                        message:
                            "line \(record.line): '\(TerminalText.preview(text, limit: 60))' is neither a URI nor a link, and the file has no header timbre knows",
                        hint:
                            "timbre reads Exportify's CSV, Timor's CSV (Title, Artist, Album, Release Date, Duration, Spotify URI), `timbre tracks --csv`, or URIs one a line"
                    )
                }
            }
        }
        return records.dropFirst().compactMap { record in
            // A blank record (a spreadsheet's trailing `,,,,`) is no row.
            guard record.fields.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return nil }
            func field(_ index: Int?) -> String {
                guard let index, record.fields.indices.contains(index) else { return "" }
                return CSVCell.decode(record.fields[index]).trimmingCharacters(in: .whitespaces)
            }
            var parsed = (try? ItemRef.parse(field(uri))).flatMap { $0.kind == .album ? nil : $0.uri }
            if parsed == nil, let id = SpotifyID(field(bareID)) { parsed = "spotify:track:\(id.rawValue)" }
            return Row(
                line: record.line, uri: parsed, title: field(title), artist: Self.firstArtist(field(artist)),
                durationMS: Self.duration(field(duration)))
        }
    }

    /// The first name of an artists cell: Exportify 2024 and `tracks --csv` separate names with
    /// `;`, watsonbox's Exportify with `, ` (a comma inside a name written `\,`), the older
    /// Exportify with `,`.
    public static func firstArtist(_ cell: String) -> String {
        if cell.contains(";") {
            return (cell.split(separator: ";", omittingEmptySubsequences: false).first.map(String.init) ?? "").trimmingCharacters(in: .whitespaces)
        }
        var name = ""
        var escaped = false
        for character in cell {
            if escaped {
                if character != "," { name.append("\\") }
                name.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                break
            } else {
                name.append(character)
            }
        }
        if escaped { name.append("\\") }
        return name.trimmingCharacters(in: .whitespaces)
    }

    /// Milliseconds, or `m:ss` (Timor's).
    public static func duration(_ text: String) -> Int? {
        if let ms = Int(text) { return ms }
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2 || parts.count == 3 else { return nil }
        return parts.reduce(0) { $0 * 60 + $1 } * 1000
    }
}

/// Input the import cannot take (exit 2): the sentence says what is wrong with the file.
public struct InvalidInput: UserFacingError, Equatable {
    public var message: String
    public var hint: String?

    public init(message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var exitStatus: ExitStatus { .usage }
}
