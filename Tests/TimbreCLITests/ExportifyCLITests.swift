import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

/// `export` and `import` against the sandbox in Exportify's layouts (ExportifyFormatTests has their
/// headers): export's columns hold what Spotify's API says, each layout imports by id without a
/// search, and the searches an import may send are counted and capped before the first request.
extension SyncCLITests {
    /// Every page of `path` through `timbre api --paginate`: the `items` of all pages.
    func apiItems(_ s: Setup, _ path: String) async throws -> [[String: Any]] {
        let pages = await s.cli.invoke(["api", path, "--paginate"])
        #expect(pages.status == 0, "\(pages.stderr)")
        return pages.stdout.split(separator: "\n").flatMap { (parse(String($0)) as? [String: Any])?["items"] as? [[String: Any]] ?? [] }
    }

    @Test func exportFillsExportifysColumnsWithWhatSpotifySays() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let model = try await s.sandbox.library(includeItems: false)
            let readable = (model["playlists"] as? [[String: Any]] ?? []).filter { ($0["readable_in_development_mode"] as? Bool) == true }
            var tracks = 0, explicit = 0, adders = Set<String>(), discs = Set<String>()
            for playlist in readable.compactMap({ $0["id"] as? String }) + ["liked"] {
                let path = playlist == "liked" ? "me/tracks?limit=50" : "playlists/\(playlist)/items?limit=50"
                // What Spotify holds, in order; the export skips what the cache skips (null and malformed items).
                var truth = try await apiItems(s, path)[...]
                let exported = await s.cli.invoke(["export", playlist])
                #expect(exported.status == 0, "\(exported.stderr)")
                let records = try CSVReader.records(exported.stdout)
                #expect(
                    records.first?.fields == [
                        "Track URI", "Track Name", "Artist URI(s)", "Artist Name(s)", "Album URI", "Album Name",
                        "Album Artist URI(s)", "Album Artist Name(s)", "Album Release Date", "Album Image URL",
                        "Disc Number", "Track Number", "Track Duration (ms)", "Track Preview URL", "Explicit",
                        "Popularity", "ISRC", "Added By", "Added At",
                    ])
                for record in records.dropFirst() {
                    let cell = Dictionary(uniqueKeysWithValues: zip(records[0].fields, record.fields.map(CSVCell.decode)))
                    #expect(record.fields.count == 19)
                    let uri = cell["Track URI"] ?? ""
                    while let first = truth.first, ((first["item"] ?? first["track"]) as? [String: Any])?["uri"] as? String != uri { truth.removeFirst() }
                    let next = truth.popFirst()
                    let entry = try #require(next, "\(playlist): \(uri) is on Spotify, in this order")
                    let item = try #require((entry["item"] ?? entry["track"]) as? [String: Any])
                    for empty in ["Album Artist URI(s)", "Album Artist Name(s)", "Album Image URL", "Track Preview URL", "Popularity"] {
                        #expect(cell[empty] == "", "\(empty) is not kept")
                    }
                    #expect(cell["Added By"] == ((entry["added_by"] as? [String: Any])?["uri"] as? String ?? ""))
                    if let adder = cell["Added By"], !adder.isEmpty { adders.insert(adder) }
                    guard uri.hasPrefix("spotify:track:") else { continue }
                    tracks += 1
                    let artists = item["artists"] as? [[String: Any]] ?? []
                    #expect(cell["Artist URI(s)"] == artists.map { $0["uri"] as? String ?? "" }.joined(separator: ", "))
                    let names = artists.map { ($0["name"] as? String ?? "").replacingOccurrences(of: ",", with: #"\,"#) }
                    #expect(cell["Artist Name(s)"] == ExportedCell.cell(names.joined(separator: ", ")))
                    let album = item["album"] as? [String: Any] ?? [:]
                    #expect(cell["Album URI"] == album["uri"] as? String)
                    #expect(cell["Disc Number"] == (item["disc_number"] as? Int).map(String.init))
                    discs.insert(cell["Disc Number"] ?? "")
                    #expect(cell["Track Number"] == (item["track_number"] as? Int).map(String.init))
                    #expect(cell["Track Duration (ms)"] == (item["duration_ms"] as? Int).map(String.init))
                    #expect(cell["Explicit"] == ((item["explicit"] as? Bool) == true ? "true" : "false"))
                    if cell["Explicit"] == "true" { explicit += 1 }
                    #expect(cell["ISRC"] == (item["external_ids"] as? [String: Any])?["isrc"] as? String)
                }
            }
            #expect(
                tracks >= 50 && explicit >= 1 && adders.count >= 2 && discs == ["1", "2"],
                "\(tracks) tracks, \(explicit) explicit, \(adders.count) adders, discs \(discs)")
        }
    }

    /// "Done when a real Exportify file of each layout imports by id": watsonbox's, the current
    /// one (`;` between artists), the older one (`Spotify ID`), and a spreadsheet's re-save. Not one
    /// search; the new playlist on the server holds exactly the file's tracks.
    /// `export -o FILE` never replaces a file in silence: on a terminal it asks (as `:export`
    /// does), otherwise it needs --force (exit 2, the file untouched).
    @Test func exportAsksBeforeReplacingAFileAndNeedsForceWithoutATerminal() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let file = s.cli.home.appendingPathComponent("mine.csv").path
            let mine = "my own notes\n"
            func contents() -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

            // A new file needs nothing.
            let fresh = await s.cli.invoke(["export", "liked", "-o", file])
            #expect(fresh.status == 0, "\(fresh.stderr)")
            #expect(contents().hasPrefix("Track URI,"))

            try Data(mine.utf8).write(to: URL(fileURLWithPath: file))
            let refused = await s.cli.invoke(["export", "liked", "-o", file])
            #expect(refused.status == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("“\(file)” exists; nothing was written"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--force"), "\(refused.stderr)")
            #expect(contents() == mine)

            let declined = await s.cli.invoke(["export", "liked", "-o", file], stdin: "n\n", tty: true)
            #expect(declined.status == 0, "\(declined.stderr)")
            #expect(declined.stderr.contains("“\(file)” exists — overwrite? (y/n)"), "\(declined.stderr)")
            #expect(contents() == mine)

            let noAnswer = await s.cli.invoke(["export", "liked", "-o", file], stdin: "", tty: true)
            #expect(noAnswer.status == 0, "\(noAnswer.stderr)")
            #expect(contents() == mine)

            let accepted = await s.cli.invoke(["export", "liked", "-o", file], stdin: "y\n", tty: true)
            #expect(accepted.status == 0, "\(accepted.stderr)")
            #expect(contents().hasPrefix("Track URI,"))

            try Data(mine.utf8).write(to: URL(fileURLWithPath: file))
            let forced = await s.cli.invoke(["export", "liked", "-o", file, "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(contents().hasPrefix("Track URI,"))

            // The real binary, stdin not a terminal: the same refusal.
            try Data(mine.utf8).write(to: URL(fileURLWithPath: file))
            let binary = try await s.cli.run(["export", "liked", "-o", file], stdin: "y\n")
            #expect(binary.status == 2, "\(binary.stderr)")
            #expect(binary.stderr.contains("--force"))
            #expect(contents() == mine)
        }
    }

    @Test func everyExportifyLayoutImportsByIDWithoutASearch() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, _) = try await ownPlaylist(s)
            let cached = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            let tracks = cached.filter { ($0["kind"] as? String) == "track" }.prefix(12)
            #expect(tracks.count >= 5)
            let uris = tracks.map { $0["uri"] as? String ?? "" }
            func q(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            func artists(_ track: [String: Any]) -> [String] { track["artists"] as? [String] ?? [] }
            func text(_ track: [String: Any], _ key: String) -> String { track[key] as? String ?? "" }
            let duration = { (track: [String: Any]) in String(track["duration_ms"] as? Int ?? 0) }

            let watsonbox =
                ([ExportifyFormatTests.watsonboxHeader]
                + tracks.map { t in
                    [
                        text(t, "uri"), text(t, "name"), "", artists(t).map { $0.replacingOccurrences(of: ",", with: #"\,"#) }.joined(separator: ", "),
                        "", text(t, "album"), "", "", "", "", "1", "1", duration(t), "", "false", "0", "", "", text(t, "added_at"),
                    ].map(q).joined(separator: ",")
                }).joined(separator: "\n") + "\n"
            let current =
                "\u{FEFF}"
                + ([ExportifyFormatTests.pavelHeader]
                + tracks.map { t in
                    ([
                        text(t, "uri"), q(text(t, "name")), q(text(t, "album")),
                        q(artists(t).map { $0.replacingOccurrences(of: ";", with: "") }.joined(separator: ";")),
                        "", duration(t), "0", "false", "", text(t, "added_at"), "\"\"", "\"undefined\"",
                    ] + Array(repeating: "", count: 12)).joined(separator: ",")
                }).joined(separator: "\n") + "\n"
            let old =
                "\u{FEFF}"
                + ([ExportifyFormatTests.pavelOldHeader]
                + tracks.map { t in
                    ([
                        text(t, "id"), "\"\"", q(text(t, "name").replacingOccurrences(of: "\"", with: "")), "", q(text(t, "album")),
                        q(artists(t).joined(separator: ",")),
                        "", duration(t), "0", "", text(t, "added_at"), "\"\"", "\"\"", "", "",
                    ] + Array(repeating: "", count: 12)).joined(separator: ",")
                }).joined(separator: "\n") + "\n"
            // A spreadsheet's re-save of watsonbox's file: BOM, CRLF, `;`, quotes only where needed, ragged rows, blank records.
            let resaved =
                "\u{FEFF}Track URI;Track Name;Artist URI(s);Artist Name(s)\r\n"
                + tracks.enumerated().map { index, t in
                    index % 2 == 0
                        ? "\(text(t, "uri"));\(q(text(t, "name")))" : "\(text(t, "uri"));\(q(text(t, "name")));;\(q(artists(t).joined(separator: ", ")));;;1;2"
                }.joined(separator: "\r\n") + "\r\n;;;\r\n;;;\r\n"

            for (layout, content) in [("watsonbox", watsonbox), ("current", current), ("spotify-id", old), ("re-saved", resaved)] {
                let file = s.cli.home.appendingPathComponent("\(layout).csv").path
                try Data(content.utf8).write(to: URL(fileURLWithPath: file))
                try await s.sandbox.clearRequests()
                let imported = await s.cli.invoke(["import", file, "--name", "Exportify \(layout)", "--json"])
                #expect(imported.status == 0, "\(layout): \(imported.stderr)")
                let report = parse(imported.stdout) as? [String: Any] ?? [:]
                #expect(report["matched_by_uri"] as? Int == uris.count, "\(layout): \(report)")
                #expect(report["matched_by_search"] as? Int == 0)
                #expect((report["unmatched"] as? [Any])?.isEmpty == true)
                #expect(try await s.sandbox.requests().filter { $0.path == "/v1/search" }.isEmpty, "\(layout): no catalogue search")
                let playlist = try #require(report["playlist"] as? String, "\(layout)")
                #expect(try await s.sandbox.entries(of: playlist) == uris, "\(layout): the file's tracks, in order, on the server")
            }
        }
    }

    /// The searches are counted before any request: over the cap is exit 2 with nothing sent (dry
    /// run or not); under it, exactly one search per distinct title and artist. Duration (ms) is part
    /// of the match.
    @Test func importCapsItsCatalogSearchesBeforeSendingAny() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, _) = try await ownPlaylist(s)
            let before = try await s.sandbox.entries(of: id)
            let unknown =
                "Title,Artist,Album,Release Date,Duration,Spotify URI\n"
                + (0..<3).map { "Zzqx Never Recorded \($0),Nobody At All,,,3:00,\n" }.joined() + "Zzqx Never Recorded 0,Nobody At All,,,3:00,\n"
            try await s.sandbox.clearRequests()
            for dryRun in [["--dry-run"], []] {
                let refused = await s.cli.invoke(["import", "-", "--into", id, "--max-searches", "2"] + dryRun, stdin: unknown)
                #expect(refused.status == 2, "\(refused.stderr)")
                #expect(refused.stderr.contains("would search 3 rows: more than 2 — pass --max-searches 3"), "\(refused.stderr)")
            }
            let big = "Title,Artist\n" + (0..<501).map { "Zzqx Song \($0),Nobody\n" }.joined()
            let capped = await s.cli.invoke(["import", "-", "--name", "Too many", "--dry-run"], stdin: big)
            #expect(capped.status == 2 && capped.stderr.contains("would search 501 rows: more than 500 — pass --max-searches 501"), "\(capped.stderr)")
            #expect(await s.cli.invoke(["import", "-", "--into", id, "--max-searches", "-1"], stdin: unknown).status == 2)
            #expect(try await s.sandbox.requests().isEmpty, "refused before any request")

            // Allowed: one search per distinct row (the repeated row is searched once); nothing matches.
            let allowed = await s.cli.invoke(["import", "-", "--into", id, "--max-searches", "3", "--dry-run", "--json"], stdin: unknown)
            #expect(allowed.status == 3, "\(allowed.stderr)")
            #expect(try await s.sandbox.requests().filter { $0.path == "/v1/search" }.count == 3)
            // On a terminal, a progress bar follows the searches on stderr; without one, nothing does.
            let watched = await s.cli.invoke(["import", "-", "--into", id, "--max-searches", "3", "--dry-run"], stdin: unknown, tty: true)
            #expect(watched.status == 3 && watched.stderr.contains("3/3 searching the catalogue"), "\(watched.stderr)")
            #expect(!allowed.stderr.contains("searching the catalogue"))

            // Duration (ms) decides between a match and none: within 2 s matches, 5 s off does not.
            let cached = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            let known = try #require(cached.first { ($0["kind"] as? String) == "track" })
            let name = known["name"] as? String ?? "", artist = (known["artists"] as? [String])?.first ?? ""
            let ms = known["duration_ms"] as? Int ?? 0
            for (offset, matches) in [(1_500, true), (5_000, false)] {
                let file =
                    "\u{FEFF}" + ExportifyFormatTests.pavelHeader + "\n"
                    + ",\(CSVQuote(name)),\"\",\(CSVQuote(artist.replacingOccurrences(of: ";", with: "") + ";Someone Else")),,\(ms + offset),0,false,,,\"\",\"\"\n"
                let dry = await s.cli.invoke(["import", "-", "--into", id, "--dry-run", "--json"], stdin: file)
                let report = parse(dry.stdout) as? [String: Any] ?? [:]
                #expect(dry.status == (matches ? 0 : 3), "\(offset) ms off: \(dry.stderr)")
                #expect(report["matched_by_search"] as? Int == (matches ? 1 : 0), "\(offset) ms off")
            }
            #expect(try await s.sandbox.entries(of: id) == before, "dry runs and refusals write nothing")
        }
    }
}

/// What export does to a text cell before it is written, undone the way a reader undoes it: only the
/// formula guard's `'` (CSVCell) — control characters are dropped for good.
enum ExportedCell {
    static func cell(_ text: String) -> String {
        CSVCell.decode(String(CSVCell.encode(text).unquotedCSV))
    }
}

extension String {
    /// A cell as `CSVCell.encode` wrote it, without its quotes.
    var unquotedCSV: String {
        guard hasPrefix("\""), hasSuffix("\""), count >= 2 else { return self }
        return String(dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
    }
}
