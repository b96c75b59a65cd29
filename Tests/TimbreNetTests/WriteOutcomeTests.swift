import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// Writes that must not be repeated: the executor never resends one that may have arrived, and
/// says the outcome is unknown instead of guessing.
@Suite struct WriteOutcomeTests {
    /// Answers from a script, one per request, and counts what it was sent.
    final class Scripted: HTTPTransport, @unchecked Sendable {
        let script: Locked<[Result<HTTPResponse, TransportError>]>
        let sent = Locked(0)
        init(_ script: [Result<HTTPResponse, TransportError>]) { self.script = Locked(script) }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            sent.withLock { $0 += 1 }
            let next = script.withLock { $0.isEmpty ? .success(HTTPResponse(status: 200)) : $0.removeFirst() }
            return try next.get()
        }
    }

    private func send(_ script: [Result<HTTPResponse, TransportError>], method: HTTPMethod = .post, reconciles: Bool) async -> (
        Result<HTTPResponse, any Error>, Int
    ) {
        let transport = Scripted(script)
        let executor = RequestExecutor(transport: transport, policy: RetryPolicy(baseDelay: .milliseconds(1), maxDelay: .milliseconds(2)))
        let request = HTTPRequest(method: method, url: URL(fileURLWithPath: "/v1/playlists/x/items"), reconciles: reconciles)
        do { return (.success(try await executor.send(request)), transport.sent.current) } catch { return (.failure(error), transport.sent.current) }
    }

    static let reset = TransportError.connection(host: "api", kind: .reset, detail: "connection reset")
    static let timeout = TransportError.connection(host: "api", kind: .timeout, detail: "timed out")
    static let refused = TransportError.connection(host: "api", kind: .refused, detail: "refused")

    @Test(arguments: [HTTPMethod.post, .put, .delete])
    func aServerErrorOnAWriteIsReportedNotResent(method: HTTPMethod) async {
        let (result, sent) = await send([.success(HTTPResponse(status: 502))], method: method, reconciles: true)
        #expect(sent == 1)
        #expect(throws: WriteOutcomeUnknown.self) { try result.get() }
    }

    @Test func aWriteWhoseAnswerWasLostIsReportedNotResent() async {
        for lost in [Self.reset, Self.timeout] {
            let (result, sent) = await send([.failure(lost)], method: .put, reconciles: true)
            #expect(sent == 1, "\(lost)")
            #expect(throws: WriteOutcomeUnknown.self) { try result.get() }
        }
    }

    @Test func aWriteThatNeverLeftIsSentAgain() async throws {
        let (result, sent) = await send([.failure(Self.refused)], reconciles: true)
        #expect(sent == 2)
        #expect(try result.get().status == 200)
    }

    @Test func readsAndTokenRequestsKeepTheirRetries() async throws {
        // A GET after a reset and a 5xx: retried until it works.
        let (read, readSent) = await send([.failure(Self.reset), .success(HTTPResponse(status: 503))], method: .get, reconciles: false)
        #expect(readSent == 3)
        #expect(try read.get().status == 200)
        // A POST that is not a playlist write (the token exchange): a 5xx is retried, a reset is not resent.
        let (token, tokenSent) = await send([.success(HTTPResponse(status: 500))], reconciles: false)
        #expect(tokenSent == 2)
        #expect(try token.get().status == 200)
        let (lost, lostSent) = await send([.failure(Self.reset)], reconciles: false)
        #expect(lostSent == 1)
        #expect(throws: TransportError.self) { try lost.get() }
    }
}
