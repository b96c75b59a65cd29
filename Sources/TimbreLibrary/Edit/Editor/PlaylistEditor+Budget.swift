import Foundation
import TimbreCore
import TimbreNet

/// The requests around an edit's writes. When the cache holds the playlist at Spotify's snapshot,
/// an edit costs one small read (the snapshot) and its writes: it is planned on the cache, and the
/// cache after it is derived from the plan — Spotify's semantics simulated write by write — and
/// stamped with the snapshot the last write's answer gave. The playlist's entries are read only
/// when the snapshot says the cache is not Spotify's (someone changed the playlist), or when the
/// outcome cannot be derived (an answer without a snapshot, a lost answer, an added episode or
/// many added tracks the cache has never seen).
extension PlaylistEditor {
    /// The playlist an edit is planned on: the cache's list when its snapshot is Spotify's, else
    /// Spotify's, read in full. Ownership is checked before any entry is read (Spotify does not
    /// show another user's entries to a development-mode app).
    func planningBase(_ id: SpotifyID) async throws -> LivePlaylist {
        try refuseKnownForeign(id)
        if let (cached, entries) = try cache.playlistWithItems(.playlist(id)), cached.snapshotID != nil, !cached.unavailable {
            let probe = try await measured { try await LivePlaylist.probe(id, api: api) }
            let meta = PlaylistMeta(
                id: cached.id, name: cached.name, ownerID: cached.ownerID, ownerName: cached.ownerName, snapshotID: probe.snapshotID,
                total: probe.total ?? cached.trackCount, collaborative: cached.collaborative, isPublic: cached.isPublic,
                legacyShape: probe.legacyShape)
            try await checkPermission(meta)
            if probe.snapshotID == cached.snapshotID, probe.total == cached.trackCount,
                let live = LivePlaylist(trustingCache: cached, entries: entries, legacyShape: probe.legacyShape)
            {
                return live
            }
            // Changed on Spotify since the cache's snapshot: planned on what Spotify holds, read
            // between the probe (the first of the two reads of its details) and one more, whose
            // details are checked again.
            let live = try await LivePlaylist.read(id, api: api, known: meta, state: fetchState)
            try await checkPermission(live.meta)
            return live
        }
        let meta = try await measured { try await LivePlaylist.meta(id, api: api) }
        try await checkPermission(meta)
        return try await LivePlaylist.read(id, api: api, known: meta, state: fetchState)
    }

    /// `read`, its time kept as the pace of this run's requests (`measuredRoundTrip`).
    func measured<T>(_ read: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try await read()
        let took = (clock.now - start).components
        measuredRoundTrip.withLock { $0 = Double(took.seconds) + Double(took.attoseconds) / 1e18 }
        return value
    }

    /// Brings the cache to the playlist the writes left: derived from the plan when the last
    /// write's answer gave the snapshot, else read. Returns the snapshot and any warnings.
    func storeAfter(_ plan: EntryEdit.Plan, on live: LivePlaylist, snapshot: String?, playlist: SpotifyID) async throws -> (
        snapshotID: String?, warnings: [String]
    ) {
        if let snapshot, let entries = try await derivedEntries(plan, from: live) {
            var meta = live.meta
            meta.snapshotID = snapshot
            meta.total = plan.result.count
            try await cache.replaceEntries(of: meta, trackCount: plan.result.count, items: entries)
            return (snapshot, [])
        }
        let final = try await LivePlaylist.read(playlist, api: api, state: fetchState)
        return (final.meta.snapshotID, try await store(final, expected: plan.result))
    }

