import Foundation
import TimbreAuth
import TimbreCore
import TimbreNet

/// What one run has learned about the server, shared by every task of the run.
struct RunState: Sendable {
    /// 100 until the server answers 400 "Invalid limit", then 50 for the rest of the run.
    var itemsLimit = 100
    /// `/items` answered 404 and `/tracks` worked: use `/tracks` for the rest of the run.
    var legacy = false
}

/// A body that is not the JSON we asked for, twice.
struct MalformedResponse: Error, CustomStringConvertible {
    var path: String
    var description: String { "Spotify sent an unreadable response for \(path) (twice)" }
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

/// Paging through the Web API, with the run's fallbacks.
struct Fetcher: Sendable {
    let client: AuthorizedClient
    let state: Locked<RunState>

    static let itemFields = "id,uri,name,type,duration_ms,is_local,artists(name),album(name),show(name)"
    /// Only what the cache stores: a full items page is ~470 KB, this is several times smaller.
    static let entryFields = "next,total,items(added_at,is_local,item(\(itemFields)),track(\(itemFields)))"
    static let playlistFields = "id,name,owner(id,display_name),snapshot_id,collaborative,public,items(total),tracks(total)"

    /// GET and decode, resending once when the body does not decode.
    func getDecoded<T: JSONReadable>(_ path: String, as type: T.Type) async throws -> T {
        try await getDecoded(path) { try API.decode($0, as: T.self) }
    }

    func getDecoded<T>(_ path: String, _ decode: (Data) throws -> T) async throws -> T {
        var attempts = 0
        while true {
            let response = try await client.get(path)
            do {
                return try decode(response.body)
            } catch {
                attempts += 1
                if attempts >= 2 { throw MalformedResponse(path: Self.describe(path)) }
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
        try await entryPages(limit: 50, first: first) { offset, limit in
            try await getDecoded(Self.likedPath(offset: offset, limit: limit), as: EntryPage.self)
        }
    }

    static func likedPath(offset: Int, limit: Int = 50) -> String { "me/tracks?offset=\(offset)&limit=\(limit)" }

    /// A playlist's entries via `/items` (or `/tracks`), `limit` 100 falling back to 50.
    func playlistEntries(_ id: String) async throws -> FetchedList {
        let (first, size) = try await itemsPage(id, offset: 0, limit: state.current.itemsLimit)
        return try await entryPages(limit: size, first: first) { offset, limit in
            try await itemsChunk(id, offset: offset, size: limit)
        }
    }

    /// `size` entries from `offset`, in one request or, after the limit fell back, in several.
    private func itemsChunk(_ id: String, offset: Int, size: Int) async throws -> EntryPage {
        var chunk = EntryPage()
        var total: Int?
        var consistent = true
        var position = offset
        while position < offset + size {
            let (page, used) = try await itemsPage(id, offset: position, limit: min(offset + size - position, state.current.itemsLimit))
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

    /// One items page and the limit it was fetched with.
    private func itemsPage(_ id: String, offset: Int, limit: Int) async throws -> (EntryPage, Int) {
        var limit = limit
        var legacy = state.current.legacy
        var fallbackFrom: (any Error)?
        while true {
            let path = "playlists/\(id)/\(legacy ? "tracks" : "items")?offset=\(offset)&limit=\(limit)"
                + "&additional_types=track,episode&fields=\(Self.entryFields)"
            do {
                let page = try await getDecoded(path, as: EntryPage.self)
                if fallbackFrom != nil { state.withLock { $0.legacy = true } }
                return (page, limit)
            } catch let error as SpotifyError {
                if case .api(400, let message, _) = error, message.localizedCaseInsensitiveContains("invalid limit"), limit > 50 {
                    state.withLock { $0.itemsLimit = min($0.itemsLimit, 50) }
                    limit = 50
                    continue
                }
                if case .api(404, _, _) = error, !legacy {
                    // Perhaps a server without `/items`; only a working `/tracks` proves it.
                    fallbackFrom = error
                    legacy = true
                    continue
                }
                if fallbackFrom != nil, case .api(let status, _, _) = error, status != 404 {
                    // `/tracks` exists (a 403 for a playlist the app may not read, say): that is
                    // the answer for this playlist, and the endpoint for the rest of the run.
                    state.withLock { $0.legacy = true }
                    throw error
                }
                throw fallbackFrom ?? error
            } catch {
                if let fallbackFrom, !SyncEngine.isFatal(error) { throw fallbackFrom }
                throw error
            }
        }
    }

    /// Every page of a list: the first one tells the total, the others are requested at once.
    private func entryPages(
        limit: Int, first: EntryPage?, page: @escaping @Sendable (Int, Int) async throws -> EntryPage
    ) async throws -> FetchedList {
        let firstPage: EntryPage
        if let first { firstPage = first } else { firstPage = try await page(0, limit) }
        return try await collect(limit: limit, firstPage: firstPage, page: page)
    }

    private func playlistPages(
        limit: Int, page: @escaping @Sendable (Int, Int) async throws -> API.Page<API.Playlist>
    ) async throws -> (entries: [API.Playlist?], total: Int) {
        let firstPage = try await page(0, limit)
        let total = firstPage.total ?? firstPage.items.count
        var pages = try await Self.fetchAll(from: limit, to: total, by: limit) { try await page($0, limit).items }
        pages[0] = firstPage.items
        return (pages.keys.sorted().flatMap { pages[$0] ?? [] }, total)
    }

    /// `fetch` for every offset at once, keyed by offset. Each result is kept as its task ends, so
    /// the caller is resumed once, when all are in (a task group that hands results back resumed
    /// it after every page); the first error cancels the rest and is thrown.
    private static func fetchAll<Page: Sendable>(
        from start: Int, to end: Int, by step: Int, _ fetch: @escaping @Sendable (Int) async throws -> Page
    ) async throws -> [Int: Page] {
        let pages = Locked<[Int: Page]>([:])
        try await withThrowingDiscardingTaskGroup { group in
            for offset in stride(from: start, to: end, by: step) {
                group.addTask {
                    let result = try await fetch(offset)
                    pages.withLock { $0[offset] = result }
                }
            }
        }
        return pages.current
    }

    private func collect(limit: Int, firstPage: EntryPage,
                         page: @escaping @Sendable (Int, Int) async throws -> EntryPage) async throws -> FetchedList {
        let total = firstPage.total ?? firstPage.entries
        var pages = try await Self.fetchAll(from: limit, to: total, by: limit) { try await page($0, limit) }
        pages[0] = firstPage
        var ordered: [EntryPage] = []
        ordered.reserveCapacity(pages.count)
        var count = 0
        var consistent = firstPage.total != nil
        for offset in pages.keys.sorted() {
            guard let result = pages.removeValue(forKey: offset) else { continue }
            if offset != count { consistent = false }
            if result.total != total { consistent = false }
            count += result.entries
            ordered.append(result)
        }
        if count != total { consistent = false }
        return FetchedList(pages: ordered, total: total, consistent: consistent)
    }

    /// A path for messages: no query.
    static func describe(_ path: String) -> String {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return bare.hasPrefix("https://") ? bare : "/" + bare
    }
}
