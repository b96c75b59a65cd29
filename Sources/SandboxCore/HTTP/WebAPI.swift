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
        let known: Bool
        switch parts.count {
        case 1: known = parts[0] == "me"
        case 2: known = (parts[0] == "me" && (parts[1] == "playlists" || parts[1] == "tracks")) || parts[0] == "playlists"
        case 3: known = parts[0] == "playlists" && (parts[2] == "items" || parts[2] == "tracks")
        default: known = false
        }
        guard known else { return .apiError(404, "Service not found") }
        if parts.count == 3, parts[2] == "items", configuration.legacy { return .apiError(404, "Service not found") }
        guard request.method == "GET" else { return .apiError(405, "Method not allowed") }
        if let failure = checkBearer(request, now: now) { return failure }
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
        switch (parts.count, parts[0], parts.last ?? "") {
        case (1, _, _):
            result = .jsonValue(200, renderer.me(library.me))
        case (2, "me", "playlists"):
            result = paged(request, parameters, maxLimit: 50, defaultLimit: 20, baseURL: baseURL, total: library.playlists.count) { range in
                library.playlists[range].map { renderer.playlist($0, library: library) }
            }
        case (2, "me", "tracks"):
            result = paged(request, parameters, maxLimit: 50, defaultLimit: 20, baseURL: baseURL, total: library.liked.count) { range in
                library.liked[range].map { renderer.likedEntry($0, library: library) }
            }
        case (2, "playlists", _):
            result = playlistObject(id: parts[1], library: library, renderer: renderer, baseURL: baseURL)
        default:
            result = playlistItems(request, parameters, id: parts[1], legacyShape: parts[2] == "tracks",
                                   library: library, renderer: renderer, baseURL: baseURL, emptyItems: emptyItems)
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

    private func lookup(_ id: String, in library: Library) -> Result<Playlist, SandboxResponseError> {
        guard SpotifyID.isValid(id) else { return .failure(.init(response: .apiError(400, "Invalid base62 id"))) }
        guard let playlist = library.playlist(id: id) else { return .failure(.init(response: .apiError(404, "Resource not found"))) }
        return .success(playlist)
    }

    private func playlistObject(id: String, library: Library, renderer: LibraryRenderer, baseURL: String) -> SandboxResponse {
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

    private func pageParameters(_ parameters: [String: String], maxLimit: Int, defaultLimit: Int) -> (page: PageRequest?, failure: SandboxResponse?) {
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

    private func paged(
        _ request: SandboxRequest, _ parameters: [String: String], maxLimit: Int, defaultLimit: Int, baseURL: String,
        total: Int, items: (Range<Int>) -> [JSONValue]
    ) -> SandboxResponse {
        let checked = pageParameters(parameters, maxLimit: maxLimit, defaultLimit: defaultLimit)
        guard let page = checked.page else { return checked.failure ?? .apiError(400, "Bad request") }
        let extra = request.query.split(separator: "&").filter {
            !$0.hasPrefix("offset=") && !$0.hasPrefix("limit=") && $0 != "offset" && $0 != "limit"
        }.map(String.init)
        return .jsonValue(200, pageObject(baseURL: baseURL, path: request.path, extra: extra, offset: page.offset, limit: page.limit, total: total, items: items))
    }

    private func pageObject(
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
