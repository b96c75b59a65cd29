import Foundation

/// The Player endpoints (`/v1/me/player…`), on the player model (PlayerModel.swift) and the
/// sandbox clock. Reads check their scopes; every command needs `user-modify-playback-state` and
/// Premium, and answers 204 with no body, or Spotify's player errors with their `reason`.
extension SandboxService {
    static let scopeReadPlaybackState = "user-read-playback-state"
    static let scopeModifyPlaybackState = "user-modify-playback-state"
    static let scopeReadCurrentlyPlaying = "user-read-currently-playing"
    static let scopeReadRecentlyPlayed = "user-read-recently-played"

    static func playerError(_ status: Int, _ message: String, reason: String) -> SandboxResponse {
        .apiError(status, "Player command failed: " + message, reason: reason)
    }

    static let noActiveDevice = playerError(404, "No active device found", reason: "NO_ACTIVE_DEVICE")
    static let premiumRequired = playerError(403, "Premium required", reason: "PREMIUM_REQUIRED")
    static let restrictionViolated = playerError(403, "Restriction violated", reason: "UNKNOWN")
    static let volumeControlDisallowed = playerError(403, "Cannot control device volume", reason: "VOLUME_CONTROL_DISALLOW")
    static let deviceNotControllable = playerError(403, "Device not controllable", reason: "DEVICE_NOT_CONTROLLABLE")
    static let deviceNotFound = SandboxResponse.apiError(404, "Device not found")
    static let noContent = SandboxResponse(status: 204)

    struct PlayBody: Decodable {
        struct Offset: Decodable {
            var position: Int?
            var uri: String?
        }
        var contextURI: String?
        var uris: [String]?
        var offset: Offset?
        var positionMS: Int64?

        enum CodingKeys: String, CodingKey {
            case uris, offset
            case contextURI = "context_uri"
            case positionMS = "position_ms"
        }
    }

    struct TransferBody: Decodable {
        var deviceIDs: [String]?
        var play: Bool?

        enum CodingKeys: String, CodingKey {
            case play
            case deviceIDs = "device_ids"
        }
    }

    func playDuration(_ item: PlayItem) -> Int {
        let pool = catalog.pool
        switch item {
        case let .track(index): return pool.track(index).durationMs
        case let .episode(index): return pool.episode(index).durationMs
        case let .foreignTrack(id): return pool.foreignTrack(id: id).durationMs
        case let .foreignEpisode(id): return pool.foreignEpisode(id: id).durationMs
        }
    }

    func playItemURI(_ item: PlayItem) -> String {
        let pool = catalog.pool
        switch item {
        case let .track(index): return "spotify:track:" + pool.trackID(index)
        case let .episode(index): return "spotify:episode:" + pool.episodeID(index)
        case let .foreignTrack(id): return "spotify:track:" + id
        case let .foreignEpisode(id): return "spotify:episode:" + id
        }
    }

    func player(_ name: String, _ request: SandboxRequest, now: Date) -> SandboxResponse {
        let scopes: Set<String>
        switch authenticate(request, now: now) {
        case let .failure(error): return error.response
        case let .success(granted): scopes = granted
        }
        if request.method == "GET" { return playerRead(name, request, scopes: scopes, now: now) }
        guard scopes.contains(Self.scopeModifyPlaybackState) else { return Self.insufficientScope }
        guard withState({ $0.player.premium }) else { return Self.premiumRequired }
        return playerCommand(name, request, now: now)
    }

    // MARK: Reads

