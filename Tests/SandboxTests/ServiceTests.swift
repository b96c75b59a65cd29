import Foundation
import Testing

@testable import SandboxCore

/// The sandbox's behaviour in process, without the TLS server.
@Suite struct ServiceTests {
    static let redirect = "http://127.0.0.1:8974/callback"

    static func make(_ adjust: (inout SandboxConfiguration) -> Void = { _ in }) -> SandboxService {
        var configuration = SandboxConfiguration()
        adjust(&configuration)
        let service = SandboxService(configuration: configuration)
        service.setBaseURL("https://127.0.0.1:9")
        return service
    }

    static func get(_ service: SandboxService, _ target: String, token: String? = nil) -> (Int, JSONObject) {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var headers: [String: String] = [:]
        if let token { headers["authorization"] = "Bearer \(token)" }
        let response = service.handle(SandboxRequest(method: "GET", path: parts[0], query: parts.count > 1 ? parts[1] : "", headers: headers))
        return (response.status, parseObject(response.body))
    }

    static func post(_ service: SandboxService, _ path: String, form: [String: String]) -> (Int, JSONObject) {
        let body = form.map { "\($0)=\(FormEncoding.escape($1))" }.joined(separator: "&")
        let response = service.handle(SandboxRequest(method: "POST", path: path, query: "", headers: [:], body: Array(body.utf8)))
        return (response.status, parseObject(response.body))
    }

    static func authorize(_ service: SandboxService, challenge: String, redirect: String = redirect) -> SandboxResponse {
        let query =
            "response_type=code&client_id=0123456789abcdef0123456789abcdef&redirect_uri=\(FormEncoding.escape(redirect))"
            + "&scope=user-library-read&state=s1&code_challenge_method=S256&code_challenge=\(challenge)"
        return service.handle(SandboxRequest(method: "GET", path: "/authorize", query: query, headers: [:]))
    }

    static func code(from response: SandboxResponse) -> String? {
        response.headers.first { $0.0 == "Location" }.flatMap { URLComponents(string: $0.1) }?
            .queryItems?.first { $0.name == "code" }?.value
    }

    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    /// A signed-in access token and refresh token.
    static func signIn(_ service: SandboxService) -> (String, String) {
        let response = authorize(service, challenge: Digest.pkceChallenge(verifier: verifier))
        let (_, token) = post(
            service, "/api/token",
            form: [
                "grant_type": "authorization_code", "code": code(from: response) ?? "", "redirect_uri": redirect,
                "client_id": "0123456789abcdef0123456789abcdef", "code_verifier": verifier,
            ])
        return (token["access_token"] as? String ?? "", token["refresh_token"] as? String ?? "")
    }

    @Test func pkceChallengeMatchesRFC7636Example() {
        #expect(Digest.pkceChallenge(verifier: Self.verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func authorizeValidatesParameters() {
        let service = Self.make()
        let challenge = Digest.pkceChallenge(verifier: Self.verifier)
        let good = Self.authorize(service, challenge: challenge)
        #expect(good.status == 302)
        #expect(good.headers.contains { $0.0 == "Location" && $0.1.hasPrefix(Self.redirect + "?code=") && $0.1.hasSuffix("&state=s1") })

        let localhost = Self.authorize(service, challenge: challenge, redirect: "http://localhost:8974/callback")
        #expect(localhost.status == 400)
        #expect(String(decoding: localhost.body, as: UTF8.self) == "INVALID_CLIENT: Invalid redirect URI")
        let short = Self.authorize(service, challenge: "abc")
        #expect(short.status == 302)
        #expect(short.headers.contains { $0.1.contains("error=invalid_request") })
    }

    @Test func deniedAuthorization() {
        let service = Self.make()
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/authorize-mode", query: "", headers: [:], body: Array(#"{"mode":"deny"}"#.utf8)))
        let response = Self.authorize(service, challenge: Digest.pkceChallenge(verifier: Self.verifier))
        #expect(response.headers.contains { $0.1 == Self.redirect + "?error=access_denied&state=s1" })
    }

