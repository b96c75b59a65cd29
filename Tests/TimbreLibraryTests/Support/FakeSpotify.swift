import Foundation
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// The one `SpotifyAPI` of the unit tests: one playlist on an in-memory Spotify with the Web API's
/// write semantics (remove takes every copy, each change a new snapshot, stale snapshots
/// accepted), written independently of the planner it checks, and Liked Songs. Faults: a write
/// applied whose answer is lost, and a network that goes down after a number of writes (the
/// process "dies" there). Every call is logged (`calls`); answers can be scripted by path prefix
/// (`scripted`, ahead of the model: the sync's seam tests), tracks named for `GET tracks/{id}`
/// (`catalog`), and the player's paths answered with one answer or refusal (`player`).
final class FakeSpotify: SpotifyAPI, @unchecked Sendable {
    /// One call as it reached the fake.
    struct Call: Sendable, Equatable {
        var method: String
        var path: String
        var body: String?
        /// "GET path" without the query, or "ME": what the request-count tests compare.
        var short: String { method == "ME" ? "ME" : method + " " + (path.split(separator: "?").first.map(String.init) ?? path) }
        /// "PUT path?query body": what the player tests compare.
        var full: String { method + " " + path + (body.map { " " + $0 } ?? "") }
    }

    struct State {
        var entries: [String]
        var version = 1
        var owner = "listener"
        var collaborative = false
        var writes = 0
        /// Writes (1-based) that are applied but whose answer never arrives.
        var loseAnswerOf: Set<Int> = []
        /// Writes after this many fail before reaching the server.
        var downAfter: Int?
        /// The next this many writes are answered 503 and not applied.
        var unavailable = 0
        /// Every write is answered 403 (the owner changed the playlist's sharing, say).
        var forbidden = false
        /// Liked Songs, newest first.
        var liked: [String] = []
        /// Title, first artist and duration by URI (default: generated from the id).
        var metadata: [String: (name: String, artist: String, ms: Int)] = [:]
        var libraryWrites = 0
    }

    static let playlistID = "0123456789abcdefABCDEF"
    let state: Locked<State>
    let calls = Locked<[Call]>([])
    /// Bodies answered to a GET whose path starts with a key (the longest matching key wins).
    let scripted: Locked<[String: String]>
    /// Names of the tracks `GET tracks/{id}` finds, by URI (the model itself names none).
    let catalog = Locked<[String: String]>([:])
    /// `me/player…`: answered with `answer`, or refused with `refusal`.
    let player: Locked<(answer: HTTPResponse, refusal: SpotifyError?)>

    init(entries: [String] = [], scripted: [String: String] = [:], player: HTTPResponse = HTTPResponse(status: 204), refusal: SpotifyError? = nil) {
        state = Locked(State(entries: entries))
        self.scripted = Locked(scripted)
        self.player = Locked((player, refusal))
    }

    /// The calls in their short form ("GET path", "POST path", "ME").
    var log: [String] { calls.current.map(\.short) }
    /// The paths of the GETs, with their queries.
    var asked: [String] { calls.current.filter { $0.method == "GET" }.map(\.path) }

    var entries: [String] { state.current.entries }
    var writes: Int { state.current.writes }

    func me() async throws -> UserProfile {
        calls.withLock { $0.append(Call(method: "ME", path: "")) }
        return UserProfile(id: "listener", displayName: "A Listener")
    }

    func get(_ path: String) async throws -> HTTPResponse {
        calls.withLock { $0.append(Call(method: "GET", path: path)) }
        return try await answer(path)
    }

