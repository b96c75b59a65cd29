import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Dedupe, shuffle and sort against the sandbox: the server's final state, not only the cache.
extension SyncCLITests {
    @Test func dedupeKeepsTheFirstCopiesAndShuffleAndSortKeepEveryEntry() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let distinct = Set(original).count == original.count
            // Copies of the first track, twice, and of the second, once, after the originals.
            #expect(await s.cli.invoke(["playlist", "add", id, original[0], original[1], original[0]]).status == 0)
            let listed = await s.cli.invoke(["playlist", "dedupe", id, "--dry-run", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let plan = parse(listed.stdout) as? [String: Any] ?? [:]
            let duplicates = plan["duplicates"] as? [[String: Any]] ?? []
            if distinct {
                // Positions count from 1, as `timbre tracks` shows them.
                #expect(duplicates.map { $0["position"] as? Int ?? -1 } == [original.count + 1, original.count + 2, original.count + 3])
                #expect(duplicates.map { $0["duplicate_of"] as? Int ?? -1 } == [1, 2, 1])
            }
            #expect(try await s.sandbox.entries(of: id).count == original.count + 3, "a dry run writes nothing")
            let dedupe = await s.cli.invoke(["playlist", "dedupe", id])
            #expect(dedupe.status == 0, "\(dedupe.stderr)")
            // The first copies of the two tracks went out with every copy and came back: said so.
            #expect(dedupe.stdout.contains("kept copies of the same tracks were put back with today's added date"), "\(dedupe.stdout)")
            if distinct { #expect(dedupe.stdout.contains("; 2 kept copies"), "\(dedupe.stdout)") }
            let deduped = try await s.sandbox.entries(of: id)
            var seen = Set<String>()
            #expect(deduped == (original + [original[0], original[1], original[0]]).filter { seen.insert($0).inserted }, "first copies kept, in order")
            // Again: nothing to remove is a success (a cron job's dedupe of a clean playlist), sending no write.
            let writes = try await s.sandbox.writeRequests().count
            let again = await s.cli.invoke(["playlist", "dedupe", id, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect((parse(again.stdout) as? [String: Any])?["removed"] as? Int == 0)
            #expect(try await s.sandbox.writeRequests().count == writes)
            let plain = await s.cli.invoke(["playlist", "dedupe", id])
            #expect(plain.status == 0 && plain.stdout.contains("has no duplicates; nothing was sent"), "\(plain.stdout)")

            // Shuffle: the same entries, another order; undo: the old order exactly.
            #expect(await s.cli.invoke(["playlist", "shuffle", id]).status == 0)
            let shuffled = try await s.sandbox.entries(of: id)
            #expect(shuffled.sorted() == deduped.sorted())
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == deduped)

            // Sort by title: the names come back in order; the multiset is the same.
            #expect(await s.cli.invoke(["playlist", "sort", id, "--by", "title"]).status == 0)
            let names = (try await s.sandbox.playlistInfo(id)).items.map { $0.name ?? "" }
            #expect(
                names
                    == names.sorted {
                        $0.lowercased().folding(options: .diacriticInsensitive, locale: nil)
                            <= $1.lowercased().folding(options: .diacriticInsensitive, locale: nil)
                    } || names.count < 2)
            #expect(try await s.sandbox.entries(of: id).sorted() == deduped.sorted())
            #expect(await s.cli.invoke(["playlist", "sort", id, "--by", "year", "--reverse"]).status == 0)
            #expect(try await s.sandbox.entries(of: id).sorted() == deduped.sorted())
            #expect(await s.cli.invoke(["playlist", "sort", id, "--by", "colour"]).status == 2)
        }
    }

    /// Fuzzy dedupe on the sandbox's catalogue re-releases: "Song - Remastered 2011" within 2 s of
    /// "Song" by the same artist is a duplicate; a take 2.5 s off is not; duplicates of duplicates
    /// (the variant twice, the original again) all go, the first copy stays where it was.
    @Test func fuzzyDedupeRemovesReReleasesWithinTwoSecondsAndKeepsOtherTakes() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let variants = try await s.sandbox.variants()
            let close = variants.filter { abs($0.durationMS - $0.originalDurationMS) <= 2_000 }
            let far = variants.filter { abs($0.durationMS - $0.originalDurationMS) > 2_000 }
            #expect(close.count >= 2 && far.count >= 1, "the catalogue has both kinds")
            guard close.count >= 2, let other = far.first else { return }
            let (a, b) = (close[0], close[1])
            let created = await s.cli.invoke(["playlist", "create", "Remasters"])
            let id = created.stdout.trimmingCharacters(in: .newlines)
            #expect(created.status == 0, "\(created.stderr)")
            let list = [a.originalURI, b.uri, a.uri, other.originalURI, other.uri, b.originalURI, a.uri, a.originalURI]
            #expect(await s.cli.invoke(["playlist", "add", id] + list).status == 0)

            // Exact dedupe sees only the repeated URIs: the second a.uri and the second a.originalURI.
            let exact = await s.cli.invoke(["playlist", "dedupe", id, "--dry-run", "--json"])
            let exactFound = (parse(exact.stdout) as? [String: Any])?["duplicates"] as? [[String: Any]] ?? []
            // (Positions count from 1.)
            #expect(exactFound.map { $0["position"] as? Int ?? -1 } == [7, 8])
            #expect(exactFound.map { $0["duplicate_of"] as? Int ?? -1 } == [3, 1])

            // Fuzzy: a's variant (twice) and a again duplicate position 0; b's original duplicates b's
            // variant at 1 (the first copy is kept, whichever version it is); the far take stays.
            let fuzzy = await s.cli.invoke(["playlist", "dedupe", id, "--fuzzy", "--dry-run", "--json"])
            #expect(fuzzy.status == 0, "\(fuzzy.stderr)")
            let fuzzyFound = (parse(fuzzy.stdout) as? [String: Any])?["duplicates"] as? [[String: Any]] ?? []
            #expect(fuzzyFound.map { $0["position"] as? Int ?? -1 } == [3, 6, 7, 8])
            #expect(fuzzyFound.map { $0["duplicate_of"] as? Int ?? -1 } == [1, 2, 1, 1])
            #expect(try await s.sandbox.entries(of: id) == list, "dry runs write nothing")

            let done = await s.cli.invoke(["playlist", "dedupe", id, "--fuzzy", "--json"])
            #expect(done.status == 0, "\(done.stderr)")
            #expect((parse(done.stdout) as? [String: Any])?["removed"] as? Int == 4)
            #expect(try await s.sandbox.entries(of: id) == [a.originalURI, b.uri, other.originalURI, other.uri])
            // And undo puts every removed copy back where it was.
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(try await s.sandbox.entries(of: id) == list)
        }
    }

    @Test func aShuffleKilledAtAnyPointLeavesTheFullList() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (source, original) = try await ownPlaylist(s)
            _ = source
            // A new playlist of 2,500 track entries: the rewrite, ceil(2500/100) = 25 writes per shuffle
            // (`--rewrite`; the default, range moves, is killed in OrderCLITests).
            let created = await s.cli.invoke(["playlist", "create", "Kill me while I shuffle"])
            let id = created.stdout.trimmingCharacters(in: .newlines)
            #expect(created.status == 0 && id.count == 22, "\(created.stderr)")
            let tracks = original.filter { $0.hasPrefix("spotify:track:") }
            let entries = (0..<2_500).map { tracks[$0 % tracks.count] }
            #expect(await s.cli.invoke(["playlist", "add", id, "-"], stdin: entries.joined(separator: "\n")).status == 0)
            try await slowItemWrites(s, playlist: id)
            var generator = SystemRandomNumberGenerator()
            var interrupted = 0
            for round in 0..<6 {
                let before = try await s.sandbox.entries(of: id)
                // Killed after k of its 25 writes (replace the first 100, add the rest in 24).
                if try await runKilledAfter(s, writes: Int.random(in: 1...24, using: &generator), ["playlist", "shuffle", id, "--rewrite"]) {
                    interrupted += 1
                }
                let marker = tracks[round % tracks.count]
                let next = await s.cli.invoke(["playlist", "add", id, marker])
                #expect(next.status == 0, "round \(round): \(next.stderr)")
                let after = try await s.sandbox.entries(of: id)
                #expect(after.count == before.count + 1, "round \(round): never a truncated playlist (\(after.count) of \(before.count + 1))")
                #expect(after.sorted() == (before + [marker]).sorted(), "round \(round): the same entries")
            }
            #expect(interrupted >= 4, "\(interrupted) of 6 kills interrupted a shuffle")
        }
    }

    @Test func copyIntoANewPlaylistAndDuplicatesAcrossPlaylists() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let copied = await s.cli.invoke(["playlist", "copy", id, "new:Copy of mine", "--json"])
            #expect(copied.status == 0, "\(copied.stderr)")
            let newID = try #require(
                (parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? [])
                    .first { $0["name"] as? String == "Copy of mine" }?["id"] as? String)
            let sendable = original.filter { $0.hasPrefix("spotify:track:") || $0.hasPrefix("spotify:episode:") }
            #expect(try await s.sandbox.entries(of: newID) == sendable, "the same entries in the same order (local files left out)")
            // Copying again with --dedupe adds nothing: every entry is there already.
            let again = await s.cli.invoke(["playlist", "copy", id, newID, "--dedupe"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try await s.sandbox.entries(of: newID) == sendable)

            // Every copied track now appears in both playlists.
            let shared = parse(await s.cli.invoke(["duplicates", id, newID, "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(Set(shared.compactMap { $0["uri"] as? String }) == Set(sendable))
            let first = try #require(shared.first)
            let places = first["playlists"] as? [[String: Any]] ?? []
            #expect(places.map { $0["id"] as? String ?? "" } == [id, newID])
            #expect(places.allSatisfy { !($0["positions"] as? [Int] ?? []).isEmpty })
        }
    }

    @Test func statsAndExportReadTheCacheOffline() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, _) = try await ownPlaylist(s)
            let tracks = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            try await s.sandbox.clearRequests()

            let stats = parse(await s.cli.invoke(["stats", id, "--json"]).stdout) as? [String: Any] ?? [:]
            #expect(stats["entries"] as? Int == tracks.count)
            #expect(stats["duration_ms"] as? Int == tracks.reduce(0) { $0 + ($1["duration_ms"] as? Int ?? 0) })
            let years = stats["years"] as? [String: Int] ?? [:]
            #expect((years["min"] ?? 0) >= 1900 && (years["min"] ?? 0) <= (years["max"] ?? 0), "release dates are cached: \(stats)")
            #expect((stats["decades"] as? [String: Int] ?? [:]).values.reduce(0, +) <= tracks.count)
            #expect((stats["top_artists"] as? [[String: Any]] ?? []).count <= 5)

            let csv = await s.cli.invoke(["export", id])
            #expect(csv.status == 0, "\(csv.stderr)")
            let lines = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(
                lines.first
                    == "Track URI,Track Name,Artist URI(s),Artist Name(s),Album URI,Album Name,Album Artist URI(s),Album Artist Name(s),Album Release Date,Album Image URL,Disc Number,Track Number,Track Duration (ms),Track Preview URL,Explicit,Popularity,ISRC,Added By,Added At"
            )
            #expect(lines.count >= tracks.count + 1, "a header and a record per entry (quoted newlines may split a record)")
            let file = s.cli.home.appendingPathComponent("export.csv").path
            #expect(await s.cli.invoke(["export", id, "-o", file]).status == 0)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == csv.stdout)
            #expect(try await s.sandbox.requests().isEmpty, "stats and export send nothing")
            #expect(await s.cli.invoke(["stats", "0000000000000000000000"]).status == 1)
        }
    }

    @Test func exportThenImportGivesTheSameEntriesAndSearchMatchesTitles() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            // Every playlist the user can read, hostile names included, goes out and comes back.
            let model = try await s.sandbox.library(includeItems: false)
            let readable = (model["playlists"] as? [[String: Any]] ?? []).filter { ($0["readable_in_development_mode"] as? Bool) == true }
            var checked = 0
            for playlist in readable {
                guard let id = playlist["id"] as? String else { continue }
                let entries = try await s.sandbox.entries(of: id)
                // What the API can add again: tracks and episodes with a well-formed id (the cache skips malformed ones).
                let sendable = entries.filter { $0.range(of: #"^spotify:(track|episode):[0-9A-Za-z]{22}$"#, options: .regularExpression) != nil }
                guard !sendable.isEmpty else { continue }
                let file = s.cli.home.appendingPathComponent("\(id).csv").path
                #expect(await s.cli.invoke(["export", id, "-o", file]).status == 0)
                let imported = await s.cli.invoke(["import", file, "--name", "Round trip \(id)", "--json"])
                let report = parse(imported.stdout) as? [String: Any] ?? [:]
                // Local files and null tracks cannot be added through the API: they are the unmatched rows.
                let cached = (parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []).count
                #expect(imported.status == (sendable.count == cached ? 0 : 3), "\(id): \(imported.stderr)")
                #expect(report["matched_by_uri"] as? Int == sendable.count)
                let copy = try #require(report["playlist"] as? String)
                #expect(try await s.sandbox.entries(of: copy) == sendable, "\(id): the same URIs in the same order")
                checked += 1
            }
            #expect(checked >= 3)

            // A Timor row without a URI is found by title and artist; one that exists nowhere is listed, exit 3.
            let (id, _) = try await ownPlaylist(s)
            let tracks = parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []
            let known = try #require(tracks.first { ($0["kind"] as? String) == "track" })
            let name = known["name"] as? String ?? "", artist = (known["artists"] as? [String])?.first ?? ""
            let seconds = (known["duration_ms"] as? Int ?? 0) / 1000
            let timor =
                "Title,Artist,Album,Release Date,Duration,Spotify URI\n\(CSVQuote(name)),\(CSVQuote(artist)),,,\(seconds / 60):\(String(format: "%02d", seconds % 60)),\nZzqx Never Recorded,Nobody At All,,,3:00,\n"
            let before = try await s.sandbox.entries(of: id)
            let dry = await s.cli.invoke(["import", "-", "--into", id, "--dry-run", "--json"], stdin: timor)
            #expect(dry.status == 3, "\(dry.stderr)")
            let plan = parse(dry.stdout) as? [String: Any] ?? [:]
            #expect(plan["matched_by_search"] as? Int == 1)
            #expect((plan["unmatched"] as? [[String: Any]])?.first?["row"] as? Int == 3)
            #expect(try await s.sandbox.entries(of: id) == before, "a dry run writes nothing")
            let done = await s.cli.invoke(["import", "-", "--into", id], stdin: timor)
            #expect(done.status == 3)
            #expect(done.stdout.contains("Zzqx Never Recorded"))
            let after = try await s.sandbox.entries(of: id)
            #expect(after.count == before.count + 1)
            let added = try await s.sandbox.playlistInfo(id).items.last
            #expect(added?.name == name)
        }
    }

    @Test func foldersAreLocalAndShowInPlaylistsJSON() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let ids = (parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.filter {
                $0 != "liked"
            }
            try await s.sandbox.clearRequests()
            #expect(await s.cli.invoke(["folder", "create", "Road"]).status == 0)
            #expect(await s.cli.invoke(["folder", "create", "Work"]).status == 0)
            #expect(await s.cli.invoke(["folder", "create", "Road"]).status == 2, "names are unique")
            #expect(await s.cli.invoke(["folder", "create", "ROAD"]).status == 2, "ignoring case")
            #expect(await s.cli.invoke(["folder", "add", "Road", ids[0], ids[1]]).status == 0)
            #expect(await s.cli.invoke(["folder", "add", "work", ids[1]]).status == 0, "a playlist moves to the other folder (named in any case)")
            #expect(await s.cli.invoke(["folder", "rename", "Work", "Focus"]).status == 0)
            #expect(await s.cli.invoke(["folder", "add", "Nowhere", ids[2]]).status == 2)
            let list = parse(await s.cli.invoke(["folder", "list", "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(list.map { $0["name"] as? String ?? "" } == ["Road", "Focus"])
            #expect(list.map { ($0["playlists"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" } } == [[ids[0]], [ids[1]]])
            let playlists = parse(await s.cli.invoke(["playlists", "--json"]).stdout) as? [[String: Any]] ?? []
            let folderOf = Dictionary(playlists.map { ($0["id"] as? String ?? "", $0["folder"] as? String ?? "-") }, uniquingKeysWith: { a, _ in a })
            #expect(folderOf[ids[0]] == "Road" && folderOf[ids[1]] == "Focus" && folderOf[ids[2]] == "-")
            #expect(playlists.allSatisfy { $0.keys.contains("folder") })
            #expect(await s.cli.invoke(["folder", "delete", "Road"]).status == 0)
            #expect((parse(await s.cli.invoke(["folder", "list", "--json"]).stdout) as? [[String: Any]] ?? []).count == 1)
            #expect(try await s.sandbox.requests().isEmpty, "folders are local: nothing is sent")
        }
    }
}

/// A CSV field, quoted.
func CSVQuote(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
