import Foundation
import Testing
import TimbreTestSupport

@testable import SandboxCore

/// The control endpoints and `/authorize` answer only a request carrying the owner's secret.
@Suite struct ControlSecretTests {
    static let secret = "owner-secret-0123456789abcdefghijklmnopqrstu"

    static func make() -> SandboxService {
        ServiceTests.make { $0.controlSecret = secret }
    }

    static func request(_ method: String, _ path: String, body: String = "", secret: String?) -> SandboxRequest {
        var headers: [String: String] = [:]
        if let secret { headers["x-sandbox-secret"] = secret }
        let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
        return SandboxRequest(method: method, path: parts[0], query: parts.count > 1 ? parts[1] : "", headers: headers, body: Array(body.utf8))
    }

    static func playlistCount(_ service: SandboxService) -> Int {
        let model = parseObject(service.handle(request("GET", "/__sandbox/library?include_items=false", secret: secret)).body)
        return (model["playlists"] as? [Any])?.count ?? -1
    }

    @Test(arguments: [nil, "", "wrong", String(secret.dropLast()), secret + "x", secret.uppercased()])
    func controlWithoutTheSecretIs403AndChangesNothing(_ given: String?) {
        let service = Self.make()
        _ = ServiceTests.get(service, "/v1/me")  // something in the request log
        let before = Self.playlistCount(service)
        #expect(before > 0)

        let create = service.handle(Self.request("POST", "/__sandbox/mutate", body: #"{"action":"create","name":"intruder"}"#, secret: given))
        #expect(create.status == 403)
        let message = (parseObject(create.body)["error"] as? JSONObject)?["message"] as? String ?? ""
        #expect(message.contains("X-Sandbox-Secret"), "\(message)")
        #expect(Self.playlistCount(service) == before)

        let log = service.handle(Self.request("GET", "/__sandbox/requests", secret: given))
        #expect(log.status == 403)
        #expect(!String(decoding: log.body, as: UTF8.self).contains("/v1/me"))

        let mint = service.handle(Self.request("POST", "/__sandbox/mint-refresh-token", secret: given))
        #expect(mint.status == 403)
        #expect(service.withState { $0.refreshTokens.isEmpty })

        let mode = service.handle(Self.request("POST", "/__sandbox/authorize-mode", body: #"{"mode":"deny"}"#, secret: given))
        #expect(mode.status == 403)
        #expect(service.withState { $0.approve })

        let put = service.handle(Self.request("PUT", "/__sandbox/files/pins.json", body: "forged", secret: given))
        #expect(put.status == 403)
        #expect(service.withState { $0.files.isEmpty })
    }

    @Test func controlWithTheSecretWorks() {
        let service = Self.make()
        let before = Self.playlistCount(service)
        let create = service.handle(Self.request("POST", "/__sandbox/mutate", body: #"{"action":"create","name":"mine"}"#, secret: Self.secret))
        #expect(create.status == 200)
        #expect(Self.playlistCount(service) == before + 1)
        let mint = service.handle(Self.request("POST", "/__sandbox/mint-refresh-token", secret: Self.secret))
        #expect(mint.status == 200)
        #expect(parseObject(mint.body)["refresh_token"] is String)
    }

    @Test func authorizeApprovesOnlyTheOwner() {
        let service = Self.make()
        let challenge = Digest.pkceChallenge(verifier: ServiceTests.verifier)
        let query =
            "response_type=code&client_id=0123456789abcdef0123456789abcdef&redirect_uri=\(FormEncoding.escape(ServiceTests.redirect))"
            + "&scope=user-library-read&state=s1&code_challenge_method=S256&code_challenge=\(challenge)"
        let stranger = service.handle(Self.request("GET", "/authorize?" + query, secret: "guess"))
        #expect(stranger.status == 403)
        #expect(ServiceTests.code(from: stranger) == nil)
        #expect(service.withState { $0.codes.isEmpty })

        let owner = service.handle(Self.request("GET", "/authorize?" + query, secret: Self.secret))
        #expect(owner.status == 302)
        #expect(ServiceTests.code(from: owner) != nil)
    }

    @Test func servedFilesStayPublicToRead() {
        let service = Self.make()
        #expect(service.handle(Self.request("PUT", "/__sandbox/files/pins.json", body: "doc", secret: Self.secret)).status == 200)
        let read = service.handle(Self.request("GET", "/__sandbox/files/pins.json", secret: nil))
        #expect(read.status == 200)
        #expect(read.body == Array("doc".utf8))
        #expect(service.handle(Self.request("DELETE", "/__sandbox/files/pins.json", secret: nil)).status == 403)
    }

    @Test func comparisonIsExact() {
        #expect(ControlSecret.matches("abc", "abc"))
        #expect(!ControlSecret.matches("abd", "abc"))
        #expect(!ControlSecret.matches("ab", "abc"))
        #expect(!ControlSecret.matches("abcd", "abc"))
        #expect(!ControlSecret.matches("", "abc"))
        #expect(!ControlSecret.matches(nil, "abc"))
    }
}

/// The real server: the secret file, its modes, and a stranger's curl refused.
@Suite(.serialized, .tags(.integration), .integrationTier) struct ControlSecretProcessTests {
    @Test func theSecretFileIsTheOwnersAndStrangersGet403() async throws {
        let sandbox = try await SandboxProcess.start(library: .small)
        try await withCleanup({ await sandbox.stop() }) {
            let file = try #require(sandbox.info.secretFile)
            #expect(file == sandbox.stateDirectory.path + "/control-secret")
            let fileMode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(fileMode == 0o600)
            let folderMode = try FileManager.default.attributesOfItem(atPath: sandbox.stateDirectory.path)[.posixPermissions] as? Int
            #expect(folderMode == 0o700)
            #expect(sandbox.secret.count >= 40)
            // Never printed: not in the announcement or sandbox.json.
            let announced = try String(contentsOfFile: sandbox.stateDirectory.path + "/sandbox.json", encoding: .utf8)
            #expect(!announced.contains(sandbox.secret))

            let before = try await sandbox.followedPlaylistIDs().count
            _ = try await sandbox.signIn()
            for header in [[String](), ["X-Sandbox-Secret: wrong"]] {
                let create = try await sandbox.curl("/__sandbox/mutate", method: "POST", headers: header, json: #"{"action":"create","name":"x"}"#)
                #expect(create.status == 403)
                #expect(create.text.contains("X-Sandbox-Secret"))
                let log = try await sandbox.curl("/__sandbox/requests", headers: header)
                #expect(log.status == 403)
                #expect(!log.text.contains("/api/token"))
                let mint = try await sandbox.curl("/__sandbox/mint-refresh-token", method: "POST", headers: header, json: "{}")
                #expect(mint.status == 403)
                #expect(!mint.text.contains("refresh_token"))
            }
            #expect(try await sandbox.followedPlaylistIDs().count == before)
            let authorize = try await sandbox.curl("/authorize?response_type=code&client_id=\(sandbox.info.clientID)")
            #expect(authorize.status == 403)
            // The owner's calls work.
            try await sandbox.mutate(playlist: nil, action: "create", name: "mine")
            #expect(try await sandbox.followedPlaylistIDs().count == before + 1)
            #expect(try await sandbox.requests().contains { $0.path == "/api/token" })
        }
    }
}