    @Test func codeExchangeChecksVerifierAndIsSingleUse() {
        let service = Self.make()
        let response = Self.authorize(service, challenge: Digest.pkceChallenge(verifier: Self.verifier))
        let code = Self.code(from: response) ?? ""
        var form = [
            "grant_type": "authorization_code", "code": code, "redirect_uri": Self.redirect,
            "client_id": "0123456789abcdef0123456789abcdef", "code_verifier": Self.verifier + "x",
        ]
        let (status, body) = Self.post(service, "/api/token", form: form)
        #expect(status == 400)
        #expect(body["error"] as? String == "invalid_grant")
        #expect(body["error_description"] as? String == "code_verifier was incorrect")
        form["code_verifier"] = Self.verifier
        let (again, replay) = Self.post(service, "/api/token", form: form)
        #expect(again == 400)
        #expect(replay["error_description"] as? String == "Invalid authorization code")

        let (access, refresh) = Self.signIn(service)
        #expect(!access.isEmpty && !refresh.isEmpty)
        #expect(Self.get(service, "/v1/me", token: access).0 == 200)
    }

    @Test func tokenEndpointErrors() {
        let service = Self.make()
        #expect(Self.post(service, "/api/token", form: [:]).1["error"] as? String == "unsupported_grant_type")
        #expect(Self.post(service, "/api/token", form: ["grant_type": "password", "client_id": "x"]).1["error"] as? String == "unsupported_grant_type")
        #expect(
            Self.post(service, "/api/token", form: ["grant_type": "refresh_token", "client_id": "nope", "refresh_token": "x"]).1["error"] as? String
                == "invalid_client")
        let bad = Self.post(
            service, "/api/token", form: ["grant_type": "refresh_token", "client_id": "0123456789abcdef0123456789abcdef", "refresh_token": "x"])
        #expect(bad.0 == 400)
        #expect(bad.1["error_description"] as? String == "Invalid refresh token")
    }

    @Test(arguments: RefreshRotation.allCases)
    func refreshRotation(mode: RefreshRotation) {
        let service = Self.make { $0.refreshRotation = mode }
        let (_, refresh) = Self.signIn(service)
        let form = ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "0123456789abcdef0123456789abcdef"]
        let (status, body) = Self.post(service, "/api/token", form: form)
        #expect(status == 200)
        let oldStillWorks = Self.post(service, "/api/token", form: form).0 == 200
        switch mode {
        case .rotate:
            #expect(body["refresh_token"] as? String != nil && body["refresh_token"] as? String != refresh)
            #expect(!oldStillWorks)
        case .omit:
            #expect(body["refresh_token"] == nil)
            #expect(oldStillWorks)
        case .same:
            #expect(body["refresh_token"] as? String == refresh)
            #expect(oldStillWorks)
        }
    }

    @Test func expiredAndRevokedTokens() {
        let service = Self.make()
        let (access, refresh) = Self.signIn(service)
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/expire-access-tokens", query: "", headers: [:]))
        let (status, body) = Self.get(service, "/v1/me", token: access)
        #expect(status == 401)
        #expect((body["error"] as? [String: Any])?["message"] as? String == "The access token expired")
        #expect(Self.get(service, "/v1/me", token: "nonsense").0 == 401)
        #expect(Self.get(service, "/v1/me").0 == 401)
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/revoke-refresh-tokens", query: "", headers: [:]))
        let revoked = Self.post(
            service, "/api/token", form: ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "0123456789abcdef0123456789abcdef"])
        #expect(revoked.1["error"] as? String == "invalid_grant")
    }

    @Test func pagingWalksEveryPlaylist() {
        let service = Self.make { $0.library = .medium }
        let (access, _) = Self.signIn(service)
        var url: String? = "/v1/me/playlists?limit=50"
        var ids: [String] = []
        var pages = 0
        while let next = url {
            let (status, page) = Self.get(service, next.replacingOccurrences(of: "https://127.0.0.1:9", with: ""), token: access)
            #expect(status == 200)
            #expect(page["total"] as? Int == 60)
            ids += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            url = page["next"] as? String
            pages += 1
        }
        #expect(pages == 2)
        #expect(ids.count == 60 && Set(ids).count == 60)
    }

    @Test func itemsLimitsShapesAndDevelopmentMode() throws {
        let service = Self.make()
        let (access, _) = Self.signIn(service)
        let library = Library(size: .small, seed: 42)
        let mine = try #require(library.playlists.first { $0.owner == 0 && $0.entries.count > 30 })
        let theirs = try #require(library.playlists.first { !$0.readableInDevelopmentMode })

        let tooMany = Self.get(service, "/v1/playlists/\(mine.id)/items?limit=100", token: access)
        #expect(tooMany.0 == 400)
        #expect((tooMany.1["error"] as? [String: Any])?["message"] as? String == "Invalid limit")
        let page = Self.get(service, "/v1/playlists/\(mine.id)/items?limit=50", token: access)
        #expect(page.0 == 200)
        #expect((page.1["items"] as? [[String: Any]])?.first?["item"] != nil)
        #expect(Self.get(service, "/v1/playlists/\(mine.id)/tracks?limit=50", token: access).0 == 403)
        #expect(Self.get(service, "/v1/playlists/\(theirs.id)/items", token: access).0 == 403)
        #expect(Self.get(service, "/v1/playlists/0000000000000000000000/items", token: access).0 == 404)
        let malformed = Self.get(service, "/v1/playlists/not-an-id/items", token: access)
        #expect(malformed.0 == 400)
        #expect((malformed.1["error"] as? [String: Any])?["message"] as? String == "Invalid base62 id")
    }

    @Test func legacyMode() throws {
        let service = Self.make { $0.legacy = true }
        let (access, _) = Self.signIn(service)
        let id = Library(size: .small, seed: 42).playlists[0].id
        let items = Self.get(service, "/v1/playlists/\(id)/items", token: access)
        #expect(items.0 == 404)
        #expect((items.1["error"] as? [String: Any])?["message"] as? String == "Service not found")
        let tracks = Self.get(service, "/v1/playlists/\(id)/tracks?limit=100", token: access)
        #expect(tracks.0 == 200)
        #expect((tracks.1["items"] as? [[String: Any]])?.first?["track"] != nil)
        let list = Self.get(service, "/v1/me/playlists", token: access)
        #expect((list.1["items"] as? [[String: Any]])?.first?["tracks"] != nil)
    }

    @Test func noDevelopmentModeOpensEverything() throws {
        let service = Self.make { $0.developmentMode = false }
        let (access, _) = Self.signIn(service)
        let theirs = try #require(Library(size: .small, seed: 42).playlists.first { !$0.readableInDevelopmentMode })
        #expect(Self.get(service, "/v1/playlists/\(theirs.id)/items", token: access).0 == 200)
        #expect(Self.get(service, "/v1/playlists/\(theirs.id)/tracks?limit=100", token: access).0 == 200)
    }

    @Test func fieldsAndEmptyItemsFault() throws {
        let service = Self.make()
        let (access, _) = Self.signIn(service)
        let id = Library(size: .small, seed: 42).playlists[0].id
        let (_, page) = Self.get(service, "/v1/playlists/\(id)/items?fields=total,items(item(name))", token: access)
        #expect(Set(page.keys) == ["total", "items"])
        let item = try #require((page["items"] as? [[String: Any]])?.first?["item"] as? [String: Any])
        #expect(Set(item.keys) == ["name"])

        let fault = #"{"faults":[{"kind":"empty_items","playlist":"\#(id)","total":"zero"}]}"#
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/faults", query: "", headers: [:], body: Array(fault.utf8)))
        let (_, empty) = Self.get(service, "/v1/playlists/\(id)/items", token: access)
        #expect((empty["items"] as? [Any])?.isEmpty == true)
        #expect(empty["total"] as? Int == 0)
        let (_, normal) = Self.get(service, "/v1/playlists/\(id)/items", token: access)
        #expect((normal["items"] as? [Any])?.isEmpty == false)
    }

    @Test func mutationChangesSnapshot() throws {
        let service = Self.make()
        let (access, _) = Self.signIn(service)
        let id = Library(size: .small, seed: 42).playlists[0].id
        let before = Self.get(service, "/v1/playlists/\(id)?fields=snapshot_id", token: access).1["snapshot_id"] as? String
        let body = #"{"playlist":"\#(id)","action":"append"}"#
        let response = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/mutate", query: "", headers: [:], body: Array(body.utf8)))
        #expect(response.status == 200)
        let after = Self.get(service, "/v1/playlists/\(id)?fields=snapshot_id", token: access).1["snapshot_id"] as? String
        #expect(before != nil && after != nil && before != after)
    }

    @Test func keptAnswersStillCheckTokensFaultsAndMutations() throws {
        let service = Self.make()
        let (access, _) = Self.signIn(service)
        let id = Library(size: .small, seed: 42).playlists[0].id
        let target = "/v1/playlists/\(id)/items?limit=50&fields=total,items(item(name))"
        let first = Self.get(service, target, token: access)
        #expect(first.0 == 200 && Self.get(service, target, token: access).1["total"] as? Int == first.1["total"] as? Int)
        // A fault for that URL still answers, once.
        let fault = #"{"faults":[{"kind":"status","status":503,"path_contains":"/v1/playlists/\#(id)/items"}]}"#
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/faults", query: "", headers: [:], body: Array(fault.utf8)))
        #expect(Self.get(service, target, token: access).0 == 503)
        #expect(Self.get(service, target, token: access).0 == 200)
        // A mutation is seen at once.
        let append = #"{"playlist":"\#(id)","action":"append"}"#
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/mutate", query: "", headers: [:], body: Array(append.utf8)))
        let total = try #require(first.1["total"] as? Int)
        #expect(Self.get(service, target, token: access).1["total"] as? Int == total + 1)
        // An expired token is refused even for a kept answer.
        _ = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/expire-access-tokens", query: "", headers: [:]))
        #expect(Self.get(service, target, token: access).0 == 401)
    }

    @Test func requestLogRedactsSecrets() {
        let service = Self.make()
        _ = Self.signIn(service)
        _ = Self.get(service, "/v1/me?access_token=SECRETVALUE&market=SE")
        let log = parseArray(service.handle(SandboxRequest(method: "GET", path: "/__sandbox/requests", query: "", headers: [:])).body)
        #expect(log.count == 3)
        #expect(log.allSatisfy { !($0["path"] as? String ?? "").hasPrefix("/__sandbox") })
        let text = log.map { "\($0)" }.joined()
        #expect(!text.contains("SECRETVALUE"))
        #expect(text.contains("access_token=REDACTED"))
    }

    @Test func redactionHidesSecretNamesHoweverTheyAreSpelled() {
        let plain = "offset=0&limit=50&fields=items(added_at,item(id,name))"
        #expect(FormEncoding.redacted(plain) == plain)
        #expect(FormEncoding.redacted("") == "")
        #expect(FormEncoding.redacted("code=abc&state=xyz") == "code=REDACTED&state=xyz")
        #expect(FormEncoding.redacted("a=1&access%5Ftoken=SECRET&b") == "a=1&access%5Ftoken=REDACTED&b")
        #expect(FormEncoding.redacted("refresh_token=R1&&client_secret=S2") == "refresh_token=REDACTED&&client_secret=REDACTED")
        #expect(FormEncoding.redacted("code") == "code")  // a name without a value has nothing to hide
        #expect(FormEncoding.redacted("codex=1&my+code=2") == "codex=1&my+code=2")
    }
}

typealias JSONObject = [String: Any]

func parseObject(_ bytes: [UInt8]) -> JSONObject {
    (try? JSONSerialization.jsonObject(with: Data(bytes)) as? JSONObject) ?? [:]
}

func parseArray(_ bytes: [UInt8]) -> [JSONObject] {
    (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [JSONObject]) ?? []
}
