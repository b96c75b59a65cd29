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

    /// Liked Songs after the first page.
    func likedRest(first: EntryPage) async throws -> FetchedList {
        try await entryPages(limit: 50, first: first, cap: Self.maxLikedEntries) { offset, limit in
            try await getDecoded(Self.likedPath(offset: offset, limit: limit), as: EntryPage.self)
        }
    }

    static func likedPath(offset: Int, limit: Int = 50) -> String { "me/tracks?offset=\(offset)&limit=\(limit)" }

    /// A playlist's entries via `/items` (or, when its object had the older shape, `/tracks`).
    func playlistEntries(_ id: String, legacy: Bool) async throws -> FetchedList {
        let (first, size) = try await itemsPage(id, offset: 0, limit: state.current.itemsLimit, legacy: legacy)
        return try await entryPages(limit: size, first: first, cap: Self.maxPlaylistEntries) { offset, limit in
            try await itemsChunk(id, offset: offset, size: limit, legacy: legacy)
        }
    }

    /// `size` entries from `offset`, in one request or, after the limit fell back, in several.
    private func itemsChunk(_ id: String, offset: Int, size: Int, legacy: Bool) async throws -> EntryPage {
        var chunk = EntryPage()
        var total: Int?
        var consistent = true
        var position = offset
        while position < offset + size {
            let (page, used) = try await itemsPage(id, offset: position, limit: min(offset + size - position, state.current.itemsLimit), legacy: legacy)
            if let total, page.total != total { consistent = false }
            total = total ?? page.total
            chunk.append(page)
            if page.entries < used { break }
            position += used
        }
        // A page whose pieces disagree reports no total, which marks the list inconsistent.
        chunk.total = consistent ? total : -1
        return chunk
    }

    /// One items page and the limit it was fetched with. A 404 is the answer for this playlist
    /// (Spotify's own playlists, or one deleted meanwhile): it is never taken as a reason to try
    /// another endpoint.
    private func itemsPage(_ id: String, offset: Int, limit: Int, legacy: Bool) async throws -> (EntryPage, Int) {
        var limit = limit
        while true {
            let path =
                "playlists/\(id)/\(legacy ? "tracks" : "items")?offset=\(offset)&limit=\(limit)"
                + "&additional_types=track,episode&fields=\(legacy ? Self.legacyEntryFields : Self.entryFields)"
            do {
                return (try await getDecoded(path, as: EntryPage.self), limit)
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

    /// Every page of a list: the first one tells the total, the others are requested at once.
    private func entryPages(
        limit: Int, first: EntryPage?, cap: Int, page: @escaping @Sendable (Int, Int) async throws -> EntryPage
    ) async throws -> FetchedList {
        let firstPage: EntryPage
        if let first { firstPage = first } else { firstPage = try await page(0, limit) }
        return try await collect(limit: limit, firstPage: firstPage, cap: cap, page: page)
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
        let pages = Locked<[Int: Page]>([:])
        let next = Locked(start)
        let count = (end - start + step - 1) / step
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<min(max(1, workers), count) {
                group.addTask {
                    while true {
                        let offset = next.withLock { offset -> Int? in
                            guard offset < end else { return nil }
                            defer { offset += step }
                            return offset
                        }
                        guard let offset else { return }
                        try Task.checkCancellation()
                        let result = try await fetch(offset)
                        pages.withLock { $0[offset] = result }
                    }
                }
            }
        }
        return pages.current
    }

    private func collect(
        limit: Int, firstPage: EntryPage, cap: Int,
        page: @escaping @Sendable (Int, Int) async throws -> EntryPage
    ) async throws -> FetchedList {
        let reported = firstPage.total ?? firstPage.entries
        // Never more pages than the list can hold; a clamped list is inconsistent, so it is not stored.
        let total = min(reported, cap)
        var pages = try await Self.fetchAll(from: limit, to: total, by: limit, workers: workers) { try await page($0, limit) }
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
