import Foundation

/// The catalogue: `GET /search`, `/tracks/{id}`, `/albums/{id}/tracks`, over the pool.
extension SandboxService {
    /// Search types the sandbox answers, in the order their results are written.
    static let searchTypes = ["track", "album", "playlist"]

    /// `limit` caps: 10 (default 5) for a development-mode app since 2026; 50 (default 20)
    /// with extended quota or in `--legacy`.
    var searchLimits: (max: Int, default: Int) {
        configuration.developmentMode && !configuration.legacy ? (10, 5) : (50, 20)
    }

    func search(_ request: SandboxRequest, _ parameters: [String: String], library: Library, renderer: LibraryRenderer, baseURL: String) -> SandboxResponse {
        guard let q = parameters["q"], !q.trimmingSpaces.isEmpty else { return .apiError(400, "No search query") }
        guard let typeText = parameters["type"], !typeText.isEmpty else { return .apiError(400, "Missing parameter type") }
        var types: [String] = []
        for type in typeText.split(separator: ",").map({ String($0).trimmingSpaces }) where !types.contains(type) {
            guard Self.searchTypes.contains(type) else { return .apiError(400, "Bad search type field " + String(type.prefix(40))) }
            types.append(type)
        }
        let limits = searchLimits
        let checked = pageParameters(parameters, maxLimit: limits.max, defaultLimit: limits.default)
        guard let page = checked.page else { return checked.failure ?? .apiError(400, "Bad request") }
        guard page.offset <= 1_000 else { return .apiError(400, "Invalid offset") }
        let query = SearchQuery(parsing: q)
        let pool = library.pool
        var pairs: [(String, JSONValue)] = []
        for type in types {
            let answer: SandboxResponse
            switch type {
            case "track":
                let found = (0..<pool.trackCount).filter { query.matches(pool.track($0)) }
                answer = paged(request, parameters, maxLimit: limits.max, defaultLimit: limits.default, baseURL: baseURL, total: found.count) { range in
                    found[range].map { renderer.track(pool.track($0)) }
                }
            case "album":
                let found = (0..<pool.albumCount).filter { query.matches(pool.album($0)) }
                answer = paged(request, parameters, maxLimit: limits.max, defaultLimit: limits.default, baseURL: baseURL, total: found.count) { range in
                    found[range].map { renderer.album(pool.album($0)) }
                }
            default:
                let found = (library.playlists + library.unfollowed).filter { $0.isPublic && query.matches(playlistNamed: $0.name) }
                answer = paged(request, parameters, maxLimit: limits.max, defaultLimit: limits.default, baseURL: baseURL, total: found.count) { range in
                    found[range].map { renderer.playlist($0, library: library) }
                }
            }
            pairs.append((type + "s", answer.value ?? .null))
        }
        return .jsonValue(200, .object(pairs))
    }

    /// A pool track, or one added to the library by an id the pool lacks; else 404.
    func trackObject(id: String, library: Library, renderer: LibraryRenderer) -> SandboxResponse {
        guard SpotifyID.isValid(id) else { return .apiError(400, "Invalid base62 id") }
        if let index = catalog.trackIndex(id: id) { return .jsonValue(200, renderer.track(library.pool.track(index))) }
        if library.foreignRefs["spotify:track:" + id] != nil { return .jsonValue(200, renderer.track(library.pool.foreignTrack(id: id))) }
        return .apiError(404, "Resource not found")
    }

    /// An album's tracks (the pool tracks on it, in pool order), simplified, paged (≤ 50, default 20).
    func albumTracks(
        _ request: SandboxRequest, _ parameters: [String: String], id: String, library: Library,
        renderer: LibraryRenderer, baseURL: String
    ) -> SandboxResponse {
        guard SpotifyID.isValid(id) else { return .apiError(400, "Invalid base62 id") }
        guard let album = catalog.albumIndex(id: id) else { return .apiError(404, "Resource not found") }
        let tracks = catalog.tracks(onAlbum: album)
        return paged(request, parameters, maxLimit: 50, defaultLimit: 20, baseURL: baseURL, total: tracks.count) { range in
            tracks[range].map { renderer.simplifiedTrack(library.pool.track($0)) }
        }
    }
}