    private func answer(_ path: String) async throws -> HTTPResponse {
        let scripted = self.scripted.current
        if let key = scripted.keys.filter({ path.hasPrefix($0) }).max(by: { $0.count < $1.count }), let body = scripted[key] {
            return Self.ok(body)
        }
        if path.hasPrefix("me/player") {
            let (answer, refusal) = player.current
            if let refusal { throw refusal }
            return answer
        }
        if path.hasPrefix("tracks/"), let name = catalog.current["spotify:track:" + path.dropFirst(7)] {
            let id = path.dropFirst(7)
            return Self.ok(
                #"{"id": "\#(id)", "uri": "spotify:track:\#(id)", "name": "\#(name)", "type": "track", "duration_ms": 2000, "is_local": false, "artists": [{"name": "Someone"}], "album": {"name": "Elsewhere"}}"#
            )
        }
        let s = state.current
        let query = Self.query(path)
        if path.hasPrefix("me/library/contains") {
            let uris = Self.uris(query)
            guard uris.count <= 40 else { throw SpotifyError.api(status: 400, message: "too many ids", path: path) }
            return Self.ok("[" + uris.map { s.liked.contains($0) ? "true" : "false" }.joined(separator: ",") + "]")
        }
        if path.hasPrefix("me/tracks") {
            let offset = Int(query["offset"] ?? "0") ?? 0, limit = Int(query["limit"] ?? "50") ?? 50
            let slice = s.liked.indices.filter { $0 >= offset && $0 < offset + limit }.map { Self.entryJSON(s.liked[$0], field: "track") }
            return Self.ok(#"{"items": [\#(slice.joined(separator: ","))], "next": null, "total": \#(s.liked.count)}"#)
        }
        if path.hasPrefix("playlists/\(Self.playlistID)/items") {
            let offset = Int(query["offset"] ?? "0") ?? 0, limit = Int(query["limit"] ?? "100") ?? 100
            let slice = s.entries.indices.filter { $0 >= offset && $0 < offset + limit }.map { index -> String in
                let uri = s.entries[index], id = uri.split(separator: ":").last.map(String.init) ?? ""
                let meta = s.metadata[uri] ?? ("Song \(id.prefix(4))", "A", 1000)
                if uri.hasPrefix("spotify:local:") {
                    return
                        #"{"added_at": null, "is_local": true, "item": {"id": null, "uri": "\#(uri)", "name": "Home Demo", "type": "track", "duration_ms": 180000, "is_local": true, "artists": [{"name": "Artist"}], "album": {"name": "Album"}}}"#
                }
                return
                    #"{"added_at": "2024-01-01T00:00:00Z", "is_local": false, "item": {"id": "\#(id)", "uri": "\#(uri)", "name": "\#(meta.name)", "type": "track", "duration_ms": \#(meta.ms), "is_local": false, "artists": [{"name": "\#(meta.artist)"}], "album": {"name": "B"}}}"#
            }
            return Self.ok(#"{"items": [\#(slice.joined(separator: ","))], "next": null, "total": \#(s.entries.count)}"#)
        }
        if path.hasPrefix("playlists/\(Self.playlistID)") {
            return Self.ok(
                #"{"id": "\#(Self.playlistID)", "name": "Road Trip", "owner": {"id": "\#(s.owner)", "display_name": "Owner"}, "snapshot_id": "snap\#(s.version)", "collaborative": \#(s.collaborative), "public": true, "items": {"total": \#(s.entries.count)}}"#
            )
        }
        throw SpotifyError.api(status: 404, message: "not scripted, not in the fake: \(path)", path: path)
    }

    func send(_ method: HTTPMethod, _ path: String, json body: Data?, reconciles: Bool) async throws -> HTTPResponse {
        calls.withLock { $0.append(Call(method: method.rawValue, path: path, body: body.map { String(decoding: $0, as: UTF8.self) })) }
        guard method != .get else { return try await answer(path) }
        if path.hasPrefix("me/player") {
            let (answer, refusal) = player.current
            if let refusal { throw refusal }
            return answer
        }
        if path.hasPrefix("me/library?") {
            let uris = Self.uris(Self.query(path))
            guard uris.count <= 40 else { throw SpotifyError.api(status: 400, message: "too many ids", path: path) }
            state.withLock { s in
                s.libraryWrites += 1
                if method == .put {
                    s.liked = uris.reversed().filter { !s.liked.contains($0) } + s.liked
                } else {
                    s.liked.removeAll { uris.contains($0) }
                }
            }
            return Self.ok("")
        }
        let object = (try? JSONSerialization.jsonObject(with: body ?? Data())) as? [String: Any] ?? [:]
        let unavailable: Bool = state.withLock { s in
            guard s.unavailable > 0 else { return false }
            s.unavailable -= 1
            return true
        }
        if unavailable { throw WriteOutcomeUnknown(path: path, reason: "HTTP 503") }
        let (lost, down): (Bool, Bool) = state.withLock { s in
            if let after = s.downAfter, s.writes >= after { return (false, true) }
            s.writes += 1
            return (s.loseAnswerOf.contains(s.writes), false)
        }
        if down { throw TransportError.connection(host: "api", kind: .refused, detail: "the network is down") }
        if state.current.forbidden { throw SpotifyError.api(status: 403, message: "You cannot edit this playlist", path: path) }
        let status: Int = state.withLock { s in
            switch method {
            case .post:
                let uris = object["uris"] as? [String] ?? []
                let position = object["position"] as? Int ?? s.entries.count
                guard (0...s.entries.count).contains(position), uris.count <= 100 else { return 400 }
                s.entries.insert(contentsOf: uris, at: position)
            case .delete:
                let gone = Set((object["items"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String })
                s.entries.removeAll { gone.contains($0) }
            case .put where object["uris"] != nil:
                let uris = object["uris"] as? [String] ?? []
                guard uris.count <= 100 else { return 400 }
                s.entries = uris
            case .put:
                let start = object["range_start"] as? Int ?? -1, before = object["insert_before"] as? Int ?? -1
                let length = object["range_length"] as? Int ?? 1
                guard start >= 0, start + length <= s.entries.count, (0...s.entries.count).contains(before) else { return 400 }
                let moving = Array(s.entries[start..<start + length])
                // Mark, insert, then drop the originals: Spotify's insert_before counts positions before the move.
                var marked: [String?] = s.entries.map { $0 }
                for index in start..<start + length { marked[index] = nil }
                marked.insert(contentsOf: moving.map { Optional($0) }, at: before)
                s.entries = marked.compactMap { $0 }
            default:
                return 405
            }
            s.version += 1
            return method == .post ? 201 : 200
        }
        guard status < 300 else { throw SpotifyError.api(status: status, message: "bad request", path: path) }
        if lost { throw WriteOutcomeUnknown(path: path, reason: "connection reset") }
        return Self.ok(#"{"snapshot_id": "snap\#(state.current.version)"}"#, status: status)
    }

    static func uris(_ query: [String: String]) -> [String] {
        (query["uris"]?.removingPercentEncoding ?? "").split(separator: ",").map(String.init)
    }

    static func entryJSON(_ uri: String, field: String) -> String {
        let id = uri.split(separator: ":").last.map(String.init) ?? ""
        return
            #"{"added_at": "2024-01-01T00:00:00Z", "is_local": false, "\#(field)": {"id": "\#(id)", "uri": "\#(uri)", "name": "Song \#(id.prefix(4))", "type": "track", "duration_ms": 1000, "is_local": false, "artists": [{"name": "A"}], "album": {"name": "B"}}}"#
    }

    static func ok(_ body: String, status: Int = 200) -> HTTPResponse { HTTPResponse(status: status, body: Data(body.utf8)) }

    static func query(_ path: String) -> [String: String] {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { result[kv[0]] = kv[1] }
        }
        return result
    }
}
