import Foundation
import TimbreCore
import TimbreNet

/// Spotify's Player endpoints over the `SpotifyAPI` seam (the process's one token manager, rate
/// budget and executor): each call is exactly one request. Commands without a body go out as
/// bodiless `PUT`/`POST` (the transport says `Content-Length: 0`); their parameters are in the
/// query, as the description declares them. Spotify's refusals are thrown as `PlayerRefusal`
/// when they are the player's own (`NO_ACTIVE_DEVICE`, `PREMIUM_REQUIRED`, …), else as they came.
public struct PlayerAPI: Sendable {
    /// What `play` asks Spotify to play (`PUT /me/player/play`'s body).
    public enum Play: Sendable, Equatable {
        /// No body: resume what was playing.
        case resume
        /// A playlist or album URI, from `offset` (Spotify's index, from 0) or from an entry's URI.
        case context(uri: String, offset: Offset?)
        /// A list of tracks or episodes (what Liked Songs is: it has no context URI), from `offset`.
        case uris([String], offset: Int?)

        public enum Offset: Sendable, Equatable {
            case position(Int)
            case uri(String)
        }

        var body: Data? {
            switch self {
            case .resume:
                return nil
            case .context(let uri, let offset):
                var object: [(String, JSONValue)] = [("context_uri", .string(uri))]
                switch offset {
                case .position(let index): object.append(("offset", .object([("position", .int(index))])))
                case .uri(let entry): object.append(("offset", .object([("uri", .string(entry))])))
                case nil: break
                }
                return Data(JSONValue.object(object).serialized().utf8)
            case .uris(let uris, let offset):
                var object: [(String, JSONValue)] = [("uris", .array(uris.map(JSONValue.string)))]
                if let offset { object.append(("offset", .object([("position", .int(offset))]))) }
                return Data(JSONValue.object(object).serialized().utf8)
            }
        }
    }

    /// The most URIs one `play` sends (Liked Songs from an entry on): Spotify documents no limit;
    /// this keeps the body small and the queue ahead long enough to listen for hours.
    public static let maxURIs = 100

    let api: any SpotifyAPI

    public init(api: any SpotifyAPI) { self.api = api }

    // MARK: Reads

    /// `GET /me/player` (episodes included); nil when Spotify answers 204: no device is active.
    public func state() async throws -> PlaybackState? {
        let response = try await call { try await api.get("me/player?additional_types=episode") }
        guard response.status != 204, let object = PlayerJSON.object(response.body) else { return nil }
        return PlaybackState(object)
    }

    /// `GET /me/player/devices`, in Spotify's order.
    public func devices() async throws -> [PlayerDevice] {
        let response = try await call { try await api.get("me/player/devices") }
        return (PlayerJSON.object(response.body)?["devices"] as? [Any] ?? []).compactMap { ($0 as? [String: Any]).flatMap(PlayerDevice.init) }
    }

    /// `GET /me/player/recently-played?limit=N` (1–50), most recent first.
    public func recentlyPlayed(limit: Int) async throws -> [PlayedTrack] {
        let limit = min(max(limit, 1), 50)
        let response = try await call { try await api.get("me/player/recently-played?limit=\(limit)") }
        return (PlayerJSON.object(response.body)?["items"] as? [Any] ?? []).compactMap { ($0 as? [String: Any]).flatMap(PlayedTrack.init) }
    }

    // MARK: Commands (Premium)

    /// `PUT /me/player/play[?device_id=]`: a context from an offset, a list of URIs, or resume.
    public func play(_ what: Play, device: String? = nil) async throws {
        try await command(.put, "me/player/play", device: device, body: what.body)
    }

    /// `PUT /me/player/pause`.
    public func pause(device: String? = nil) async throws {
        try await command(.put, "me/player/pause", device: device)
    }

    /// `POST /me/player/next`. Not idempotent: an answer lost in transit is not sent again.
    public func next(device: String? = nil) async throws {
        try await command(.post, "me/player/next", device: device, reconciles: true)
    }

    /// `POST /me/player/previous`. Not idempotent, as `next`.
    public func previous(device: String? = nil) async throws {
        try await command(.post, "me/player/previous", device: device, reconciles: true)
    }

    /// `PUT /me/player/seek?position_ms=` (≥ 0; past the track's end the next one plays).
    public func seek(toMS position: Int, device: String? = nil) async throws {
        try await command(.put, "me/player/seek", query: "position_ms=\(max(0, position))", device: device)
    }

    /// `PUT /me/player/volume?volume_percent=` (clamped to 0–100).
    public func volume(_ percent: Int, device: String? = nil) async throws {
        try await command(.put, "me/player/volume", query: "volume_percent=\(min(100, max(0, percent)))", device: device)
    }

    /// `PUT /me/player/shuffle?state=true|false`.
    public func shuffle(_ on: Bool, device: String? = nil) async throws {
        try await command(.put, "me/player/shuffle", query: "state=\(on)", device: device)
    }

    /// `PUT /me/player/repeat?state=off|track|context`.
    public func setRepeat(_ state: PlaybackState.Repeat, device: String? = nil) async throws {
        try await command(.put, "me/player/repeat", query: "state=\(state.rawValue)", device: device)
    }

    /// `POST /me/player/queue?uri=` (one track or episode a request: the API takes one).
    public func queue(_ uri: String, device: String? = nil) async throws {
        try await command(.post, "me/player/queue", query: "uri=\(Self.encoded(uri))", device: device, reconciles: true)
    }

    /// `PUT /me/player` `{"device_ids": [ID], "play": bool}`: playback moves to that device.
    public func transfer(to device: String, play: Bool) async throws {
        let body = JSONValue.object([("device_ids", .array([.string(device)])), ("play", .bool(play))])
        try await command(.put, "me/player", device: nil, body: Data(body.serialized().utf8))
    }

    // MARK: Plumbing

    private func command(
        _ method: HTTPMethod, _ path: String, query: String? = nil, device: String?, body: Data? = nil, reconciles: Bool = false
    ) async throws {
        var parameters: [String] = []
        if let query { parameters.append(query) }
        if let device { parameters.append("device_id=\(Self.encoded(device))") }
        let target = parameters.isEmpty ? path : path + "?" + parameters.joined(separator: "&")
        _ = try await call { try await api.send(method, target, json: body, reconciles: reconciles) }
    }

    /// Runs one request; the player's refusals become `PlayerRefusal`s.
    private func call(_ request: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await request()
        } catch let error as SpotifyError {
            if let refusal = PlayerRefusal(error) { throw refusal }
            throw error
        }
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