    private func playerRead(_ name: String, _ request: SandboxRequest, scopes: Set<String>, now: Date) -> SandboxResponse {
        let parameters = request.parameters
        let needed: [String] =
            switch name {
            case "currently-playing", "queue": [Self.scopeReadCurrentlyPlaying, Self.scopeReadPlaybackState]
            case "recently-played": [Self.scopeReadRecentlyPlayed]
            default: [Self.scopeReadPlaybackState]
            }
        guard needed.contains(where: scopes.contains) else { return Self.insufficientScope }
        if name == "recently-played" { return recentlyPlayed(request, parameters, now: now) }
        let episodes = (parameters["additional_types"] ?? "").split(separator: ",").contains("episode")
        return withState { s in
            let time = s.clock.milliseconds(at: now)
            s.player.settle(to: time, duration: playDuration)
            let renderer = LibraryRenderer(apiBase: s.baseURL + "/v1", legacy: configuration.legacy)
            let player = s.player
            switch name {
            case "devices":
                return .json(200, .object([("devices", .array(player.devices.map { deviceJSON($0, active: player.activeDeviceID) }))]))
            case "queue":
                let current = player.activeDevice == nil ? nil : player.current
                return .json(
                    200,
                    .object([
                        ("currently_playing", current.map { itemJSON($0, renderer) } ?? .null),
                        ("queue", .array(current == nil ? [] : player.upcoming(limit: 20).map { itemJSON($0, renderer) })),
                    ]))
            default:
                // `/me/player` and `/currently-playing`: 204 while no device is active (and, for
                // the latter, while nothing is loaded).
                guard let device = player.activeDevice else { return Self.noContent }
                if name == "currently-playing", player.current == nil { return Self.noContent }
                var pairs: [(String, JSONValue)] = []
                if name == "" {
                    pairs += [
                        ("device", deviceJSON(device, active: player.activeDeviceID)),
                        ("repeat_state", .string(player.repeatState.rawValue)),
                        ("shuffle_state", .bool(player.shuffle)),
                    ]
                }
                let item = player.current
                // Episodes only for clients that say they take them (`additional_types=episode`).
                let shown = item.flatMap { $0.isEpisode && !episodes ? nil : $0 }
                pairs += [
                    ("context", contextJSON(player.currentFromQueue ? nil : player.contextURI, renderer: renderer)),
                    ("timestamp", .int(Int(player.timestamp))),
                    ("progress_ms", item == nil ? .null : .int(Int(player.progress(at: time)))),
                    ("is_playing", .bool(player.isPlaying)),
                    ("item", shown.map { itemJSON($0, renderer) } ?? .null),
                    ("currently_playing_type", .string(item.map { $0.isEpisode ? "episode" : "track" } ?? "unknown")),
                    (
                        "actions",
                        .object([
                            ("disallows", .object(player.isPlaying ? [("resuming", true)] : [("pausing", true)]))
                        ])
                    ),
                ]
                return .json(200, .object(pairs))
            }
        }
    }

    private func recentlyPlayed(_ request: SandboxRequest, _ parameters: [String: String], now: Date) -> SandboxResponse {
        var limit = 20
        if let text = parameters["limit"] {
            guard let value = Int(text), (1...50).contains(value) else { return .apiError(400, "Invalid limit") }
            limit = value
        }
        func cursor(_ name: String) -> Result<Int64?, SandboxResponseError> {
            guard let text = parameters[name] else { return .success(nil) }
            guard let value = Int64(text), value >= 0 else { return .failure(.init(response: .apiError(400, "Invalid \(name)"))) }
            return .success(value)
        }
        let after: Int64?, before: Int64?
        switch (cursor("after"), cursor("before")) {
        case let (.success(a), .success(b)):
            after = a
            before = b
        case let (.failure(error), _), let (_, .failure(error)):
            return error.response
        }
        if after != nil, before != nil { return .apiError(400, "Only one of after or before may be given") }
        return withState { s in
            s.player.settle(to: s.clock.milliseconds(at: now), duration: playDuration)
            let renderer = LibraryRenderer(apiBase: s.baseURL + "/v1", legacy: configuration.legacy)
            // Tracks only: the endpoint "doesn't currently support podcast episodes".
            var plays = s.player.recent.filter { !$0.item.isEpisode }
            if let after { plays = plays.filter { $0.playedAt > after } }
            if let before { plays = plays.filter { $0.playedAt < before } }
            let page = Array(plays.prefix(limit))
            let base = s.baseURL + "/v1/me/player/recently-played"
            let items: [JSONValue] = page.map { play in
                .object([
                    ("track", itemJSON(play.item, renderer)),
                    ("played_at", .string(ISODate.formatMilliseconds(ms: play.playedAt))),
                    ("context", contextJSON(play.contextURI, renderer: renderer)),
                ])
            }
            let oldest = page.last?.playedAt
            return .json(
                200,
                .object([
                    ("items", .array(items)),
                    ("next", plays.count > page.count ? oldest.map { JSONValue.string(base + "?before=\($0)&limit=\(limit)") } ?? .null : .null),
                    (
                        "cursors",
                        page.isEmpty
                            ? .null
                            : .object([
                                ("after", .string(String(page[0].playedAt))), ("before", .string(String(oldest ?? 0))),
                            ])
                    ),
                    ("limit", .int(limit)),
                    ("href", .string(base + (request.query.isEmpty ? "" : "?" + request.query))),
                ]))
        }
    }

