import Foundation

/// `/__sandbox/…`: test controls, for the owner only (`ControlSecret`; `GET files/NAME` is
/// public), never in the request log.
extension SandboxService {
    struct FaultsBody: Decodable { var faults: [Fault] }
    struct ModeBody: Decodable { var mode: String }
    struct MintBody: Decodable { var scope: String? }
    struct MutateBody: Decodable {
        var playlist: String?
        var action: String
        var name: String?
        /// `set_description`'s text.
        var description: String?
    }

    func handleControl(_ request: SandboxRequest, now: Date = Date()) -> SandboxResponse {
        let name = String(request.path.dropFirst("/__sandbox/".count))
        switch (request.method, name) {
        case ("GET", "library"):
            let parameters = request.parameters
            let includeItems = parameters["include_items"] != "false"
            let value = withState { $0.library.canonicalModel(includeItems: includeItems, onlyPlaylist: parameters["playlist"]) }
            return .json(200, value)
        case ("GET", _) where name.hasPrefix("playlists/"):
            // One playlist, followed or not, with its entries: what a client's edit did to the server.
            let id = String(name.dropFirst("playlists/".count))
            let value = withState { s in s.library.playlist(id: id).map { s.library.canonicalPlaylist($0, includeItems: true) } }
            return value.map { .json(200, $0) } ?? .apiError(404, "No playlist \(id) in the library (followed or unfollowed)")
        case ("GET", "liked"):
            let value = withState { s in
                JSONValue.object([
                    ("liked", .array(s.library.liked.enumerated().map { s.library.canonicalItem($1, position: $0) })),
                    ("saved_episodes", .array(s.library.savedEpisodes.enumerated().map { s.library.canonicalItem($1, position: $0) })),
                ])
            }
            return .json(200, value)
        case ("GET", "variants"):
            return .json(200, variants())
        case ("GET", "requests"):
            return .json(200, .array(withState { $0.requestLog }))
        case ("POST", "requests/clear"):
            withState { $0.requestLog.removeAll() }
            return ok()
        case ("GET", "faults"):
            let pending = withState { $0.faults.pending }
            return SandboxResponse(status: 200, headers: [SandboxResponse.jsonType], body: encode(["faults": pending]))
        case ("POST", "faults"):
            return addFaults(request.body)
        case ("DELETE", "faults"):
            withState { $0.faults.clear() }
            return ok()
        case ("POST", "expire-access-tokens"):
            withState { s in
                for key in s.accessTokens.keys { s.accessTokens[key] = .distantPast }
            }
            return ok()
        case ("POST", "revoke-refresh-tokens"):
            withState { s in
                s.revokedRefreshTokens.formUnion(s.refreshTokens.keys)
                s.refreshTokens.removeAll()
            }
            return ok()
        case ("POST", "authorize-mode"):
            guard let body = try? JSONDecoder().decode(ModeBody.self, from: Data(request.body)),
                body.mode == "approve" || body.mode == "deny"
            else { return .apiError(400, "Expected {\"mode\":\"approve\"|\"deny\"}") }
            withState { $0.approve = body.mode == "approve" }
            return ok()
        case ("POST", "mint-refresh-token"):
            // Every known scope unless the body names some: {"scope":"playlist-read-private …"}.
            let asked = request.body.isEmpty ? nil : try? JSONDecoder().decode(MintBody.self, from: Data(request.body))
            guard let scopes = Scopes.parse(asked?.scope ?? Scopes.known.joined(separator: " ")) else {
                return .apiError(400, "Unknown scope in \"scope\"")
            }
            let token = withState { issueRefreshToken(&$0, scopes: scopes) }
            return .json(200, .object([("refresh_token", .string(token)), ("scope", .string(scopes.joined(separator: " ")))]))
        case ("POST", "mutate"):
            guard let body = try? JSONDecoder().decode(MutateBody.self, from: Data(request.body)) else {
                return .apiError(
                    400,
                    "Expected {\"playlist\":ID,\"action\":\"append|remove_first|reorder|reverse|last_to_front|rename|set_description|clear|delete|create\"}")
            }
            return mutate(body)
        case (_, "clock"), (_, "quota"), (_, "player"), (_, "player/devices"), (_, "player/premium"):
            return playerControl(request.method, name, request, now: now)
        case (_, _) where name.hasPrefix("files/") && name.count > "files/".count:
            return file(request.method, name: String(name.dropFirst("files/".count)), body: request.body)
        default:
            return .apiError(404, "Unknown control endpoint \(request.method) /__sandbox/\(name)")
        }
    }

