import Foundation
import Logging
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreNet

/// The multi loop's wakeup bookkeeping, without a server.
@Suite struct CurlMultiLoopInboxTests {
    /// The loop is woken only when it sleeps, and never sleeps with work waiting.
    @Test func theLoopIsWokenOnlyWhenAsleep() {
        var inbox = CurlMultiLoop.Inbox()
        let busyPost = inbox.post { _ in }
        #expect(!busyPost, "a busy loop needs no wakeup")
        let sleeps = inbox.fallAsleep()
        #expect(sleeps, "nothing waiting: it may sleep")
        let firstPost = inbox.post { $0.stopping = true }
        #expect(firstPost, "the first post after it fell asleep wakes it")
        let secondPost = inbox.post { _ in }
        #expect(!secondPost, "one wakeup is enough")
        let sleepsWithWork = inbox.fallAsleep()
        #expect(!sleepsWithWork, "work is waiting: it must not sleep")
        let taken = inbox.take()
        #expect(taken.stopping)
    }
}

@Suite(.tags(.integration), .integrationTier) struct CurlTransportTests {
    let pki: TestPKI
    init() async throws { pki = try await TestPKI.shared() }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        for _ in 0..<10 {
            #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        }
        let ports = Set(try server.requests().map(\.client_port))
        #expect(ports.count == 1, "keep-alive: all ten requests on one connection, saw \(ports.count)")
    }

    /// Requests sent one at a time, each once the loop is asleep: only a wakeup can start them
    /// before the idle poll (60 s here) ends, so a lost wakeup makes the five take 300 s and the
    /// test runs past its time limit — no clock is read. (3 minutes: a run with both cores kept
    /// busy took more than one to start the test's Python server and send the five.)
    @Test(.timeLimit(.minutes(3))) func anIdleLoopStartsEachNewRequest() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(
            settings: settings(pki, pins: [pki.leaf]), observer: nil, logger: Logger(label: "test"),
            idlePollMilliseconds: 60_000)
        for _ in 0..<5 {
            while !transport.loopIsAsleep { try await Task.sleep(for: .milliseconds(5)) }
            #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        }
    }

    @Test func concurrentRequestsOverlapOnTheServer() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await transport.send(HTTPRequest(url: server.url("/slow?ms=400"))).status }
            }
            for try await status in group { #expect(status == 200) }
        }
        // The server saw them in flight at the same time: the transport did not serialise them.
        let events = try server.events().sorted { $0.t < $1.t }
        var inFlight = 0, peak = 0
        for event in events {
            inFlight += event.phase == "start" ? 1 : -1
            peak = max(peak, inFlight)
        }
        #expect(events.count == 16)
        #expect(peak >= 4, "at most \(peak) of 8 requests were in flight at once")
    }

    /// No clock: the server answers /slow only after two minutes and logs its "end" once it has
    /// sent the answer. A transport that aborts on cancel ends the task while the server is still
    /// asleep; one that waited for the answer could only end it after that "end" — so the next
    /// request's "start" would follow it in the server's log. The server's sleep is far longer
    /// than anything the abort and the next request need, whatever the load: a loaded CI run took
    /// more than 10 s from the cancel to the next request's start (it was 10 s then), and the test
    /// failed with the transport working.
    /// (The time limit only stops a hang; a broken transport fails after the server's sleep.)
    @Test(.timeLimit(.minutes(5))) func cancellingTheTaskAbortsTheTransfer() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        let task = Task { try await transport.send(HTTPRequest(url: server.url("/slow?ms=120000"))) }
        // Cancel once the request is in flight at the server, not before it was sent.
        while try !server.requests().contains(where: { $0.path == "/slow" }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The transport still works afterwards.
        #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        let order = try server.events().map { "\($0.phase) \($0.path)" }
        let next = try #require(order.firstIndex(of: "start /ok"))
        #expect(!order[..<next].contains("end /slow"), "the cancelled request ran to its end first: \(order)")
    }

    @Test func compressedResponsesAreDecoded() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        let response = try await transport.send(HTTPRequest(url: server.url("/gzip")))
        #expect(response.header("content-encoding") == "gzip")
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect((object?["pad"] as? String)?.count == 5000)
    }

    @Test func oversizedResponsesAreRefused() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        var limited = settings(pki, pins: [pki.leaf])
        limited.maxResponseBytes = 64 * 1024
        let transport = CurlTransport(settings: limited)
        await #expect(throws: TransportError.responseTooLarge(host: "127.0.0.1", limit: 64 * 1024)) {
            try await transport.send(HTTPRequest(url: server.url("/big?kb=256")))
        }
    }

    @Test func postSendsItsBodyAndHeaders() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        let request = HTTPRequest.form(server.url("/ok"), fields: [("grant_type", "refresh_token"), ("x", "a b&c")])
        var withAuth = request
        withAuth.headers.append(("Authorization", "Bearer abc"))
        let response = try await transport.send(withAuth)
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(object?["auth"] as? String == "present")
        #expect(try server.requests().first?.method == "POST")
    }

    @Test func refusedConnectionIsAConnectionError() async throws {
        // A port nothing listens on: bind one, note it, close it.
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: URL(string: "https://127.0.0.1:1/ok")!))
        }
        guard case .connection(_, .refused, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(error?.exitStatus == .failure)
    }

    @Test func plainHTTPIsRejected() async throws {
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:1/ok")!))
        }
    }
}