    func deviceJSON(_ device: PlayerDevice, active: String?) -> JSONValue {
        .object([
            ("id", .string(device.id)),
            ("is_active", .bool(device.id == active)),
            ("is_private_session", .bool(device.isPrivateSession)),
            ("is_restricted", .bool(device.isRestricted)),
            ("name", .string(device.name)),
            ("supports_volume", .bool(device.supportsVolume)),
            ("type", .string(device.type)),
            ("volume_percent", device.volumePercent.map { JSONValue.int($0) } ?? .null),
        ])
    }

    private func itemJSON(_ item: PlayItem, _ renderer: LibraryRenderer) -> JSONValue {
        let pool = catalog.pool
        switch item {
        case let .track(index): return renderer.track(pool.track(index))
        case let .episode(index): return renderer.episode(pool.episode(index))
        case let .foreignTrack(id): return renderer.track(pool.foreignTrack(id: id))
        case let .foreignEpisode(id): return renderer.episode(pool.foreignEpisode(id: id))
        }
    }

    private func contextJSON(_ uri: String?, renderer: LibraryRenderer) -> JSONValue {
        guard let uri else { return .null }
        let parts = uri.split(separator: ":").map(String.init)
        guard parts.count == 3 else { return .null }
        return .object([
            ("type", .string(parts[1])),
            ("href", .string(renderer.apiBase + "/\(parts[1])s/\(parts[2])")),
            ("external_urls", renderer.externalURLs(parts[1], parts[2])),
            ("uri", .string(uri)),
        ])
    }

    // MARK: Commands

    /// What one command asks, parsed from the request alone (its 400s come before any look at the player).
    private enum Command {
        case transfer(String, play: Bool?)
        case play(PlayBody?)
        case pause, next, previous
        case seek(Int64)
        case repeatMode(RepeatState)
        case volume(Int)
        case shuffle(Bool)
        case queue(String)
    }

    private func parseCommand(_ name: String, _ request: SandboxRequest) -> Result<Command, SandboxResponseError> {
        let parameters = request.parameters
        func fail(_ message: String) -> Result<Command, SandboxResponseError> { .failure(.init(response: .apiError(400, message))) }
        switch name {
        case "":
            guard let body = decodeBody(TransferBody.self, request) else { return .failure(.init(response: Self.badJSON)) }
            guard let ids = body.deviceIDs, !ids.isEmpty else { return fail("Missing device_ids") }
            // "Although an array is accepted, only a single device_id is currently supported."
            guard ids.count == 1 else { return fail("Only one device_id is supported") }
            return .success(.transfer(ids[0], play: body.play))
        case "play":
            let empty = request.body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            if empty { return .success(.play(nil)) }
            guard let body = decodeBody(PlayBody.self, request) else { return .failure(.init(response: Self.badJSON)) }
            if body.contextURI != nil, body.uris != nil { return fail("Only one of either context_uri or uris can be specified") }
            if body.offset?.position != nil, body.offset?.uri != nil { return fail("Only one of offset position or offset uri can be specified") }
            if let position = body.offset?.position, position < 0 { return fail("Invalid offset") }
            if let ms = body.positionMS, ms < 0 { return fail("Invalid position_ms") }
            return .success(.play(body.contextURI == nil && body.uris == nil && body.offset == nil && body.positionMS == nil ? nil : body))
        case "pause": return .success(.pause)
        case "next": return .success(.next)
        case "previous": return .success(.previous)
        case "seek":
            guard let text = parameters["position_ms"], let ms = Int64(text), ms >= 0 else { return fail("Invalid position_ms") }
            return .success(.seek(ms))
        case "repeat":
            guard let text = parameters["state"], let state = RepeatState(rawValue: text) else { return fail("Invalid state") }
            return .success(.repeatMode(state))
        case "volume":
            guard let text = parameters["volume_percent"], let value = Int(text), (0...100).contains(value) else {
                return fail("Invalid volume_percent")
            }
            return .success(.volume(value))
        case "shuffle":
            guard let text = parameters["state"], text == "true" || text == "false" else { return fail("Invalid state") }
            return .success(.shuffle(text == "true"))
        case "queue":
            guard let uri = parameters["uri"], !uri.isEmpty else { return fail("Missing uri") }
            return .success(.queue(uri))
        default:
            return fail("Unknown player command")
        }
    }