    /// The remaster variants (Pool.variantCount) and the tracks they re-release, for fuzzy dedupe tests.
    private func variants() -> JSONValue {
        let pool = catalog.pool
        return .array(
            (0..<Pool.variantCount).map { k in
                let variant = pool.track(pool.variantIndex(k)), original = pool.track(pool.originalIndex(ofVariant: k))
                return JSONValue.object([
                    ("uri", .string("spotify:track:" + variant.id)), ("name", .string(variant.name)),
                    ("duration_ms", .int(variant.durationMs)),
                    ("original_uri", .string("spotify:track:" + original.id)), ("original_name", .string(original.name)),
                    ("original_duration_ms", .int(original.durationMs)),
                ])
            })
    }

    /// `POST /__sandbox/faults`: checked whole before any is armed.
    private func addFaults(_ body: [UInt8]) -> SandboxResponse {
        guard let body = try? JSONDecoder().decode(FaultsBody.self, from: Data(body)) else {
            return .apiError(400, "Expected {\"faults\":[{\"kind\":\"status|reset|malformed|empty_items|latency|apply_then_reset|delete_playlist\",…}]}")
        }
        if body.faults.contains(where: { $0.kind == .emptyItems && $0.playlist == nil }) {
            return .apiError(400, "empty_items needs \"playlist\"")
        }
        if body.faults.contains(where: { $0.kind == .deletePlaylist && $0.playlist == nil }) {
            return .apiError(400, "delete_playlist needs \"playlist\"")
        }
        withState { $0.faults.append(body.faults) }
        return ok()
    }

    /// Static files for tests: PUT stores the body as it is, GET serves it byte for byte
    /// (`application/octet-stream`), DELETE removes it. A missing file is a 404.
    private func file(_ method: String, name: String, body: [UInt8]) -> SandboxResponse {
        switch method {
        case "PUT":
            withState { $0.files[name] = body }
            return ok()
        case "GET":
            guard let bytes = withState({ $0.files[name] }) else { return .apiError(404, "No file \(name)") }
            return SandboxResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: bytes)
        case "DELETE":
            withState { $0.files[name] = nil }
            return ok()
        default:
            return .apiError(405, "Method not allowed")
        }
    }

    private func ok() -> SandboxResponse { .json(200, .object([("ok", true)])) }

    private func encode(_ value: some Encodable) -> [UInt8] {
        Array((try? JSONEncoder().encode(value)) ?? Data("{}".utf8))
    }

    private func mutate(_ body: MutateBody) -> SandboxResponse {
        withState { s in
            var library = s.library
            defer { s.library = library }
            if body.action == "create" {
                let index = library.size.playlistCount + 10_000 + library.created
                let id = library.nextCreatedID()
                var rng = SplitMix64(seed: library.seed, stream: 200, index: UInt64(index))
                let entries = (0..<5).map { step in
                    Entry(
                        kind: .track, ref: Names.quirkyTitles.count + rng.below(library.pool.trackCount - Names.quirkyTitles.count),
                        addedAt: 1_767_225_600 + Int64(step) * 60)
                }
                let playlist = Playlist(
                    id: id,
                    name: body.name ?? "New Playlist \(library.created)", description: nil, owner: 0,
                    collaborative: false, isPublic: false, hasImages: false, followers: 0, entries: entries, version: 0
                )
                library.playlists.insert(playlist, at: 0)  // Spotify lists new playlists first
                return .json(200, library.canonicalPlaylist(playlist, includeItems: false))
            }
            guard let id = body.playlist, let index = library.playlistIndex(id: id) else {
                return .apiError(404, "Resource not found")
            }
            var playlist = library.playlists[index]
            switch body.action {
            case "append":
                var rng = SplitMix64(seed: library.seed, stream: 201, index: UInt64(playlist.version))
                let ref = Names.quirkyTitles.count + rng.below(library.pool.trackCount - Names.quirkyTitles.count)
                playlist.entries.append(Entry(kind: .track, ref: ref, addedAt: Int64(Date().timeIntervalSince1970)))
            case "remove_first":
                if !playlist.entries.isEmpty { playlist.entries.removeFirst() }
            case "reverse", "reorder":
                playlist.entries.reverse()
            case "last_to_front":
                if let last = playlist.entries.popLast() { playlist.entries.insert(last, at: 0) }
            case "set_description":
                playlist.description = body.description ?? body.name
            case "rename":
                playlist.name = body.name ?? playlist.name + " (renamed)"
            case "clear":
                playlist.entries.removeAll()
            case "delete":
                library.playlists.remove(at: index)
                return .json(200, .object([("deleted", .string(id))]))
            default:
                return .apiError(400, "Unknown action \(body.action)")
            }
            playlist.version += 1
            library.playlists[index] = playlist
            return .json(200, library.canonicalPlaylist(playlist, includeItems: false))
        }
    }
}
