import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Starts the real `timbre-sandbox` binary and talks to it with curl over TLS.
@Suite(.serialized, .tags(.integration), .integrationTier) struct EndToEndTests {
    @Test func signInAndReadTheLibrary() async throws {
        let sandbox = try await SandboxProcess.start(library: .small)
        try await withCleanup({ await sandbox.stop() }) {
            #expect(sandbox.info.baseURL == "https://127.0.0.1:\(sandbox.info.port)")
            #expect(sandbox.info.apiURL == sandbox.info.baseURL + "/v1")
            #expect(sandbox.info.pins.leaf.hasPrefix("sha256/"))
            let written = try Data(contentsOf: sandbox.stateDirectory.appendingPathComponent("sandbox.json"))
            #expect(try JSONDecoder().decode(SandboxInfo.self, from: written).port == sandbox.info.port)

            // authorize → 302 with code and state
            let verifier = Digest.randomToken(bytes: 48)
            let redirect = "http://127.0.0.1:8974/callback"
            let authorize = try await sandbox.curl(
                "/authorize?response_type=code&client_id=\(sandbox.info.clientID)"
                    + "&redirect_uri=\(FormEncoding.escape(redirect))&scope=playlist-read-private&state=xyz123"
                    + "&code_challenge_method=S256&code_challenge=\(Digest.pkceChallenge(verifier: verifier))", owner: true)
            #expect(authorize.status == 302)
            let location = try #require(authorize.header("Location"))
            let items = URLComponents(string: location)?.queryItems ?? []
            #expect(items.first { $0.name == "state" }?.value == "xyz123")
            let code = try #require(items.first { $0.name == "code" }?.value)

            let token = try await sandbox.curl(
                "/api/token",
                data: [
                    "grant_type=authorization_code", "code=\(code)", "redirect_uri=\(redirect)",
                    "client_id=\(sandbox.info.clientID)", "code_verifier=\(verifier)",
                ])
            #expect(token.status == 200)
            let tokenJSON = try #require(token.json() as? [String: Any])
            let access = try #require(tokenJSON["access_token"] as? String)
            #expect(tokenJSON["token_type"] as? String == "Bearer")
            #expect(tokenJSON["expires_in"] as? Int == 3_600)

            let me = try await sandbox.curl("/v1/me", bearer: access)
            #expect(me.status == 200)
            #expect(me.header("Content-Type") == "application/json; charset=utf-8")
            #expect((me.json() as? [String: Any])?["id"] as? String == sandbox.info.userID)

            let playlists = try await sandbox.curl("/v1/me/playlists?limit=50", bearer: access)
            let list = try #require((playlists.json() as? [String: Any])?["items"] as? [[String: Any]])
            #expect(list.count == 9)
            let first = try #require(list.first?["id"] as? String)

            let page = try await sandbox.curl("/v1/playlists/\(first)/items?limit=50", bearer: access)
            #expect(page.status == 200)
            let limit100 = try await sandbox.curl("/v1/playlists/\(first)/items?limit=100", bearer: access)
            #expect(limit100.status == 400)
            #expect(limit100.text == #"{"error":{"status":400,"message":"Invalid limit"}}"#)
            let tracks = try await sandbox.curl("/v1/playlists/\(first)/tracks?limit=100", bearer: access)
            #expect(tracks.status == 403)

            // The request log has every non-control request, and no secret.
            let log = try await sandbox.requests()
            #expect(
                log.map(\.path) == [
                    "/authorize", "/api/token", "/v1/me", "/v1/me/playlists", "/v1/playlists/\(first)/items",
                    "/v1/playlists/\(first)/items", "/v1/playlists/\(first)/tracks",
                ])
            #expect(log[2].auth == "bearer" && log[0].auth == "none")
            let fileLog = try String(contentsOfFile: sandbox.info.requestLog, encoding: .utf8)
            #expect(fileLog.split(separator: "\n").count == log.count)
            for secret in [access, code, verifier] {
                #expect(!fileLog.contains(secret))
                #expect(!sandbox.stderrLog.contains(secret))
            }
            try await sandbox.clearRequests()
            #expect(try await sandbox.requests().isEmpty)
        }
    }

    @Test func faults() async throws {
        let sandbox = try await SandboxProcess.start(library: .small)
        try await withCleanup({ await sandbox.stop() }) {
            let (access, _) = try await sandbox.signIn()

            try await sandbox.addFaults([Fault(kind: .status, pathContains: "/v1/me", status: 429, retryAfter: 7)])
            let limited = try await sandbox.curl("/v1/me", bearer: access)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "7")
            #expect(try await sandbox.curl("/v1/me", bearer: access).status == 200)

            try await sandbox.addFaults([Fault(kind: .reset, pathContains: "/v1/me/playlists")])
            let reset = try await sandbox.curl("/v1/me/playlists", bearer: access)
            #expect(reset.exitCode != 0)
            #expect(try await sandbox.curl("/v1/me/playlists", bearer: access).exitCode == 0)

            try await sandbox.addFaults([Fault(kind: .malformed, pathContains: "/v1/me/tracks")])
            let malformed = try await sandbox.curl("/v1/me/tracks", bearer: access)
            #expect(malformed.status == 200)
            #expect(malformed.json() == nil)

            let refresh = try await sandbox.mintRefreshToken()
            let refreshed = try await sandbox.curl(
                "/api/token",
                data: [
                    "grant_type=refresh_token", "refresh_token=\(refresh)", "client_id=\(sandbox.info.clientID)",
                ])
            #expect(refreshed.status == 200)
            let library = try await sandbox.library(includeItems: false)
            #expect((library["counts"] as? [String: Any])?["playlists"] as? Int == 9)
        }
    }

    @Test func tlsMaximum11IsRefusedByATLS12Client() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--tls-max", "1.1"])
        try await withCleanup({ await sandbox.stop() }) {
            let result = try await sandbox.curl("/v1/me", extraArguments: ["--tlsv1.2"])
            #expect(result.exitCode == 35)
            #expect(result.status == 0)
        }
    }

    @Test func stopsOnSIGTERM() async throws {
        let sandbox = try await SandboxProcess.start(library: .small)
        await sandbox.stop()
        #expect(!sandbox.isRunning)
    }
}
