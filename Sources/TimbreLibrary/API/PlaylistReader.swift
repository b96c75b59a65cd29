import Foundation
import TimbreCore
import TimbreNet

/// What a run (a sync, or an editor's life) has learned about the server, shared by every task of it.
struct ReaderState: Sendable {
    /// `/items`' page size: 50, the most Spotify's description allows, from the first request (a
    /// larger `limit` is a 400 and a wasted request). A server that still answers 400 "Invalid
    /// limit" to a larger one brings it down to 50 for the rest of the run.
    var itemsLimit = 50
}

/// A body that is not the JSON we asked for, on every attempt.
struct MalformedResponse: Error, CustomStringConvertible {
    var path: String
    var attempts: Int
    var description: String { "Spotify sent an unreadable response for \(path) (\(attempts) attempts)" }
}

/// A `total` no real library has: the answer is broken, and acting on it would do harm.
struct ImplausibleTotal: Error, CustomStringConvertible {
    var what: String
    var reported: Int
    var limit: Int
    var description: String { "Spotify reported \(reported) \(what), more than the \(limit) timbre accepts; nothing was changed" }
}

/// The entries of one list (a playlist's items or Liked Songs), in order, with the totals the
/// pages reported.
struct FetchedList: Sendable {
    /// Page by page, in order.
    var pages: [EntryPage]
    /// Entries, usable or not.
    var count: Int { pages.reduce(0) { $0 + $1.entries } }
    /// The first page's total.
    var total: Int
    /// Every page reported the same total and the entries add up to it.
    var consistent: Bool
}

/// The one reader of playlists and Liked Songs, shared by the sync (every page of a library)
/// and the editor (a playlist's snapshot and entries before and after an edit): paging through
/// the Web API with what a run — or an editor's life — has learned of the server (`ReaderState`).
struct PlaylistReader: Sendable {
    let api: any SpotifyAPI
    let state: Locked<ReaderState>

    /// Disc and track number, explicit, ISRC, the artists' ids and who added an entry are asked
    /// for `export` (Exportify's columns): they come with the same requests.
    static let itemFields =
        "id,uri,name,type,duration_ms,is_local,disc_number,track_number,explicit,external_ids(isrc),"
        + "artists(id,name),album(id,name,release_date),show(name)"
    /// Only what the cache stores: a full items page is ~470 KB, this is several times smaller.
    /// 2026 entries carry `item`; only a server of the older shape (read through `/tracks`) is
    /// asked for the deprecated `track`.
    static let entryFields = "next,total,items(added_at,added_by(id),is_local,item(\(itemFields)))"
    static let legacyEntryFields = "next,total,items(added_at,added_by(id),is_local,track(\(itemFields)))"
    static let playlistFields = "id,name,owner(id,display_name),snapshot_id,collaborative,public,items(total),tracks(total)"

    /// GET and decode; a body that does not decode (truncated, garbled) is transient like a 5xx:
    /// fetched again after a backoff, up to the executor's retry bound.
    func getDecoded<T: JSONReadable>(_ path: String, as type: T.Type) async throws -> T {
        try await getDecoded(path) { try API.decode($0, as: T.self) }
    }

    func getDecoded<T>(_ path: String, _ decode: (Data) throws -> T) async throws -> T {
        var attempts = 0
        while true {
            let response = try await api.get(path)
            do {
                return try decode(response.body)
            } catch {
                attempts += 1
                guard attempts <= api.pacing.maxRetries else { throw MalformedResponse(path: Self.describe(path), attempts: attempts) }
                try await api.pacing.backOff(attempts - 1)
            }
        }
    }

    /// `/me/playlists`, every page; the first decides the total, the rest are fetched at once.
    func userPlaylists() async throws -> [API.Playlist] {
        try await playlistPages(limit: 50) { offset, limit in
            try await getDecoded("me/playlists?offset=\(offset)&limit=\(limit)", as: API.Page<API.Playlist>.self)
        }.entries.compactMap { $0 }
    }

    func playlist(_ id: SpotifyID) async throws -> API.Playlist {
        try await getDecoded("playlists/\(id.rawValue)?fields=\(Self.playlistFields)", as: API.Playlist.self)
    }

    /// Liked Songs' first page, with its fingerprint.
    func likedFirstPage() async throws -> EntryPage {
        try await getDecoded(Self.likedPath(offset: 0)) { try EntryPage.decode($0, fingerprint: true) }
    }

