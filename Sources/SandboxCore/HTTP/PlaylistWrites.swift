import Foundation

/// The Web API's writes: dispatch, and the playlist endpoints (create, details, add, remove,
/// reorder, replace). Follows and likes are in LibraryWrites.swift. Every write runs under the
/// state lock in one piece, so a write is applied whole or not at all, and any change of the
/// library empties the kept GET answers.
extension SandboxService {
    func write(_ route: APIRoute, _ request: SandboxRequest, scopes: Set<String>, now: Date) -> SandboxResponse {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        // Development-mode apps lost /playlists/{id}/tracks, the type-specific library writes and
        // POST /users/{id}/playlists in 2026 (the February 2026 migration guide).
        if route.removedIn2026(method: request.method), configuration.developmentMode, !configuration.legacy {
            return .apiError(403, "Forbidden")
        }
        switch (route, request.method) {
        case (.myPlaylists, "POST"):
            return createPlaylist(request, forUser: nil, scopes: scopes)
        case let (.userPlaylists(user), "POST"):
            return createPlaylist(request, forUser: user, scopes: scopes)
        case let (.playlist(id), "PUT"):
            return changeDetails(id, request, scopes: scopes)
        case let (.playlistEntries(id, _), "POST"):
            return addEntries(id, request, scopes: scopes, now: seconds)
        case let (.playlistEntries(id, _), "DELETE"):
            return removeEntries(id, request, scopes: scopes)
        case let (.playlistEntries(id, _), "PUT"):
            return reorderOrReplace(id, request, scopes: scopes, now: seconds)
        case let (.playlistFollowers(id), method):
            return followPlaylist(id, request, follow: method == "PUT", scopes: scopes)
        case (.myLibrary, let method):
            return changeLibrary(request, save: method == "PUT", scopes: scopes, now: seconds)
        case (.myTracks, let method):
            return changeLikedTracks(request, save: method == "PUT", scopes: scopes, now: seconds)
        default:
            return .apiError(405, "Method not allowed")
        }
    }

    // MARK: Bodies

    struct AddBody: Decodable {
        var uris: [String]?
        var position: Int?
    }

    struct RemoveBody: Decodable {
        struct Item: Decodable {
            var uri: String
            // `positions` may be sent; Spotify ignores it, and so does the decoder.
        }
        var items: [Item]?
        /// The pre-2026 name of `items`.
        var tracks: [Item]?
        var snapshotID: String?

        enum CodingKeys: String, CodingKey {
            case items, tracks
            case snapshotID = "snapshot_id"
        }
    }

    struct PutItemsBody: Decodable {
        var uris: [String]?
        var rangeStart: Int?
        var insertBefore: Int?
        var rangeLength: Int?
        var snapshotID: String?

        enum CodingKeys: String, CodingKey {
            case uris
            case rangeStart = "range_start", insertBefore = "insert_before", rangeLength = "range_length"
            case snapshotID = "snapshot_id"
        }
    }

    struct DetailsBody: Decodable {
        var name: String?
        var description: String?
        var isPublic: Bool?
        var collaborative: Bool?

        enum CodingKeys: String, CodingKey {
            case name, description, collaborative
            case isPublic = "public"
        }
    }

