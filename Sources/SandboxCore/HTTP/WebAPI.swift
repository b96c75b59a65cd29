import Foundation

/// The `/v1` endpoints.
extension SandboxService {
    struct PageRequest {
        var offset: Int
        var limit: Int
    }

    func api(_ request: SandboxRequest, now: Date, emptyItems: Fault?) -> SandboxResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).map(String.init)
        // parts of /v1/playlists/ID/items → ["playlists", "ID", "items"]
        guard let route = APIRoute(parts: parts, legacy: configuration.legacy) else { return .apiError(404, "Service not found") }
        guard route.methods.contains(request.method) else { return .apiError(405, "Method not allowed") }
        // The player's answers follow its clock: never kept, never filtered.
        if case let .player(name) = route { return player(name, request, now: now) }
        guard request.method == "GET" else {
            switch authenticate(request, now: now) {
            case let .failure(error): return error.response
            case let .success(scopes): return write(route, request, scopes: scopes, now: now)
            }
        }
        if let failure = checkBearer(request, now: now) { return failure }
        if route.removedIn2026(method: "GET"), configuration.developmentMode, !configuration.legacy { return .apiError(403, "Forbidden") }
        let target = request.path + "?" + request.query
        if emptyItems == nil, let body = withState({ $0.answers.body(for: target) }) {
            return SandboxResponse(status: 200, headers: [SandboxResponse.jsonType], body: body)
        }

        let parameters = request.parameters
        var filter: FieldFilter?
        if let fields = parameters["fields"], !fields.isEmpty {
            do { filter = try FieldFilter(parsing: fields) } catch { return .apiError(400, "Invalid fields") }
        }
        let (library, baseURL) = withState { ($0.library, $0.baseURL) }
        let renderer = LibraryRenderer(apiBase: baseURL + "/v1", legacy: configuration.legacy)
        var result: SandboxResponse
        switch route {
        case .me:
            result = .jsonValue(200, renderer.me(library.me))
        case .myPlaylists:
            result = paged(request, parameters, maxLimit: 50, defaultLimit: 20, baseURL: baseURL, total: library.playlists.count) { range in
                library.playlists[range].map { renderer.playlist($0, library: library) }
            }
        case .myTracks:
            result = paged(request, parameters, maxLimit: 50, defaultLimit: 20, baseURL: baseURL, total: library.liked.count) { range in
                library.liked[range].map { renderer.likedEntry($0, library: library) }
            }
        case let .playlist(id):
            result = playlistObject(id: id, library: library, renderer: renderer, baseURL: baseURL)
        case let .playlistEntries(id, tracksPath):
            result = playlistItems(
                request, parameters, id: id, legacyShape: tracksPath,
                library: library, renderer: renderer, baseURL: baseURL, emptyItems: emptyItems)
        case .myLibraryContains, .myTracksContains:
            result = libraryContains(route, parameters, library: library)
        case .search:
            result = search(request, parameters, library: library, renderer: renderer, baseURL: baseURL)
        case let .track(id):
            result = trackObject(id: id, library: library, renderer: renderer)
        case let .albumTracks(id):
            result = albumTracks(request, parameters, id: id, library: library, renderer: renderer, baseURL: baseURL)
        case .userPlaylists, .myLibrary, .playlistFollowers, .player:
            result = .apiError(405, "Method not allowed")
        }
        if let value = result.value {
            result.body = (filter.map { $0.apply(to: value) } ?? value).serialized()
            result.value = nil
        }
        if result.status == 200, emptyItems == nil, result.headers.count == 1, result.headers[0] == SandboxResponse.jsonType {
            let body = result.body
            withState { $0.answers.store(body, for: target) }
        }
        return result
    }

    func lookup(_ id: String, in library: Library) -> Result<Playlist, SandboxResponseError> {
        guard SpotifyID.isValid(id) else { return .failure(.init(response: .apiError(400, "Invalid base62 id"))) }
        guard let playlist = library.playlist(id: id) else { return .failure(.init(response: .apiError(404, "Resource not found"))) }
        // Since November 2024 development-mode apps get 404 for Spotify's editorial and
        // algorithmic playlists, by id and for their items, while `/me/playlists` lists them.
        if playlist.spotifyOwned, configuration.developmentMode {
            return .failure(.init(response: .apiError(404, "Resource not found")))
        }
        return .success(playlist)
    }

    func playlistObject(id: String, library: Library, renderer: LibraryRenderer, baseURL: String) -> SandboxResponse {
        let playlist: Playlist
        switch lookup(id, in: library) {
        case let .success(found): playlist = found
        case let .failure(error): return error.response
        }
        var firstPage: JSONValue?
        if !configuration.developmentMode || playlist.readableInDevelopmentMode {
            let limit = configuration.legacy ? 100 : min(100, configuration.itemsLimitMax)
            let path = "/v1/playlists/\(playlist.id)/" + (configuration.legacy ? "tracks" : "items")
            firstPage = pageObject(baseURL: baseURL, path: path, extra: [], offset: 0, limit: limit, total: playlist.entries.count) { range in
                playlist.entries[range].map { renderer.playlistEntry($0, library: library, trackKey: configuration.legacy) }
            }
        }
        return .jsonValue(200, renderer.playlist(playlist, library: library, firstPage: firstPage))
    }

    private func playlistItems(
        _ request: SandboxRequest, _ parameters: [String: String], id: String, legacyShape: Bool,
        library: Library, renderer: LibraryRenderer, baseURL: String, emptyItems: Fault?
    ) -> SandboxResponse {
        // Development-mode apps lost /tracks in March 2026.
        if legacyShape, configuration.developmentMode, !configuration.legacy { return .apiError(403, "Forbidden") }
        let playlist: Playlist
        switch lookup(id, in: library) {
        case let .success(found): playlist = found
        case let .failure(error): return error.response
        }
        let maxLimit = legacyShape ? 100 : configuration.itemsLimitMax
        if configuration.developmentMode, !playlist.readableInDevelopmentMode {
            if let failure = pageParameters(parameters, maxLimit: maxLimit, defaultLimit: 20).failure { return failure }
            return .apiError(403, "Forbidden")
        }
        var total = playlist.entries.count
        var entries = playlist.entries[...]
        if let emptyItems {
            entries = []
            if emptyItems.total == "zero" { total = 0 }
        }
        return paged(request, parameters, maxLimit: maxLimit, defaultLimit: 20, baseURL: baseURL, total: total) { range in
            range.compactMap { index in
                index < entries.endIndex ? renderer.playlistEntry(entries[index], library: library, trackKey: legacyShape) : nil
            }
        }
    }

    // MARK: Paging

    func pageParameters(_ parameters: [String: String], maxLimit: Int, defaultLimit: Int) -> (page: PageRequest?, failure: SandboxResponse?) {
        var limit = defaultLimit
        if let text = parameters["limit"] {
            guard let value = Int(text), (1...maxLimit).contains(value) else { return (nil, .apiError(400, "Invalid limit")) }
            limit = value
        }
        var offset = 0
        if let text = parameters["offset"] {
            guard let value = Int(text), value >= 0 else { return (nil, .apiError(400, "Invalid offset")) }
            offset = value
        }
        return (PageRequest(offset: offset, limit: limit), nil)
    }

    func paged(
        _ request: SandboxRequest, _ parameters: [String: String], maxLimit: Int, defaultLimit: Int, baseURL: String,
        total: Int, items: (Range<Int>) -> [JSONValue]
    ) -> SandboxResponse {
        let checked = pageParameters(parameters, maxLimit: maxLimit, defaultLimit: defaultLimit)
        guard let page = checked.page else { return checked.failure ?? .apiError(400, "Bad request") }
        let extra = request.query.split(separator: "&").filter {
            !$0.hasPrefix("offset=") && !$0.hasPrefix("limit=") && $0 != "offset" && $0 != "limit"
        }.map(String.init)
        return .jsonValue(
            200, pageObject(baseURL: baseURL, path: request.path, extra: extra, offset: page.offset, limit: page.limit, total: total, items: items))
    }

    func pageObject(
        baseURL: String, path: String, extra: [String], offset: Int, limit: Int, total: Int,
        items: (Range<Int>) -> [JSONValue]
    ) -> JSONValue {
        func link(_ offset: Int) -> JSONValue {
            .string(baseURL + path + "?" + (["offset=\(offset)", "limit=\(limit)"] + extra).joined(separator: "&"))
        }
        let start = min(offset, total)
        let end = min(total, offset + limit)
        return .object([
            ("href", link(offset)),
            ("items", .array(items(start..<end))),
            ("limit", .int(limit)),
            ("next", offset + limit < total ? link(offset + limit) : .null),
            ("offset", .int(offset)),
            ("previous", offset > 0 ? link(max(0, offset - limit)) : .null),
            ("total", .int(total)),
        ])
    }
}

struct SandboxResponseError: Error {
    var response: SandboxResponse
}

extension SandboxResponse {
    /// A response whose body is serialized after `fields` filtering.
    static func jsonValue(_ status: Int, _ value: JSONValue) -> SandboxResponse {
        var response = SandboxResponse(status: status, headers: [jsonType])
        response.value = value
        return response
    }
}
