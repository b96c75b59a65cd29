import ArgumentParser
import Foundation
import TimbreCore
import TimbreLibrary
import TimbreTUI

/// In-process measurements of the TUI's code paths over a real cache: the same calls the app makes
/// (`LibraryCache.open`, `CacheLibrarySource`, `TUIState` filter/sort, `Screen.render`), timed with
/// `ContinuousClock`. Prints one JSON object on stdout; `scripts/bench.sh` turns it into a table.
@main
struct TimbreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timbre-bench",
        abstract: "Measures timbre's TUI code paths (first frame, / filter, F search, sort, render) over a cache.")

    @Option(help: "The cache database (library.sqlite) to read.")
    var cache: String?

    @Flag(help: "Print the write budgets of edits (planned exactly as `timbre` sends them) against a naive client's, and exit.")
    var editBudgets = false

    @Flag(help: "Simulate a year of daily syncs for the playlist versions over --cache (JSON: size on disk, recording time per day), and exit.")
    var history = false

    @Option(help: "With --history: days simulated.")
    var historyDays = 365

    @Option(help: "With --history: percent of the playlists that change each day.")
    var changePercent = 1.0

    @Option(help: "With --history: the wall time of a real sync with as many playlists changed (ms), for the ratio.")
    var syncMs: Double?

    @Option(help: "Repetitions of each cheap measurement.")
    var iterations = 5

    @Option(help: "Terminal rows the frames are laid out for.")
    var rows = 40

    @Option(help: "Terminal columns the frames are laid out for.")
    var columns = 120

    @Option(help: "Queries typed into `/` one key at a time (comma-separated).")
    var filterQueries = "river,the night,ghost,beyonce,zzqx"

    @Option(help: "Queries for `F` (comma-separated).")
    var searchQueries = "river,beyonce,zzqx"

    @Option(help: "Repetitions of each `F` search (each of the index and the scan), for its p95.")
    var searchIterations = 40

    @Flag(help: "Skip the filter over every cached item (the slowest figure).")
    var skipAllItems = false

    mutating func run() throws {
        if editBudgets {
            print(try EditBudgets.table())
            return
        }
        guard let cache else { throw ValidationError("--cache is required (or --edit-budgets)") }
        if history {
            print(try VersionBench.run(.init(cache: cache, days: historyDays, changePercent: changePercent, syncMS: syncMs)).serialized())
            return
        }
        var out = Report()
        let warn: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("warning: \($0)\n".utf8)) }

        // 1. First complete frame: open the cache, list playlists, load the selected one (Liked Songs), lay out.
        var firstFrame: [Double] = []
        var state = TUIState()
        var source: CacheLibrarySource!
        var openedCache: LibraryCache!
        for _ in 0..<max(1, iterations) {
            var s = TUIState()
            let t = ContinuousClock.now
            let libraryCache = try LibraryCache.open(path: cache, verify: false, warn: warn)  // as `timbre` (the interface) opens it
            let src = CacheLibrarySource(cache: libraryCache)
            s.setPlaylists(try src.playlists())
            if let first = s.selectedPlaylist { s.setTracks(try src.tracks(of: first.id), of: first.id) }
            s.pageSize = rows - 4
            let frame = Screen.render(s, rows: rows, columns: columns)
            firstFrame.append(ms(since: t))
            precondition(frame.count == rows)
            state = s
            source = src
            openedCache = libraryCache
        }
        out.add(
            "first_frame_ms", samples: firstFrame, note: "open cache + playlists + Liked Songs (\(state.tracks.count) rows) + Screen.render \(columns)x\(rows)")
        out.memory("after_first_frame")

        // 2. The biggest playlist: open it (load + sort + render).
        let playlists = state.playlists
        guard let big = playlists.filter({ $0.id != "liked" }).max(by: { $0.trackCount < $1.trackCount }) else {
            throw ValidationError("the cache has no playlists; sync first")
        }
        var openSamples: [Double] = []
        var bigRows: [EntryRow] = []
        for _ in 0..<max(1, iterations) {
            var s = state
            let t = ContinuousClock.now
            bigRows = try source.tracks(of: big.id)
            s.setTracks(bigRows, of: big.id)
            _ = Screen.render(s, rows: rows, columns: columns)
            openSamples.append(ms(since: t))
        }
        out.add("open_largest_playlist_ms", samples: openSamples, note: "\(bigRows.count) rows: CacheLibrarySource.tracks + setTracks + render")
        out.memory("after_open_largest")

        // 3. `/` filter, one keystroke at a time, on the largest playlist.
        var bigState = state
        bigState.setTracks(bigRows, of: big.id)
        bigState.apply(.focus(.tracks))
        let queries = filterQueries.split(separator: ",").map(String.init)
        out.add(
            "filter_largest_keystroke_ms", samples: keystrokes(&bigState, queries: queries, rounds: max(1, iterations / 2)),
            note: "\(bigRows.count) rows; type + Screen.render per key; queries \(queries)")

        // 4. Sort the largest playlist by title (the `s` key), then back to position.
        var sortSamples: [Double] = []
        for _ in 0..<max(1, min(iterations, 3)) {
            var s = bigState
            let t = ContinuousClock.now
            s.apply(.order(.set(.title, nil)))
            _ = Screen.render(s, rows: rows, columns: columns)
            sortSamples.append(ms(since: t))
        }
        out.add("sort_title_largest_ms", samples: sortSamples, note: "\(bigRows.count) rows: apply(.sort(title)) + render")

        try measureSearch(&out, state: state, source: source, cache: openedCache)
        try measureAllItems(&out, state: state, source: source, queries: queries)
        out.memory("end")
        print(out.json())
    }

    /// 5. `F` through the index against the scan of every item, and what the index costs to build.
    private func measureSearch(_ out: inout Report, state: TUIState, source: CacheLibrarySource, cache openedCache: LibraryCache) throws {
        // 5. `F`: every cached playlist, through `LibrarySource.search` exactly as `TUIApp` runs it
        //    (the cache's search index), and the same search by scanning every item
        //    (`LibraryCache.searchByScan`, what `F` did before the index) as the peer, alternated
        //    query by query so drift hits both alike. Both answers must be equal.
        for query in searchQueries.split(separator: ",").map(String.init) {
            var indexSamples: [Double] = []
            var scanSamples: [Double] = []
            var hitCount = 0
            for _ in 0..<max(1, searchIterations) {
                var s = state
                var t = ContinuousClock.now
                let hits = try source.search(query, limit: 1000)
                s.showSearchResults(hits, query: query)
                _ = Screen.render(s, rows: rows, columns: columns)
                indexSamples.append(ms(since: t))
                hitCount = hits.count

                var p = state
                t = ContinuousClock.now
                let scanned = try openedCache.searchByScan(SearchText.foldedBytes(query), limit: 1000).map {
                    TUIState.SearchHit(
                        playlistID: $0.playlistID, playlistName: $0.playlistName,
                        track: EntryRow(
                            position: $0.item.position, title: $0.item.name, artist: $0.item.artists.joined(separator: ", "),
                            album: $0.item.album ?? "", durationMS: $0.item.durationMS, addedAt: $0.item.addedAt,
                            uri: $0.item.uri, year: $0.item.year))
                }
                p.showSearchResults(scanned, query: query)
                _ = Screen.render(p, rows: rows, columns: columns)
                scanSamples.append(ms(since: t))
                // The same entries found (the field each matched is worked out only for the index's).
                func found(_ list: [TUIState.SearchHit]) -> [String] { list.map { "\($0.playlistID) \($0.track.position) \($0.track.uri)" } }
                guard found(scanned) == found(hits) else {
                    throw ValidationError("F \(query): the index's \(hits.count) hits differ from the scan's \(scanned.count)")
                }
            }
            out.add("search_ms[\(query)]", samples: indexSamples, note: "\(hitCount) hits (cap 1000) over every cached item; index search + render")
            out.add("search_scan_ms[\(query)]", samples: scanSamples, note: "\(hitCount) hits; every item folded and matched (no index) + render")
        }
        out.memory("after_search")

        // 5b. What the index costs a sync: every list's row built again from the stored items
        //     (read, fold, store), as one write transaction. A sync folds and stores the same
        //     rows as it writes each list; it does not read the items back, so this is an upper bound.
        var buildSamples: [Double] = []
        var indexed = 0
        for _ in 0..<3 {
            let t = ContinuousClock.now
            indexed = try openedCache.rebuildSearchIndex()
            buildSamples.append(ms(since: t))
        }
        out.add("search_index_build_ms", samples: buildSamples, note: "\(indexed) items: every list's folded text rebuilt from the cache in one transaction")
    }

    /// 6. `/` over every cached item at once.
    private func measureAllItems(_ out: inout Report, state: TUIState, source: CacheLibrarySource, queries: [String]) throws {
        let playlists = state.playlists
        // 6. `/` over every cached item at once (a 200k-row list on the large library).
        if !skipAllItems {
            var merged: [EntryRow] = []
            for playlist in playlists { merged += (try? source.tracks(of: playlist.id)) ?? [] }
            var allState = state
            let t = ContinuousClock.now
            allState.setTracks(merged, of: "all")
            let setAll = ms(since: t)
            allState.apply(.focus(.tracks))
            out.add("set_all_items_ms", samples: [setAll], note: "setTracks with \(merged.count) rows")
            out.add(
                "filter_all_keystroke_ms", samples: keystrokes(&allState, queries: Array(queries.prefix(3)), rounds: 1),
                note: "\(merged.count) rows; type + Screen.render per key")
            out.memory("after_all_items_list")
        }
    }

    /// Types every query into `/` one character at a time, then erases it; each key is one sample.
    private func keystrokes(_ state: inout TUIState, queries: [String], rounds: Int) -> [Double] {
        var samples: [Double] = []
        for _ in 0..<rounds {
            for query in queries {
                state.apply(.filter(nil))
                for character in query {
                    let t = ContinuousClock.now
                    _ = state.type(.character(character))
                    _ = Screen.render(state, rows: rows, columns: columns)
                    samples.append(ms(since: t))
                }
                for _ in query {
                    let t = ContinuousClock.now
                    _ = state.type(.backspace)
                    _ = Screen.render(state, rows: rows, columns: columns)
                    samples.append(ms(since: t))
                }
                _ = state.type(.escape)
            }
        }
        return samples
    }
}