    /// The JSON body as `T` (an empty body reads as `{}`); nil when it does not parse.
    func decodeBody<T: Decodable>(_ type: T.Type, _ request: SandboxRequest) -> T? {
        let bytes = request.body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } ? Array("{}".utf8) : request.body
        return try? JSONDecoder().decode(T.self, from: Data(bytes))
    }

    static let badJSON = SandboxResponse.apiError(400, "Error parsing JSON.")
    static let insufficientScope = SandboxResponse.apiError(403, "Insufficient client scope")

    /// `uris=a,b` from the query; when present Spotify ignores the body's `uris`.
    func queryURIs(_ request: SandboxRequest) -> [String]? {
        guard let text = request.parameters["uris"] else { return nil }
        return text.split(separator: ",", omittingEmptySubsequences: true).map { String($0).trimmingSpaces }
    }

    /// Parses playlist-item URIs (tracks, episodes, local files); 400 "Invalid track uri: …" for the first that is not one.
    func itemURIs(_ texts: [String]) -> Result<[ItemURI], SandboxResponseError> {
        var uris: [ItemURI] = []
        for text in texts {
            guard let uri = ItemURI(parsing: text), uri.isPlaylistItem else {
                return .failure(.init(response: .apiError(400, "Invalid track uri: " + String(text.prefix(200)))))
            }
            uris.append(uri)
        }
        return .success(uris)
    }

    /// 400 "Payload contains a non-existing ID" when a track or episode id is not in the catalogue
    /// (the whole request is refused); nil when all exist or `refuseUnknownIDs` is off.
    func unknownIDRefusal(_ uris: [ItemURI]) -> SandboxResponse? {
        guard configuration.refuseUnknownIDs else { return nil }
        let unknown = uris.contains { uri in
            switch uri {
            case let .track(id): catalog.trackIndex(id: id) == nil
            case let .episode(id): catalog.episodeIndex(id: id) == nil
            default: false
            }
        }
        return unknown ? .apiError(400, "Payload contains a non-existing ID") : nil
    }

    static func snapshotAnswer(_ status: Int, _ playlist: Playlist) -> SandboxResponse {
        .json(status, .object([("snapshot_id", .string(playlist.snapshotID))]))
    }

    static func emptyAnswer() -> SandboxResponse { SandboxResponse(status: 200) }

    // MARK: Editing one playlist

    /// Runs `change` on the library under the lock once the playlist exists, the user may edit it
    /// (owner or collaborative, or only the owner with `ownerOnly`: else 403 `refusal`) and the
    /// token has the modify scope its visibility needs. `change` validates before it changes anything.
    private func editPlaylist(
        _ id: String, scopes: Set<String>, refusal: String, ownerOnly: Bool = false,
        _ change: (inout Library, Library.Place) throws(EditError) -> SandboxResponse
    ) -> SandboxResponse {
        guard SpotifyID.isValid(id) else { return .apiError(400, "Invalid base62 id") }
        return withState { s in
            guard let place = s.library.place(of: id) else { return .apiError(404, "Resource not found") }
            let playlist = s.library[place]
            // A Spotify-owned playlist does not exist for a development-mode app (as for reads).
            if playlist.spotifyOwned, configuration.developmentMode { return .apiError(404, "Resource not found") }
            guard ownerOnly ? playlist.owner == 0 : playlist.editable else { return .apiError(403, refusal) }
            guard scopes.contains(Scopes.modify(playlist)) else { return Self.insufficientScope }
            do throws(EditError) {
                return try change(&s.library, place)
            } catch {
                return .apiError(error.status, error.message)
            }
        }
    }

    /// Every playlist write needs one of the two modify scopes before anything else is looked at.
    private func hasPlaylistScope(_ scopes: Set<String>) -> Bool {
        scopes.contains(Scopes.playlistModifyPublic) || scopes.contains(Scopes.playlistModifyPrivate)
    }

    // MARK: Create and details

    private func createPlaylist(_ request: SandboxRequest, forUser user: String?, scopes: Set<String>) -> SandboxResponse {
        guard hasPlaylistScope(scopes) else { return Self.insufficientScope }
        guard let body = decodeBody(DetailsBody.self, request) else { return Self.badJSON }
        guard let name = body.name, !name.isEmpty else { return .apiError(400, "Missing required field: name") }
        let isPublic = body.isPublic ?? true
        let collaborative = body.collaborative ?? false
        if collaborative, isPublic { return .apiError(400, "You can only set collaborative to true on non-public playlists") }
        guard scopes.contains(isPublic ? Scopes.playlistModifyPublic : Scopes.playlistModifyPrivate) else { return Self.insufficientScope }
        let created: (Playlist, Library, String)? = withState { s in
            if let user, user != s.library.me.id { return nil }
            let playlist = s.library.createPlaylist(name: name, description: body.description, isPublic: isPublic, collaborative: collaborative)
            return (playlist, s.library, s.baseURL)
        }
        guard let (playlist, library, baseURL) = created else { return .apiError(403, "You cannot create a playlist for another user") }
        let renderer = LibraryRenderer(apiBase: baseURL + "/v1", legacy: configuration.legacy)
        var answer = playlistObject(id: playlist.id, library: library, renderer: renderer, baseURL: baseURL)
        answer.status = 201
        if let value = answer.value {
            answer.body = value.serialized()
            answer.value = nil
        }
        return answer
    }

    /// Name, description, public, collaborative; the snapshot id stays (it follows the entries).
    private func changeDetails(_ id: String, _ request: SandboxRequest, scopes: Set<String>) -> SandboxResponse {
        guard hasPlaylistScope(scopes) else { return Self.insufficientScope }
        guard let body = decodeBody(DetailsBody.self, request) else { return Self.badJSON }
        if let name = body.name, name.isEmpty { return .apiError(400, "Playlist name must not be empty") }
        // Only the owner changes details; collaborators may add, remove and move (Spotify's reference).
        return editPlaylist(id, scopes: scopes, refusal: "You cannot change details of a playlist you don't own.", ownerOnly: true) {
            library, place throws(EditError) in
            var playlist = library[place]
            if let name = body.name { playlist.name = name }
            if let description = body.description { playlist.description = description }
            if let isPublic = body.isPublic { playlist.isPublic = isPublic }
            if let collaborative = body.collaborative { playlist.collaborative = collaborative }
            if playlist.collaborative, playlist.isPublic {
                throw EditError(400, "You can only set collaborative to true on non-public playlists")
            }
            library[place] = playlist
            return Self.emptyAnswer()
        }
    }

    // MARK: Entries

    static let maxURIsPerRequest = 100

    private func addEntries(_ id: String, _ request: SandboxRequest, scopes: Set<String>, now: Int64) -> SandboxResponse {
        guard hasPlaylistScope(scopes) else { return Self.insufficientScope }
        guard let body = decodeBody(AddBody.self, request) else { return Self.badJSON }
        guard let texts = queryURIs(request) ?? body.uris, !texts.isEmpty else { return .apiError(400, "Missing uris") }
        guard texts.count <= Self.maxURIsPerRequest else { return .apiError(400, "You can add a maximum of 100 tracks per request.") }
        let uris: [ItemURI]
        switch itemURIs(texts) {
        case let .success(parsed): uris = parsed
        case let .failure(error): return error.response
        }
        if let refusal = unknownIDRefusal(uris) { return refusal }
        let catalog = self.catalog
        return editPlaylist(id, scopes: scopes, refusal: "You cannot add tracks to a playlist you don't own.") { library, place throws(EditError) in
            try library.insert(uris, into: place, at: body.position, catalog: catalog, now: now)
            return Self.snapshotAnswer(201, library[place])
        }
    }

    /// Removes every occurrence of each URI; `positions` and a stale `snapshot_id` are ignored.
    private func removeEntries(_ id: String, _ request: SandboxRequest, scopes: Set<String>) -> SandboxResponse {
        guard hasPlaylistScope(scopes) else { return Self.insufficientScope }
        guard let body = decodeBody(RemoveBody.self, request) else { return Self.badJSON }
        guard let items = body.items ?? body.tracks, !items.isEmpty else { return .apiError(400, "Missing items") }
        guard items.count <= Self.maxURIsPerRequest else { return .apiError(400, "You can remove a maximum of 100 tracks per request.") }
        let uris: [ItemURI]
        switch itemURIs(items.map(\.uri)) {
        case let .success(parsed): uris = parsed
        case let .failure(error): return error.response
        }
        return editPlaylist(id, scopes: scopes, refusal: "You cannot remove tracks from a playlist you don't own.") { library, place throws(EditError) in
            library.remove(uris, from: place)
            return Self.snapshotAnswer(200, library[place])
        }
    }

    /// `uris` (query or body) replaces every entry; `range_start` + `insert_before` (+
    /// `range_length`, default 1) reorders. Both in one request: 400.
    private func reorderOrReplace(_ id: String, _ request: SandboxRequest, scopes: Set<String>, now: Int64) -> SandboxResponse {
        guard hasPlaylistScope(scopes) else { return Self.insufficientScope }
        guard let body = decodeBody(PutItemsBody.self, request) else { return Self.badJSON }
        let texts = queryURIs(request) ?? body.uris
        let reorders = body.rangeStart != nil || body.insertBefore != nil || body.rangeLength != nil
        if let texts {
            guard !reorders else { return .apiError(400, "Cannot reorder and replace items in one request") }
            guard texts.count <= Self.maxURIsPerRequest else { return .apiError(400, "You can set a maximum of 100 tracks per request.") }
            let uris: [ItemURI]
            switch itemURIs(texts) {
            case let .success(parsed): uris = parsed
            case let .failure(error): return error.response
            }
            if let refusal = unknownIDRefusal(uris) { return refusal }
            let catalog = self.catalog
            return editPlaylist(id, scopes: scopes, refusal: "You cannot replace tracks in a playlist you don't own.") { library, place throws(EditError) in
                library.replace(place, with: uris, catalog: catalog, now: now)
                return Self.snapshotAnswer(200, library[place])
            }
        }
        guard let rangeStart = body.rangeStart, let insertBefore = body.insertBefore else {
            return .apiError(400, "Missing range_start and insert_before (reorder) or uris (replace)")
        }
        return editPlaylist(id, scopes: scopes, refusal: "You cannot reorder tracks in a playlist you don't own.") { library, place throws(EditError) in
            try library.reorder(place, rangeStart: rangeStart, insertBefore: insertBefore, rangeLength: body.rangeLength ?? 1)
            return Self.snapshotAnswer(200, library[place])
        }
    }
}