    private func playerCommand(_ name: String, _ request: SandboxRequest, now: Date) -> SandboxResponse {
        let command: Command
        switch parseCommand(name, request) {
        case let .success(parsed): command = parsed
        case let .failure(error): return error.response
        }
        let deviceID = request.parameters["device_id"]
        return withState { s in
            let time = s.clock.milliseconds(at: now)
            s.player.settle(to: time, duration: playDuration)
            // The device the command is for: the one named (which `play` may wake), else the active one.
            if case let .transfer(id, play) = command {
                guard let device = s.player.devices.first(where: { $0.id == id }) else { return Self.deviceNotFound }
                guard !device.isRestricted else { return Self.deviceNotControllable }
                s.player.activeDeviceID = id
                if play == true, s.player.current != nil, !s.player.isPlaying { s.player.setPlaying(true, now: time) }
                return Self.noContent
            }
            let target: PlayerDevice
            if let deviceID {
                guard let device = s.player.devices.first(where: { $0.id == deviceID }) else { return Self.deviceNotFound }
                target = device
            } else {
                guard let device = s.player.activeDevice else { return Self.noActiveDevice }
                target = device
            }
            guard !target.isRestricted else { return Self.deviceNotControllable }
            let wasActive = target.id == s.player.activeDeviceID
            if case .play = command {
            } else if !wasActive {
                return Self.noActiveDevice
            }
            switch command {
            case .transfer:
                return Self.noContent
            case let .play(body):
                guard let body else {
                    // Resume: Spotify refuses to resume what already plays ("Restriction violated").
                    guard s.player.current != nil, !(wasActive && s.player.isPlaying) else { return Self.restrictionViolated }
                    s.player.activeDeviceID = target.id
                    s.player.setPlaying(true, now: time)
                    return Self.noContent
                }
                switch playList(body, library: s.library) {
                case let .failure(error): return error.response
                case let .success((list, contextURI, start)):
                    s.player.activeDeviceID = target.id
                    s.player.load(list, contextURI: contextURI, from: start, positionMs: body.positionMS ?? 0, now: time, duration: playDuration)
                    return Self.noContent
                }
            case .pause:
                guard s.player.current != nil, s.player.isPlaying else { return Self.restrictionViolated }
                s.player.setPlaying(false, now: time)
            case .next:
                guard s.player.current != nil else { return Self.restrictionViolated }
                s.player.isPlaying = true
                s.player.advance(at: time, wrap: s.player.repeatState == .context)
            case .previous:
                guard s.player.current != nil else { return Self.restrictionViolated }
                s.player.isPlaying = true
                s.player.back(at: time)
            case let .seek(ms):
                guard s.player.current != nil else { return Self.restrictionViolated }
                s.player.seek(to: ms, now: time, duration: playDuration)
            case let .repeatMode(state):
                s.player.repeatState = state
                s.player.timestamp = time
            case let .shuffle(on):
                s.player.setShuffle(on)
                s.player.timestamp = time
            case let .volume(percent):
                guard target.supportsVolume, let index = s.player.devices.firstIndex(where: { $0.id == target.id }) else {
                    return Self.volumeControlDisallowed
                }
                s.player.devices[index].volumePercent = percent
            case let .queue(text):
                switch playItem(text, library: s.library) {
                case let .success(item): s.player.queue.append(item)
                case let .failure(error): return error.response
                }
            }
            return Self.noContent
        }
    }

