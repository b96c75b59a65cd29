import Foundation
import Testing

@testable import SandboxCore

/// Tokens carry the scopes asked for at `/authorize`.
@Suite struct ScopeTests {
    static let clientID = "0123456789abcdef0123456789abcdef"

    func authorize(_ service: SandboxService, scope: String) -> SandboxResponse {
        let query =
            "response_type=code&client_id=\(Self.clientID)&redirect_uri=\(FormEncoding.escape(WriteClient.redirect))"
            + "&scope=\(FormEncoding.escape(scope))&state=s1&code_challenge_method=S256"
            + "&code_challenge=\(Digest.pkceChallenge(verifier: ServiceTests.verifier))"
        return service.handle(SandboxRequest(method: "GET", path: "/authorize", query: query, headers: [:]))
    }

    @Test func theTokenCarriesTheAskedScopesAndARefreshKeepsThem() throws {
        let service = ServiceTests.make()
        let code = try #require(ServiceTests.code(from: authorize(service, scope: "user-library-modify playlist-read-private user-library-modify")))
        let (status, token) = ServiceTests.post(
            service, "/api/token",
            form: [
                "grant_type": "authorization_code", "code": code, "redirect_uri": WriteClient.redirect,
                "client_id": Self.clientID, "code_verifier": ServiceTests.verifier,
            ])
        #expect(status == 200)
        #expect(token["scope"] as? String == "user-library-modify playlist-read-private")
        let refresh = try #require(token["refresh_token"] as? String)
        let refreshed = ServiceTests.post(service, "/api/token", form: ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": Self.clientID])
        #expect(refreshed.1["scope"] as? String == "user-library-modify playlist-read-private")
    }

    @Test func noScopeAskedNoneGrantedAndAnUnknownOneIsRefused() throws {
        let service = ServiceTests.make()
        let code = try #require(ServiceTests.code(from: authorize(service, scope: "")))
        let token = ServiceTests.post(
            service, "/api/token",
            form: [
                "grant_type": "authorization_code", "code": code, "redirect_uri": WriteClient.redirect,
                "client_id": Self.clientID, "code_verifier": ServiceTests.verifier,
            ]
        ).1
        #expect(token["scope"] as? String == "")
        let unknown = authorize(service, scope: "playlist-read-private playlist-modify")
        #expect(unknown.status == 302)
        #expect(
            unknown.headers.contains { $0.0 == "Location" && $0.1 == WriteClient.redirect + "?error=invalid_scope&error_description=Invalid%20scope&state=s1" })
    }

    @Test func mintedRefreshTokensCarryEveryScopeUnlessToldOtherwise() throws {
        let service = ServiceTests.make()
        let all = service.handle(SandboxRequest(method: "POST", path: "/__sandbox/mint-refresh-token", query: "", headers: [:], body: Array("{}".utf8)))
        #expect(parseObject(all.body)["scope"] as? String == Scopes.known.joined(separator: " "))
        let narrow = service.handle(
            SandboxRequest(
                method: "POST", path: "/__sandbox/mint-refresh-token", query: "", headers: [:],
                body: Array(#"{"scope":"playlist-read-private"}"#.utf8)))
        let refresh = try #require(parseObject(narrow.body)["refresh_token"] as? String)
        let token = ServiceTests.post(service, "/api/token", form: ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": Self.clientID]).1
        #expect(token["scope"] as? String == "playlist-read-private")
        let bad = service.handle(
            SandboxRequest(
                method: "POST", path: "/__sandbox/mint-refresh-token", query: "", headers: [:],
                body: Array(#"{"scope":"everything"}"#.utf8)))
        #expect(bad.status == 400)
    }
}
