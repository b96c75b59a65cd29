import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// HMAC-SHA256 against RFC 4231's test vectors, and the request signers behind `RequestSigner`.
@Suite struct RequestSignerTests {
    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    /// RFC 4231 §4.2–4.8 (case 5 truncates the output to 128 bits, so it is not a plain HMAC-SHA256).
    static let vectors: [(name: String, key: [UInt8], data: [UInt8], mac: String)] = [
        (
            "case 1", [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "case 2", Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            "case 3", [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "case 4", bytes(hex: "0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            "case 6", [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            "case 7", [UInt8](repeating: 0xaa, count: 131),
            Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test(arguments: 0..<6)
    func hmacSHA256MatchesRFC4231(index: Int) {
        let vector = Self.vectors[index]
        #expect(Crypto.hex(Crypto.hmacSHA256(key: vector.key, data: vector.data)) == vector.mac, "\(vector.name)")
    }

    @Test func constantTimeEqualsComparesBytes() {
        #expect(Crypto.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Crypto.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(Crypto.constantTimeEquals([], []))
    }

    static let url = URL(string: "https://api.example.com/v1/playlists/abc/items?limit=50&fields=items(name)")!

    @Test func bearerSetsOneAuthorizationHeader() throws {
        let request = HTTPRequest(url: Self.url, headers: [("authorization", "Bearer stale"), ("Content-Type", "application/json")])
        let signed = try BearerTokenSigner(token: "fresh").sign(request)
        #expect(signed.headers.map(\.name) == ["Authorization", "Content-Type"])
        #expect(signed.header("Authorization") == "Bearer fresh")
        #expect(signed.url == Self.url)
    }

    @Test func apiKeyGoesInAHeaderOrTheQuery() throws {
        let header = try APIKeySigner(key: "k-123", placement: .header("X-API-Key")).sign(HTTPRequest(url: Self.url))
        #expect(header.header("x-api-key") == "k-123")
        #expect(header.url == Self.url)
        let query = try APIKeySigner(key: "a b&c", placement: .query("api_key")).sign(HTTPRequest(url: Self.url))
        #expect(query.url.absoluteString == "https://api.example.com/v1/playlists/abc/items?limit=50&fields=items(name)&api_key=a%20b%26c")
        #expect(query.headers.isEmpty)
        let again = try APIKeySigner(key: "new", placement: .query("api_key")).sign(query)
        #expect(again.url.absoluteString.hasSuffix("&api_key=new"), "a second signing replaces the key: \(again.url)")
        let bare = try APIKeySigner(key: "k", placement: .query("key")).sign(HTTPRequest(url: URL(string: "https://h.example/x")!))
        #expect(bare.url.absoluteString == "https://h.example/x?key=k")
    }

    @Test func hmacSignerCanonicalStringAndSignature() throws {
        let body = Data("{\"uris\":[\"spotify:track:1\"]}".utf8)
        let canonical = HMACRequestSigner.canonicalString(method: .post, url: Self.url, timestamp: 1_700_000_000, body: body)
        #expect(
            canonical == """
                TIMBRE-HMAC-SHA256
                POST
                /v1/playlists/abc/items?limit=50&fields=items(name)
                1700000000
                \(Crypto.hex(Crypto.sha256(Array(body))))
                """)
        // The empty body hashes as the empty string.
        #expect(
            HMACRequestSigner.canonicalString(method: .get, url: URL(string: "https://h.example")!, timestamp: 5, body: nil)
                == "TIMBRE-HMAC-SHA256\nGET\n/\n5\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

        let key = Array("signing key of 32 bytes exactly!".utf8)
        let signer = HMACRequestSigner(keyID: "ops-1", key: key, clock: { Date(timeIntervalSince1970: 1_700_000_000.9) })
        let signed = try signer.sign(HTTPRequest(method: .post, url: Self.url, body: body))
        #expect(signed.header("X-Timbre-Timestamp") == "1700000000")
        let expected = Crypto.hex(Crypto.hmacSHA256(key: key, data: Array(canonical.utf8)))
        #expect(signed.header("X-Timbre-Signature") == "keyId=ops-1, signature=\(expected)")
        // Any change to what is covered changes the signature.
        let other = try signer.sign(HTTPRequest(method: .put, url: Self.url, body: body))
        #expect(other.header("X-Timbre-Signature") != signed.header("X-Timbre-Signature"))
    }

    /// A transport that records what it was given and answers from a script.
    final class Recording: HTTPTransport, @unchecked Sendable {
        let sent = Locked<[HTTPRequest]>([])
        let statuses: Locked<[Int]>
        init(_ statuses: [Int]) { self.statuses = Locked(statuses) }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            sent.withLock { $0.append(request) }
            return HTTPResponse(status: statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() })
        }
    }

    /// Counts its calls; signs with the count so each attempt is distinguishable.
    struct CountingSigner: RequestSigner {
        let calls = Locked(0)
        func sign(_ request: HTTPRequest) throws -> HTTPRequest {
            var signed = request
            signed.setHeader(
                "X-Attempt",
                String(
                    calls.withLock {
                        $0 += 1
                        return $0
                    }))
            return signed
        }
    }

    @Test func theExecutorSignsEveryAttemptThroughTheProtocol() async throws {
        let transport = Recording([503, 502])
        let executor = RequestExecutor(transport: transport, policy: RetryPolicy(baseDelay: .milliseconds(1), maxDelay: .milliseconds(2)))
        let signer = CountingSigner()
        let response = try await executor.send(HTTPRequest(url: Self.url), signer: signer)
        #expect(response.status == 200)
        #expect(transport.sent.current.map { $0.header("X-Attempt") } == ["1", "2", "3"])
        let unsigned = try await executor.send(HTTPRequest(url: Self.url))
        #expect(unsigned.status == 200)
        #expect(transport.sent.current.last?.headers.isEmpty == true)
    }

    struct FailingSigner: RequestSigner {
        func sign(_ request: HTTPRequest) throws -> HTTPRequest { throw TransportError.invalidRequest("no key") }
    }

    @Test func aSignerThatFailsSendsNothing() async {
        let transport = Recording([])
        let executor = RequestExecutor(transport: transport)
        await #expect(throws: TransportError.invalidRequest("no key")) {
            try await executor.send(HTTPRequest(url: Self.url), signer: FailingSigner())
        }
        #expect(transport.sent.current.isEmpty)
    }
}