    /// Liked Songs after the first page. `known`: pages of this version of the list read by an
    /// earlier, stopped sync (by offset, of 50 entries), not asked again; `sink` gets the body of
    /// every page read here.
    func likedRest(first: EntryPage, known: [Int: EntryPage] = [:], sink: PageSink? = nil) async throws -> FetchedList {
        sink?.begin(limit: 50)
        return try await entryPages(limit: 50, first: first, known: known, cap: Self.maxLikedEntries) { offset, limit in
            let (page, body) = try await getDecoded(Self.likedPath(offset: offset, limit: limit)) { (try EntryPage.decode($0), $0) }
            sink?.put(body, at: offset)
            return page
        }
    }

    static func likedPath(offset: Int, limit: Int = 50) -> String { "me/tracks?offset=\(offset)&limit=\(limit)" }

    /// A playlist's entries via `/items` (or, when its object had the older shape, `/tracks`).
    /// `known`: pages of this snapshot read by an earlier, stopped sync (by offset), with the page
    /// size `knownLimit` they were read with: not asked again (the first one included, which
    /// tells the total). `sink` gets the body of every page read here, and the page size.
    func playlistEntries(
        _ id: String, legacy: Bool, known: [Int: EntryPage] = [:], knownLimit: Int? = nil, sink: PageSink? = nil
    ) async throws -> FetchedList {
        let first: EntryPage, size: Int
        if let knownLimit, let page = known[0] {
            (first, size) = (page, knownLimit)
        } else {
            let (page, used, body) = try await itemsPage(id, offset: 0, limit: state.current.itemsLimit, legacy: legacy)
            (first, size) = (page, used)
            sink?.put(body, at: 0)
        }
        sink?.begin(limit: size)
        // Pages of another size do not line up with these offsets.
        let reusable = size == knownLimit ? known : [:]
        return try await entryPages(limit: size, first: first, known: reusable, cap: Self.maxPlaylistEntries) { offset, limit in
            try await itemsChunk(id, offset: offset, size: limit, legacy: legacy, sink: sink)
        }
    }

    /// `size` entries from `offset`, in one request or, after the limit fell back, in several
    /// (kept in `sink` only when one request brought them).
    private func itemsChunk(_ id: String, offset: Int, size: Int, legacy: Bool, sink: PageSink?) async throws -> EntryPage {
        var chunk = EntryPage()
        var total: Int?
        var consistent = true
        var position = offset
        var bodies: [Data] = []
        while position < offset + size {
            let (page, used, body) = try await itemsPage(
                id, offset: position, limit: min(offset + size - position, state.current.itemsLimit), legacy: legacy)
            if let total, page.total != total { consistent = false }
            total = total ?? page.total
            chunk.append(page)
            bodies.append(body)
            if page.entries < used { break }
            position += used
        }
        // A page whose pieces disagree reports no total, which marks the list inconsistent.
        chunk.total = consistent ? total : -1
        if consistent, bodies.count == 1, let body = bodies.first { sink?.put(body, at: offset) }
        return chunk
    }

    /// One items page, the limit it was fetched with and the body it came in. A 404 is the answer
    /// for this playlist (Spotify's own playlists, or one deleted meanwhile): it is never taken as
    /// a reason to try another endpoint.
    private func itemsPage(_ id: String, offset: Int, limit: Int, legacy: Bool) async throws -> (EntryPage, Int, Data) {
        var limit = limit
        while true {
            let path =
                "playlists/\(id)/\(legacy ? "tracks" : "items")?offset=\(offset)&limit=\(limit)"
                + "&additional_types=track,episode&fields=\(legacy ? Self.legacyEntryFields : Self.entryFields)"
            do {
                let (page, body) = try await getDecoded(path) { (try EntryPage.decode($0), $0) }
                return (page, limit, body)
            } catch let error as SpotifyError {
                if case .api(400, let message, _) = error, message.localizedCaseInsensitiveContains("invalid limit"), limit > 50 {
                    state.withLock { $0.itemsLimit = min($0.itemsLimit, 50) }
                    limit = 50
                    continue
                }
                throw error
            }
        }
    }

    /// Every page of a list: the first one tells the total, the others (but the `known` ones)
    /// are requested at once.
    private func entryPages(
        limit: Int, first: EntryPage?, known: [Int: EntryPage] = [:], cap: Int, page: @escaping @Sendable (Int, Int) async throws -> EntryPage
    ) async throws -> FetchedList {
        let firstPage: EntryPage
        if let first { firstPage = first } else { firstPage = try await page(0, limit) }
        return try await collect(limit: limit, firstPage: firstPage, known: known, cap: cap, page: page)
    }

