import Foundation
import Testing

@testable import SandboxCore

/// An in-process sandbox with a signed-in token, for the write endpoints. Every request is sent
/// at `now` (a fixed moment), so `added_at` of what a write adds is known exactly.
struct WriteClient {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    static let nowText = "2026-05-28T20:26:40Z"
    static let redirect = "http://127.0.0.1:8974/callback"

    let service: SandboxService
    var token: String
    /// The generated library the server started from (small, seed 42 unless configured).
    let library: Library
    let catalog: Catalog

    init(scopes: [String] = Scopes.known, _ adjust: (inout SandboxConfiguration) -> Void = { _ in }) {
        var configuration = SandboxConfiguration()
        adjust(&configuration)
        service = SandboxService(configuration: configuration)
        service.setBaseURL("https://127.0.0.1:9")
        library = Library(size: configuration.library, seed: configuration.seed)
        catalog = Catalog(pool: library.pool)
        token = ""
        token = signIn(scopes: scopes)
    }

    /// A new access token carrying exactly `scopes`.
    func signIn(scopes: [String]) -> String {
        let query =
            "response_type=code&client_id=0123456789abcdef0123456789abcdef&redirect_uri=\(FormEncoding.escape(Self.redirect))"
            + "&scope=\(FormEncoding.escape(scopes.joined(separator: " ")))&state=s1&code_challenge_method=S256"
            + "&code_challenge=\(Digest.pkceChallenge(verifier: ServiceTests.verifier))"
        let authorize = service.handle(SandboxRequest(method: "GET", path: "/authorize", query: query, headers: [:]))
        let form = [
            "grant_type": "authorization_code", "code": ServiceTests.code(from: authorize) ?? "", "redirect_uri": Self.redirect,
            "client_id": "0123456789abcdef0123456789abcdef", "code_verifier": ServiceTests.verifier,
        ]
        return ServiceTests.post(service, "/api/token", form: form).1["access_token"] as? String ?? ""
    }

    struct Answer {
        var status: Int
        var body: [UInt8]
        var response: SandboxResponse

        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        /// `error.message` of a Web API error.
        var message: String? { (object["error"] as? [String: Any])?["message"] as? String }
        var items: [[String: Any]] { object["items"] as? [[String: Any]] ?? [] }
    }

    /// Sends `method target` with the token (or `token`) and an optional JSON body.
    @discardableResult
    func call(_ method: String, _ target: String, json: String? = nil, token: String? = nil) -> Answer {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var headers = ["authorization": "Bearer \(token ?? self.token)"]
        if json != nil { headers["content-type"] = "application/json" }
        // What every HTTP client sends with a write, a body or not (the sandbox answers 411 without).
        if method != "GET" { headers["content-length"] = String((json ?? "").utf8.count) }
        let response = service.handle(
            SandboxRequest(method: method, path: parts[0], query: parts.count > 1 ? parts[1] : "", headers: headers, body: Array((json ?? "").utf8)),
            now: Self.now
        )
        return Answer(status: response.status, body: response.body, response: response)
    }

    @discardableResult
    func get(_ target: String) -> Answer { call("GET", target) }

    /// A control call (no token).
    @discardableResult
    func control(_ method: String, _ name: String, json: String = "") -> Answer {
        let parts = name.split(separator: "?", maxSplits: 1).map(String.init)
        let response = service.handle(
            SandboxRequest(
                method: method, path: "/__sandbox/" + parts[0], query: parts.count > 1 ? parts[1] : "",
                headers: [:], body: Array(json.utf8)), now: Self.now)
        return Answer(status: response.status, body: response.body, response: response)
    }

    /// The server's model of one playlist (`GET /__sandbox/playlists/{id}`).
    func model(_ id: String) -> [String: Any] { control("GET", "playlists/\(id)").object }

    /// The URIs of a playlist's entries in the server's model.
    func entries(_ id: String) -> [String] {
        (model(id)["items"] as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
    }

    func snapshot(_ id: String) -> String { model(id)["snapshot_id"] as? String ?? "" }

    /// Liked Songs URIs, most recent first.
    func liked() -> [String] {
        (control("GET", "liked").object["liked"] as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
    }

    /// The ids `/me/playlists` lists, in order.
    func listedPlaylists() -> [String] {
        get("/v1/me/playlists?limit=50").items.compactMap { $0["id"] as? String }
    }

    // MARK: Fixtures

    /// A pool track's URI.
    func trackURI(_ index: Int) -> String { "spotify:track:" + library.pool.trackID(index) }

    /// A playlist of the generated library (small: 9), by what it is.
    func playlist(_ predicate: (Playlist) -> Bool) throws -> Playlist {
        let found = library.playlists.first(where: predicate)
        return try #require(found)
    }

    /// The user's own playlist (public unless `isPublic` says otherwise) with at least `minimum` entries.
    func ownPlaylist(isPublic: Bool = true, minimum: Int = 3) throws -> Playlist {
        try playlist { $0.owner == 0 && $0.isPublic == isPublic && !$0.collaborative && $0.entries.count >= minimum }
    }

    /// JSON for `{"uris":[…]}` plus extra members.
    static func urisBody(_ uris: [String], extra: String = "") -> String {
        let list = uris.map { "\"\($0)\"" }.joined(separator: ",")
        return "{\"uris\":[\(list)]" + (extra.isEmpty ? "" : "," + extra) + "}"
    }

    /// JSON for `{"items":[{"uri":…},…]}` plus extra members.
    static func itemsBody(_ uris: [String], extra: String = "") -> String {
        let list = uris.map { "{\"uri\":\"\($0)\"}" }.joined(separator: ",")
        return "{\"items\":[\(list)]" + (extra.isEmpty ? "" : "," + extra) + "}"
    }
}
