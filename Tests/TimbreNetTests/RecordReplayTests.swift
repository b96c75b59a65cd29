import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// `TIMBRE_RECORD` / `TIMBRE_REPLAY` without a network: a scripted inner transport, a folder of
/// files, and the replay answering from them.
@Suite struct RecordReplayTests {
    /// Answers by path; remembers what it was sent.
    final class Scripted: HTTPTransport {
        let answers: [String: HTTPResponse]
        let sent = Locked<[String]>([])
        init(_ answers: [String: HTTPResponse]) { self.answers = answers }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            sent.withLock { $0.append(request.method.rawValue + " " + request.url.path) }
            guard let answer = answers[request.url.path] else {
                throw TransportError.connection(host: request.url.host ?? "", kind: .reset, detail: "scripted reset")
            }
            return answer
        }
    }

    static let refreshToken = "AQDrefresh-token-0123456789abcdef"
    static let accessToken = "BQCaccess-token-fedcba9876543210"
    static let rotated = "AQDrotated-token-5555555555555555"
    static let code = "auth-code-XYZ-0123456789"
    static let verifier = "pkce-verifier-abcdefghijklmnopqrstuvwxyz0123456789"

    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("timbre-rec-\(UUID().uuidString)")
    }

    private func allText(_ dir: URL) throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted().map {
            try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
    }

    private func json(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Data(text.utf8))
    }

    @Test func aRecordingHoldsEveryExchangeAndNoSecret() async throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inner = Scripted([
            "/api/token": json(
                #"{"access_token":"\#(Self.accessToken)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(Self.rotated)","scope":"a b"}"#),
            "/v1/me": HTTPResponse(
                status: 200, headers: ["content-type": "application/json", "set-cookie": "sid=cookie-value-123456"],
                body: Data(#"{"id":"u1","echo":"\#(Self.accessToken)"}"#.utf8)),
            "/authorize": HTTPResponse(status: 302, headers: ["location": "http://127.0.0.1:9/callback?code=\(Self.code)&state=s1"]),
        ])
        let recorder = RecordingTransport(inner: inner, directory: dir)
        let base = URL(string: "https://accounts.example:8443")!
        _ = try await recorder.send(
            .form(
                base.appendingPathComponent("api/token"),
                fields: [
                    ("grant_type", "authorization_code"), ("code", Self.code), ("code_verifier", Self.verifier), ("client_id", "cid"),
                ]))
        _ = try await recorder.send(
            .form(base.appendingPathComponent("api/token"), fields: [("grant_type", "refresh_token"), ("refresh_token", Self.refreshToken)]))
        _ = try await recorder.send(
            HTTPRequest(
                url: URL(string: "https://api.example/v1/me?market=from_token")!,
                headers: [("Authorization", "Bearer \(Self.accessToken)"), ("Cookie", "sid=cookie-value-123456")]))
        _ = try await recorder.send(HTTPRequest(url: URL(string: "https://accounts.example:8443/authorize?client_id=cid&code_challenge=abc")!))
        await #expect(throws: TransportError.self) { try await recorder.send(HTTPRequest(url: URL(string: "https://api.example/v1/gone")!)) }

        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(
            names == [
                "0001-POST-api-token.json", "0002-POST-api-token.json", "0003-GET-v1-me.json", "0004-GET-authorize.json",
                "0005-GET-v1-gone.json",
            ])
        let text = try allText(dir)
        for secret in [Self.refreshToken, Self.accessToken, Self.rotated, Self.code, Self.verifier, "Bearer ", "cookie-value-123456"] {
            #expect(!text.contains(secret), "the recording holds \(secret)")
        }
        #expect(text.contains(#"code=REDACTED&code_verifier=REDACTED&client_id=cid"#))
        #expect(text.contains(#"\"access_token\":\"REDACTED\""#))
        #expect(text.contains(#""location":"http://127.0.0.1:9/callback?code=REDACTED&state=s1""#))
        #expect(text.contains(#"["Authorization","REDACTED"],["Cookie","REDACTED"]"#))
        #expect(text.contains(#""echo\":\"REDACTED\""#), "a token echoed anywhere is blanked too")
        #expect(text.contains(#""kind":"reset""#))
        let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(names[0]).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A second recorder in the same folder numbers on.
        _ = try await RecordingTransport(inner: inner, directory: dir).send(HTTPRequest(url: URL(string: "https://api.example/v1/me?market=from_token")!))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("0006-GET-v1-me.json").path))
    }

    @Test func aReplayAnswersInRecordedOrderAndSendsNothing() async throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        final class Counting: HTTPTransport {
            let calls = Locked(0)
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                let n = calls.withLock {
                    $0 += 1
                    return $0
                }
                return HTTPResponse(status: 200, body: Data("answer \(n) for \(request.url.query ?? "")".utf8))
            }
        }
        let recorder = RecordingTransport(inner: Counting(), directory: dir)
        let first = URL(string: "https://one.example/v1/me?code=\(Self.code)&x=1")!
        for url in [first, URL(string: "https://one.example/v1/other")!, first] {
            _ = try await recorder.send(HTTPRequest(url: url, headers: [("Authorization", "Bearer \(Self.accessToken)")]))
        }

        let replay = ReplayTransport(directory: dir)
        // Another host, another secret value: matched by method, path and query with secrets blanked.
        let again = URL(string: "https://two.example:1234/v1/me?code=other-code-value-999&x=1")!
        #expect(String(decoding: try await replay.send(HTTPRequest(url: again)).body, as: UTF8.self) == "answer 1 for code=REDACTED&x=1")
        #expect(String(decoding: try await replay.send(HTTPRequest(url: again)).body, as: UTF8.self) == "answer 3 for code=REDACTED&x=1")
        #expect(String(decoding: try await replay.send(HTTPRequest(url: URL(string: "https://x/v1/other")!)).body, as: UTF8.self) == "answer 2 for ")

        // Asked once more than recorded: the error names the request and the folder.
        await #expect(throws: ReplayError.missing(request: "GET /v1/me?code=REDACTED&x=1", time: 3, directory: dir.path, recorded: 3)) {
            try await replay.send(HTTPRequest(url: again))
        }
        let missing = ReplayError.missing(request: "GET /v1/me?code=REDACTED&x=1", time: 3, directory: dir.path, recorded: 3)
        #expect(missing.message == "the recording in \(dir.path) has no answer for GET /v1/me?code=REDACTED&x=1 (asked 3 times)")
        #expect(missing.exitStatus == .failure)
        await #expect(throws: ReplayError.missing(request: "DELETE /v1/other", time: 1, directory: dir.path, recorded: 3)) {
            try await replay.send(HTTPRequest(method: .delete, url: URL(string: "https://x/v1/other")!))
        }
    }

    @Test func theTokenEndpointIsAnsweredEvenWithoutARecordedExchange() async throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recorder = RecordingTransport(inner: Scripted(["/v1/me": json(#"{"id":"u1"}"#)]), directory: dir)
        _ = try await recorder.send(HTTPRequest(url: URL(string: "https://api.example/v1/me")!))
        let replay = ReplayTransport(directory: dir)
        let token = try await replay.send(.form(URL(string: "https://accounts.example/api/token")!, fields: [("refresh_token", "REDACTED")]))
        #expect(token.status == 200)
        let object = try JSONSerialization.jsonObject(with: token.body) as? [String: Any]
        #expect(object?["access_token"] as? String == "REDACTED")
        #expect(object?["expires_in"] as? Int == 3600)
    }

    @Test func recordedFailuresReplayAsTheSameFailure() async throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recorder = RecordingTransport(inner: Scripted([:]), directory: dir)
        await #expect(throws: TransportError.self) { try await recorder.send(HTTPRequest(url: URL(string: "https://api.example/v1/x")!)) }
        await #expect(throws: TransportError.connection(host: "api.example", kind: .reset, detail: "scripted reset")) {
            try await ReplayTransport(directory: dir).send(HTTPRequest(url: URL(string: "https://api.example/v1/x")!))
        }
    }

    @Test func anEmptyOrMissingFolderIsAClearError() async throws {
        let dir = folder()
        await #expect(throws: ReplayError.self) { try await ReplayTransport(directory: dir).send(HTTPRequest(url: URL(string: "https://x/v1/me")!)) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        await #expect(throws: ReplayError.empty(directory: dir.path)) {
            try await ReplayTransport(directory: dir).send(HTTPRequest(url: URL(string: "https://x/v1/me")!))
        }
    }
}