    private func playlistPages(
        limit: Int, page: @escaping @Sendable (Int, Int) async throws -> API.Page<API.Playlist>
    ) async throws -> (entries: [API.Playlist?], total: Int) {
        let firstPage = try await page(0, limit)
        let reported = firstPage.total ?? firstPage.items.count
        // A list cut short would read as playlists deleted on Spotify: refuse it instead.
        guard reported <= Self.maxPlaylists else { throw ImplausibleTotal(what: "playlists", reported: reported, limit: Self.maxPlaylists) }
        var pages = try await Self.fetchAll(from: limit, to: reported, by: limit, workers: workers) { try await page($0, limit).items }
        pages[0] = firstPage.items
        return (pages.keys.sorted().flatMap { pages[$0] ?? [] }, reported)
    }

    /// The most entries a playlist holds (Spotify's limit): a larger `total` is not believed.
    static let maxPlaylistEntries = 10_000
    /// Liked Songs has no published limit; past this a `total` is taken for a broken answer.
    static let maxLikedEntries = 500_000
    /// Playlists one user follows, past which a `total` is taken for a broken answer.
    static let maxPlaylists = 100_000

    /// Page requests of one list in flight at once: enough to keep every slot of the rate budget
    /// busy, and no more — a `total` of five billion must not become a task per page.
    var workers: Int { api.pacing.maxConcurrent }

    /// `fetch` for every offset, keyed by offset, by at most `workers` tasks that take the next
    /// offset as they finish one. Each result is kept as its task ends; the first error cancels
    /// the rest and is thrown.
    static func fetchAll<Page: Sendable>(
        from start: Int, to end: Int, by step: Int, workers: Int, _ fetch: @escaping @Sendable (Int) async throws -> Page
    ) async throws -> [Int: Page] {
        guard step > 0, end > start else { return [:] }
        return try await fetchAll(offsets: Array(stride(from: start, to: end, by: step)), workers: workers, fetch)
    }

    /// `fetch` for each of `offsets`, as above — except that when requests stop
    /// (`RequestsStopped`: the daily quota, `--max-requests`) nothing is cancelled: the requests
    /// already out are answered and their pages reach whoever keeps them (a `PageSink`), each
    /// task ends when its next request is refused, and then the stop is thrown.
    static func fetchAll<Page: Sendable>(
        offsets: [Int], workers: Int, _ fetch: @escaping @Sendable (Int) async throws -> Page
    ) async throws -> [Int: Page] {
        guard !offsets.isEmpty else { return [:] }
        let pages = Locked<[Int: Page]>([:])
        let next = Locked(0)
        let stopped = Locked<RequestsStopped?>(nil)
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<min(max(1, workers), offsets.count) {
                group.addTask {
                    while true {
                        let index = next.withLock { index -> Int? in
                            guard index < offsets.count else { return nil }
                            defer { index += 1 }
                            return index
                        }
                        guard let index else { return }
                        try Task.checkCancellation()
                        do {
                            let result = try await fetch(offsets[index])
                            pages.withLock { $0[offsets[index]] = result }
                        } catch let stop as RequestsStopped {
                            stopped.withLock { $0 = $0 ?? stop }
                            return
                        }
                    }
                }
            }
        }
        if let stop = stopped.current { throw stop }
        return pages.current
    }

    private func collect(
        limit: Int, firstPage: EntryPage, known: [Int: EntryPage], cap: Int,
        page: @escaping @Sendable (Int, Int) async throws -> EntryPage
    ) async throws -> FetchedList {
        let reported = firstPage.total ?? firstPage.entries
        // Never more pages than the list can hold; a clamped list is inconsistent, so it is not stored.
        let total = min(reported, cap)
        let offsets = limit > 0 ? Array(stride(from: limit, to: total, by: limit)) : []
        var pages = try await Self.fetchAll(offsets: offsets.filter { known[$0] == nil }, workers: workers) { try await page($0, limit) }
        for offset in offsets { if let kept = known[offset] { pages[offset] = kept } }
        pages[0] = firstPage
        var ordered: [EntryPage] = []
        ordered.reserveCapacity(pages.count)
        var count = 0
        var consistent = firstPage.total != nil && reported <= cap
        for offset in pages.keys.sorted() {
            guard let result = pages.removeValue(forKey: offset) else { continue }
            if offset != count { consistent = false }
            if result.total != reported { consistent = false }
            count += result.entries
            ordered.append(result)
        }
        if count != reported { consistent = false }
        return FetchedList(pages: ordered, total: reported, consistent: consistent)
    }

    /// A path for messages: no query.
    static func describe(_ path: String) -> String {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return bare.hasPrefix("https://") ? bare : "/" + bare
    }
}

/// Lists are read 50 entries a page (`limit=50`: Spotify's largest for items and Liked Songs);
/// what request counts and cost estimates compute with.
public enum EntryPages {
    public static let size = 50

    /// Pages of `size` that `entries` take (none for none).
    public static func count(_ entries: Int) -> Int { (max(0, entries) + size - 1) / size }
}
