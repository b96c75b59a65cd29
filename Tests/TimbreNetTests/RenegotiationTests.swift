import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreNet

/// A server that asks for a TLS 1.2 renegotiation on a connection curl keeps for reuse. The verify
/// callback would then run for a transfer that has ended; timbre refuses the renegotiation, and the
/// context keeps its verification alive for as long as the connection lives.
@Suite(.tags(.integration), .integrationTier)
struct RenegotiationTests {
    @Test func renegotiationOnAReusedConnectionIsRefused() async throws {
        let pki = try await TestPKI.shared()
        let server = try OpenSSLServer(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        do {
            let one = try #require(URL(string: "https://127.0.0.1:\(server.port)/one"))
            let two = try #require(URL(string: "https://127.0.0.1:\(server.port)/two"))
            async let first = transport.send(HTTPRequest(url: one))
            try await server.waitFor("GET /one")
            server.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            #expect(try await first.status == 200)

            // Two bytes starting with "r": s_server's command to renegotiate this connection.
            server.write("r\n")
            try await server.waitFor("SSL_do_handshake")
            server.answer("GET /two", with: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo")
            // Either outcome is clean: an error for this request, or an answer on a fresh connection.
            let second: Result<HTTPResponse, any Error>
            do { second = .success(try await transport.send(HTTPRequest(url: two))) } catch { second = .failure(error) }
            if case .failure(let error) = second { #expect(error is TransportError) }
            try await server.waitFor("no renegotiation")
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func theVerificationLivesAsLongAsTheCachedConnection() async throws {
        let pki = try await TestPKI.shared()
        let server = try await TestTLSServer.start(pki: pki, tls: "1.2")
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        weak var weakVerification: TLSVerification?
        do {
            let verification = TLSVerification(
                host: "127.0.0.1", purpose: .enforce(settings(pki, pins: [pki.leaf]).pins.rule(for: "127.0.0.1")!),
                observer: TrustObservers(all: []))
            weakVerification = verification
            let response = try await transport.run(HTTPRequest(url: server.url("/ok")), host: "127.0.0.1", kind: .http, verification: verification)
            #expect(response.status == 200)
        }
        // The transfer is over and nothing of ours holds the object; the connection curl keeps does.
        #expect(weakVerification != nil)
        _ = transport
    }
}

/// `openssl s_server`, driven through its stdin: what it writes there goes to the client, and a
/// lone "r" asks for a renegotiation. Everything it prints is collected.
final class OpenSSLServer: @unchecked Sendable {
    let port: Int
    private let process = Process()
    private let input = Pipe()
    private let printed = Locked("")
    private let pending = Locked<[(needle: String, reply: String)]>([])

    init(pki: TestPKI) throws {
        let output = Pipe()
        // stdbuf: s_server reports the renegotiation with printf, which a pipe would hold back.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = [
            "-oL", "/usr/bin/openssl", "s_server", "-4", "-tls1_2", "-accept", "0", "-ign_eof",
            "-cert", pki.directory.appendingPathComponent("leaf.pem").path,
            "-cert_chain", pki.directory.appendingPathComponent("chain.pem").path,
            "-key", pki.directory.appendingPathComponent("leaf.key").path,
        ]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let reader = output.fileHandleForReading
        let printed = self.printed, pending = self.pending, input = self.input
        let portFound = Locked<Int?>(nil)
        let ready = DispatchSemaphore(value: 0)
        Thread {
            while true {
                let data = reader.readSome()
                if data.isEmpty {
                    ready.signal()
                    return
                }
                let text = printed.withLock {
                    $0 += String(decoding: data, as: UTF8.self)
                    return $0
                }
                if portFound.current == nil, let range = text.range(of: #"ACCEPT [^:\n]*:(\d+)"#, options: .regularExpression),
                    let port = Int(text[range].split(separator: ":").last ?? "")
                {
                    portFound.withLock { $0 = port }
                    ready.signal()
                }
                let due = pending.withLock { list -> [String] in
                    let hits = list.filter { text.contains($0.needle) }
                    list.removeAll { text.contains($0.needle) }
                    return hits.map(\.reply)
                }
                for reply in due { input.fileHandleForWriting.write(Data(reply.utf8)) }
            }
        }.start()
        ready.wait()
        guard let port = portFound.current else {
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure("openssl s_server did not start: \(printed.current)")
        }
        self.port = port
    }

    func write(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// Replies once `needle` has been printed (now or later).
    func answer(_ needle: String, with reply: String) {
        if printed.current.components(separatedBy: needle).count > 1 {
            write(reply)
        } else {
            pending.withLock { $0.append((needle, reply)) }
        }
    }

    func waitFor(_ needle: String) async throws {
        for _ in 0..<1_500 where !printed.current.contains(needle) {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard printed.current.contains(needle) else { throw TestFailure("s_server never printed \(needle):\n\(printed.current)") }
    }

    /// SIGKILL (started from the task pool, it inherits a mask that blocks SIGTERM), then waits for
    /// Foundation to see the exit (waitUntilExit can hang off the main thread).
    func stop() async {
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<500 where !process.hasEnded {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