func ms(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// Collected figures, printed as JSON: name → {median, p50, p95, max, n, note}.
struct Report {
    private var lines: [String] = []
    private var memoryLines: [String] = []

    mutating func add(_ name: String, samples: [Double], note: String) {
        let sorted = samples.sorted()
        func pct(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded(.up)))]
        }
        let median = sorted.isEmpty ? 0 : (sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2)
        let f = { (x: Double) in String(format: "%.3f", x) }
        lines.append(
            "\"\(name)\": {\"median\": \(f(median)), \"p50\": \(f(pct(0.5))), \"p95\": \(f(pct(0.95))), \"max\": \(f(sorted.last ?? 0)), \"n\": \(sorted.count), \"note\": \(quote(note))}"
        )
        FileHandle.standardError.write(Data("\(name): median \(f(median)) ms, p95 \(f(pct(0.95))) ms, n \(sorted.count) — \(note)\n".utf8))
    }

    mutating func memory(_ stage: String) {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func kb(_ key: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
                return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
            }
            return 0
        }
        memoryLines.append("\"\(stage)\": {\"rss_kb\": \(kb("VmRSS")), \"hwm_kb\": \(kb("VmHWM"))}")
        FileHandle.standardError.write(Data("memory \(stage): VmRSS \(kb("VmRSS")) kB, VmHWM \(kb("VmHWM")) kB\n".utf8))
    }

    func json() -> String {
        "{\"figures\": {\(lines.joined(separator: ", "))}, \"memory\": {\(memoryLines.joined(separator: ", "))}}"
    }

    private func quote(_ s: String) -> String {
        var r = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": r += "\\\""
            case "\\": r += "\\\\"
            case _ where u.value < 0x20: r += String(format: "\\u%04x", u.value)
            default: r.unicodeScalars.append(u)
            }
        }
        return r + "\""
    }
}
