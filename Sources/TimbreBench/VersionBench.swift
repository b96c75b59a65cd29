import Foundation
import TimbreCore
import TimbreLibrary

/// A year of daily syncs for the playlist versions, simulated where the recording happens: every
/// playlist of a synced cache recorded once (a new user's first sync), then each day 1 % of the
/// playlists change (a few entries removed, added and moved) and each changed one is recorded as
/// the sync records it — its list read from the cache, compared with its last version, stored —
/// followed by the prune a sync runs. Measures the versions' size on disk and each day's recording
/// time, which `Benchmarks/run.py` sets against a real sync with as many playlists changed, in the
/// same run (`--sync-ms`).
enum VersionBench {
    struct Options {
        var cache: String
        var days: Int
        var changePercent: Double
        var syncMS: Double?
    }

    static func run(_ options: Options) throws -> JSONValue {
        let cache = try LibraryCache.open(path: options.cache, verify: false, warn: { _ in })
        let ids = try cache.playlists().filter { !$0.isLiked && !$0.unavailable && $0.syncedAt != nil }.map(\.id)
        guard !ids.isEmpty else { throw VersionBenchError(message: "the cache has no synced playlists; sync first") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-bench-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("timbre.sqlite").path
        let stored = try UserData(path: path).versions

        let firstStart = ContinuousClock.now
        try stored.recordCached(ids, from: cache, source: .sync, at: Date(timeIntervalSince1970: 1_767_225_600))
        let firstMS = ms(ContinuousClock.now - firstStart)
        var states: [String: PlaylistState] = [:]
        for id in ids { states[id] = try PlaylistVersions.cachedState(cache, playlist: id) }
        let firstBytes = fileSize(path)

        var rng = Rng(seed: 36)
        let perDay = max(1, Int((Double(ids.count) * options.changePercent / 100).rounded()))
        var dayMS: [Double] = [], pruneMS: [Double] = [], readMS: [Double] = []
        var versions = ids.count, storedEntries = states.values.reduce(0) { $0 + $1.entries.count }
        for day in 1...max(1, options.days) {
            let seen = Date(timeIntervalSince1970: 1_767_225_600 + Double(day) * 86_400)
            var changed: [PlaylistState] = []
            for _ in 0..<perDay {
                let id = ids[rng.below(ids.count)]
                guard var state = states[id] else { continue }
                mutate(&state, seen: seen, rng: &rng)
                states[id] = state
                changed.append(state)
            }
            let start = ContinuousClock.now
            var read = 0.0
            for state in changed {
                // What the sync's recording reads: the list it has just written to the cache.
                let readStart = ContinuousClock.now
                _ = try PlaylistVersions.cachedState(cache, playlist: state.playlist)
                read += ms(ContinuousClock.now - readStart)
            }
            // One transaction for the day's changes, as the sync records them.
            for made in try stored.record(changed, source: .sync) {
                versions += 1
                storedEntries += made.entryCount
            }
            let pruneStart = ContinuousClock.now
            try stored.prune(before: PlaylistVersions.cutoff(keep: PlaylistVersions.defaultKeep, now: seen))
            pruneMS.append(ms(ContinuousClock.now - pruneStart))
            readMS.append(read)
            dayMS.append(ms(ContinuousClock.now - start))
        }
        let bytes = fileSize(path)
        // What one commit of one small row costs on this disk (the recording's one commit a sync
        // is mostly that): a deleted marker set and cleared, twenty times.
        var commitMS: [Double] = []
        for _ in 0..<20 {
            let start = ContinuousClock.now
            try stored.markDeleted(ids[0])
            try stored.markPresent([ids[0]])
            commitMS.append(ms(ContinuousClock.now - start) / 2)
        }
        let sorted = dayMS.sorted()
        let p50 = sorted[sorted.count / 2], p95 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
        var members: [(String, JSONValue)] = [
            ("days", .int(options.days)), ("playlists", .int(ids.count)), ("changed_per_day", .int(perDay)),
            ("versions", .int(versions)), ("entries_stored", .int(storedEntries)), ("first_record_ms", .double(firstMS)),
            ("bytes_after_first", .int(firstBytes)), ("bytes", .int(bytes)),
            ("bytes_per_entry", .double(Double(bytes) / Double(max(1, storedEntries)))),
            ("day_ms_p50", .double(p50)), ("cache_read_ms_p50", .double(readMS.sorted()[readMS.count / 2])),
            ("prune_ms_p50", .double(pruneMS.sorted()[pruneMS.count / 2])),
            ("commit_ms_p50", .double(commitMS.sorted()[commitMS.count / 2])), ("day_ms_p95", .double(p95)), ("day_ms_max", .double(sorted.last ?? 0)),
        ]
        if let sync = options.syncMS, sync > 0 {
            members += [("sync_ms", .double(sync)), ("ratio_p50", .double(p50 / sync))]
        }
        return .object(members)
    }

    /// A change another app or the user makes: up to 3 entries removed, up to 3 added (new
    /// tracks, dated `seen`), one moved.
    static func mutate(_ state: inout PlaylistState, seen: Date, rng: inout Rng) {
        var entries = state.entries
        for _ in 0..<rng.below(4) where !entries.isEmpty { entries.remove(at: rng.below(entries.count)) }
        for _ in 0..<(1 + rng.below(3)) {
            let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
            let id = String((0..<22).map { _ in alphabet[rng.below(alphabet.count)] })
            entries.insert(VersionEntry(uri: "spotify:track:" + id, addedAt: ClockText.iso(seen), addedBy: "bench"), at: rng.below(entries.count + 1))
        }
        if entries.count > 1 { entries.insert(entries.remove(at: rng.below(entries.count)), at: rng.below(entries.count)) }
        state.entries = entries
        state.details.snapshotID = "bench-\(seen.timeIntervalSince1970)-\(entries.count)"
        state.seenAt = seen
    }

    static func fileSize(_ path: String) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// SplitMix64: the same changes every run.
    struct Rng {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
    }
}

struct VersionBenchError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