    /// A track or episode URI the catalogue (or the library's added items) knows.
    private func playItem(_ text: String, library: Library) -> Result<PlayItem, SandboxResponseError> {
        let invalid = SandboxResponseError(response: .apiError(400, "Invalid track uri: " + String(text.prefix(200))))
        switch ItemURI(parsing: text) {
        case let .track(id)?:
            if let index = catalog.trackIndex(id: id) { return .success(.track(index)) }
            if library.foreign.contains(.track(id)) { return .success(.foreignTrack(id)) }
        case let .episode(id)?:
            if let index = catalog.episodeIndex(id: id) { return .success(.episode(index)) }
            if library.foreign.contains(.episode(id)) { return .success(.foreignEpisode(id)) }
        default:
            break
        }
        return .failure(invalid)
    }

    private func playItem(_ entry: Entry, library: Library) -> PlayItem? {
        switch entry.kind {
        case .track: return .track(Int(entry.ref))
        case .episode: return .episode(Int(entry.ref))
        case .foreign:
            guard Int(entry.ref) < library.foreign.count else { return nil }
            switch library.foreign[Int(entry.ref)] {
            case let .track(id): return .foreignTrack(id)
            case let .episode(id): return .foreignEpisode(id)
            case .local: return nil
            }
        case .local, .malformed, .null: return nil
        }
    }

    /// What a `play` body names: the list, its context URI (nil for `uris`) and the entry to start at.
    private func playList(_ body: PlayBody, library: Library) -> Result<([PlayItem?], String?, Int), SandboxResponseError> {
        var list: [PlayItem?]
        let uris: [String]
        var contextURI: String?
        if let context = body.contextURI {
            let parts = context.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0] == "spotify" else {
                return .failure(.init(response: .apiError(400, "Invalid context uri: " + String(context.prefix(200)))))
            }
            switch parts[1] {
            case "playlist":
                let playlist: Playlist
                switch lookup(parts[2], in: library) {
                case let .success(found): playlist = found
                case let .failure(error): return .failure(error)
                }
                list = playlist.entries.map { playItem($0, library: library) }
                uris = playlist.entries.map { entry in playItem(entry, library: library).map(playItemURI) ?? "" }
            case "album":
                guard let album = catalog.albumIndex(id: parts[2]) else { return .failure(.init(response: .apiError(404, "Resource not found"))) }
                list = catalog.tracks(onAlbum: album).map { .track($0) }
                uris = list.map { $0.map(playItemURI) ?? "" }
            default:
                // Artists, shows and the rest are contexts Spotify plays; the sandbox keeps none of them.
                return .failure(.init(response: .apiError(400, "Unsupported context uri: " + String(context.prefix(200)))))
            }
            contextURI = context
        } else {
            list = []
            for text in body.uris ?? [] {
                switch playItem(text, library: library) {
                case let .success(item): list.append(item)
                case let .failure(error): return .failure(error)
                }
            }
            uris = list.map { $0.map(playItemURI) ?? "" }
        }
        var start = 0
        if let position = body.offset?.position {
            // Spotify: "If incorrect values are provided for position or uri, the request may be
            // accepted but with an unpredictable resulting action on playback" — the sandbox refuses.
            guard position < list.count else { return .failure(.init(response: .apiError(400, "Offset out of range"))) }
            start = position
        } else if let uri = body.offset?.uri {
            guard let index = uris.firstIndex(of: uri) else { return .failure(.init(response: .apiError(400, "Offset uri not in context"))) }
            start = index
        }
        guard !list.isEmpty else { return .failure(.init(response: .apiError(400, "Nothing to play"))) }
        return .success((list, contextURI, start))
    }
}
