import Foundation

/// Follows and likes: `/me/library` (2026: playlists, tracks, episodes by URI), its `contains`,
/// and the older `/playlists/{id}/followers` and `/me/tracks?ids=`.
extension SandboxService {
    static let maxLibraryURIs = 40
    static let maxTrackIDs = 50

    struct URIsBody: Decodable { var uris: [String]? }
    struct IDsBody: Decodable { var ids: [String]? }
    struct FollowBody: Decodable {
        var isPublic: Bool?
        enum CodingKeys: String, CodingKey { case isPublic = "public" }
    }

    /// Parses `/me/library` URIs: playlists, tracks and episodes. 400 "Invalid uri: …" for text
    /// that is no Spotify URI, 400 "Unsupported uri: …" for kinds the sandbox keeps no list of.
    private func libraryURIs(_ texts: [String], forContains: Bool) -> Result<[ItemURI], SandboxResponseError> {
        var uris: [ItemURI] = []
        for text in texts {
            guard let uri = ItemURI(parsing: text) else {
                return .failure(.init(response: .apiError(400, "Invalid uri: " + String(text.prefix(200)))))
            }
            switch uri {
            case .track, .episode, .playlist: uris.append(uri)
            case .local, .other:
                // `contains` answers false for them; a save or remove is refused.
                guard forContains else { return .failure(.init(response: .apiError(400, "Unsupported uri: " + String(text.prefix(200))))) }
                uris.append(uri)
            }
        }
        return .success(uris)
    }

    /// `uris` from the query (comma-separated) or the body; 400 when missing or over 40.
    private func libraryRequestURIs(_ request: SandboxRequest, forContains: Bool) -> Result<[ItemURI], SandboxResponseError> {
        var texts = queryURIs(request)
        if texts == nil, !forContains {
            guard let body = decodeBody(URIsBody.self, request) else { return .failure(.init(response: Self.badJSON)) }
            texts = body.uris
        }
        guard let texts, !texts.isEmpty else { return .failure(.init(response: .apiError(400, "Missing uris"))) }
        guard texts.count <= Self.maxLibraryURIs else { return .failure(.init(response: .apiError(400, "Too many ids requested"))) }
        return libraryURIs(texts, forContains: forContains)
    }

    /// `PUT|DELETE /me/library`: follow/unfollow playlists (either playlist modify scope), like/unlike
    /// tracks and save/remove episodes (`user-library-modify`). All or nothing: an unknown
    /// playlist (404) or a missing scope (403) changes nothing.
    func changeLibrary(_ request: SandboxRequest, save: Bool, scopes: Set<String>, now: Int64) -> SandboxResponse {
        let uris: [ItemURI]
        switch libraryRequestURIs(request, forContains: false) {
        case let .success(parsed): uris = parsed
        case let .failure(error): return error.response
        }
        let playlistIDs = uris.compactMap { uri -> String? in if case let .playlist(id) = uri { return id } else { return nil } }
        let items = uris.filter { if case .playlist = $0 { return false } else { return true } }
        if !items.isEmpty, !scopes.contains(Scopes.libraryModify) { return Self.insufficientScope }
        if !playlistIDs.isEmpty, !scopes.contains(Scopes.playlistModifyPublic), !scopes.contains(Scopes.playlistModifyPrivate) {
            return Self.insufficientScope
        }
        let catalog = self.catalog
        return withState { s in
            guard playlistIDs.allSatisfy({ s.library.place(of: $0) != nil }) else { return .apiError(404, "Resource not found") }
            if save {
                // Each follow goes on top: the first URI given ends up first, as with likes.
                for id in playlistIDs.reversed() { s.library.follow(id) }
                s.library.save(items, catalog: catalog, now: now)
            } else {
                for id in playlistIDs { s.library.unfollow(id) }
                s.library.unsave(items)
            }
            return Self.emptyAnswer()
        }
    }

    /// `PUT|DELETE /me/tracks?ids=` (or `{"ids":[…]}`): up to 50 track ids.
    func changeLikedTracks(_ request: SandboxRequest, save: Bool, scopes: Set<String>, now: Int64) -> SandboxResponse {
        var ids = request.parameters["ids"].map { $0.split(separator: ",").map { String($0).trimmingSpaces } }
        if ids == nil {
            guard let body = decodeBody(IDsBody.self, request) else { return Self.badJSON }
            ids = body.ids
        }
        guard let ids, !ids.isEmpty else { return .apiError(400, "Missing ids") }
        guard ids.count <= Self.maxTrackIDs else { return .apiError(400, "Too many ids requested") }
        guard ids.allSatisfy(SpotifyID.isValid) else { return .apiError(400, "Invalid base62 id") }
        guard scopes.contains(Scopes.libraryModify) else { return Self.insufficientScope }
        let uris = ids.map(ItemURI.track)
        let catalog = self.catalog
        return withState { s in
            if save { s.library.save(uris, catalog: catalog, now: now) } else { s.library.unsave(uris) }
            return Self.emptyAnswer()
        }
    }

    /// `PUT|DELETE /playlists/{id}/followers` (body `{"public":…}` accepted and ignored).
    func followPlaylist(_ id: String, _ request: SandboxRequest, follow: Bool, scopes: Set<String>) -> SandboxResponse {
        guard scopes.contains(Scopes.playlistModifyPublic) || scopes.contains(Scopes.playlistModifyPrivate) else {
            return Self.insufficientScope
        }
        guard decodeBody(FollowBody.self, request) != nil else { return Self.badJSON }
        guard SpotifyID.isValid(id) else { return .apiError(400, "Invalid base62 id") }
        return withState { s in
            guard s.library.place(of: id) != nil else { return .apiError(404, "Resource not found") }
            if follow { s.library.follow(id) } else { s.library.unfollow(id) }
            return Self.emptyAnswer()
        }
    }

    /// `GET /me/library/contains?uris=` (≤ 40) and `GET /me/tracks/contains?ids=` (≤ 50): one
    /// boolean per URI, in order.
    func libraryContains(_ route: APIRoute, _ parameters: [String: String], library: Library) -> SandboxResponse {
        let uris: [ItemURI]
        if route == .myTracksContains {
            let ids = (parameters["ids"] ?? "").split(separator: ",").map { String($0).trimmingSpaces }
            guard !ids.isEmpty else { return .apiError(400, "Missing ids") }
            guard ids.count <= Self.maxTrackIDs else { return .apiError(400, "Too many ids requested") }
            guard ids.allSatisfy(SpotifyID.isValid) else { return .apiError(400, "Invalid base62 id") }
            uris = ids.map(ItemURI.track)
        } else {
            let texts = (parameters["uris"] ?? "").split(separator: ",").map { String($0).trimmingSpaces }
            guard !texts.isEmpty else { return .apiError(400, "Missing uris") }
            guard texts.count <= Self.maxLibraryURIs else { return .apiError(400, "Too many ids requested") }
            switch libraryURIs(texts, forContains: true) {
            case let .success(parsed): uris = parsed
            case let .failure(error): return error.response
            }
        }
        return .jsonValue(200, .array(uris.map { .bool(library.isSaved($0)) }))
    }
}