    /// The cache's entries after `plan` on `live`: entries that stay keep their rows (moved to
    /// their new positions); entries Spotify adds (new ones, and copies a removal put back) get
    /// their track's details from the list, elsewhere in the cache or the catalogue, added now by
    /// the user. Nil when a track added cannot be named so or the simulation disagrees with the plan.
    func derivedEntries(_ plan: EntryEdit.Plan, from live: LivePlaylist) async throws -> [CachedEntry]? {
        let before = live.items.items
        let added = EntryWrite.added(by: plan.writes)
        var known: [String: CachedEntry] = [:]
        for entry in before where added.contains(entry.uri) && known[entry.uri] == nil { known[entry.uri] = entry }
        var missing = added.subtracting(known.keys)
        if !missing.isEmpty {
            for (uri, entry) in try cache.anyEntries(uris: missing) { known[uri] = entry }
            missing.subtract(known.keys)
        }
        // Tracks the cache has never seen: asked one by one when that is cheaper than reading the
        // list (⌈n/50⌉ + 2 requests); episodes, and any track not found, leave it to the read.
        if !missing.isEmpty {
            guard Self.asksOneByOne(missing, listCount: plan.result.count), let found = await catalogEntries(missing) else { return nil }
            known.merge(found) { old, _ in old }
        }
        let user = try? knownUser.current ?? cache.playlist(.liked)?.ownerID
        return Self.derive(plan, before: before, known: known, addedAt: ClockText.iso(Date()), addedBy: user)
    }

    /// A row for each of `uris` from the catalogue (`GET /tracks/{id}`, the track object an items
    /// page carries, read by the same decoder; as many at once as the rate budget allows); nil when
    /// one is not a track or is not found.
    func catalogEntries(_ uris: Set<String>) async -> [String: CachedEntry]? {
        var ids: [(uri: String, id: SpotifyID)] = []
        for uri in uris.sorted() {
            let parts = uri.split(separator: ":")
            guard parts.count == 3, parts[1] == "track", let id = SpotifyID(String(parts[2])) else { return nil }
            ids.append((uri, id))
        }
        let api = self.api
        let pairs = ids
        guard
            let answers = try? await PlaylistReader.fetchAll(
                from: 0, to: pairs.count, by: 1, workers: api.pacing.maxConcurrent,
                { index in
                    try await api.get("tracks/\(pairs[index].id.rawValue)").body
                })
        else { return nil }
        var found: [String: CachedEntry] = [:]
        for (index, pair) in pairs.enumerated() {
            guard let body = answers[index] else { return nil }
            // One entry of an items page around the track object: the page's decoder reads it.
            var page = Data(#"{"total":1,"items":[{"added_at":null,"is_local":false,"item":"#.utf8)
            page.append(body)
            page.append(Data("}]}".utf8))
            guard let decoded = try? API.decode(page, as: EntryPage.self), let entry = EntryList(decoded.rows).items.first, entry.uri == pair.uri
            else { return nil }
            found[pair.uri] = entry
        }
        return found
    }

    /// What `derivedEntries` computes, without the cache: `before` the list's rows (gaps where an
    /// entry has none), `known` a row for every URI the plan adds.
    static func derive(
        _ plan: EntryEdit.Plan, before: [CachedEntry], known: [String: CachedEntry], addedAt: String, addedBy: String?
    ) -> [CachedEntry]? {
        enum Token {
            case old(Int)
            case new(String)
        }
        var byPosition = [CachedEntry?](repeating: nil, count: plan.before.count)
        for entry in before where byPosition.indices.contains(entry.position) { byPosition[entry.position] = entry }
        var tokens = plan.before.indices.map { Token.old($0) }
        func uri(_ token: Token) -> String {
            switch token {
            case .old(let position): return plan.before[position]
            case .new(let uri): return uri
            }
        }
        for write in plan.writes {
            guard write.apply(to: &tokens, uri: uri, new: Token.new) else { return nil }
        }
        guard tokens.map(uri) == plan.result else { return nil }
        var result: [CachedEntry] = []
        result.reserveCapacity(tokens.count)
        for (index, token) in tokens.enumerated() {
            switch token {
            case .old(let position):
                // An entry Spotify cannot name has no row: it stays a gap, at its new position.
                guard var entry = byPosition[position] else { continue }
                entry.position = index
                result.append(entry)
            case .new(let uri):
                guard var entry = known[uri] else { return nil }
                entry.position = index
                entry.addedAt = addedAt
                entry.addedBy = addedBy
                result.append(entry)
            }
        }
        return result
    }
}
