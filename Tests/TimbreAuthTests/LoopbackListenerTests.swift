import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreAuth

/// The loopback listener against hostile neighbours: a page that fires a callback with the wrong
/// state, and a client that connects and then dawdles.
@Suite(.tags(.integration), .integrationTier)
struct LoopbackListenerTests {
    @Test func wrongStateIsAnswered404AndTheRightCallbackStillSignsIn() async throws {
        let listener = try LoopbackListener(port: 0)
        let waiting = Task { try await listener.waitForCode(expectedState: "right-state", timeout: .seconds(30)) }
        let forged = try await TCPClient.request(port: listener.port, "GET /callback?code=evil&state=wrong HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(forged.hasPrefix("HTTP/1.1 404"))
        let real = try await TCPClient.request(port: listener.port, "GET /callback?code=good&state=right-state HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(real.hasPrefix("HTTP/1.1 200"))
        #expect(try await waiting.value == "good")
    }

    @Test func aClientThatDripsItsRequestDoesNotBlockTheRealCallback() async throws {
        let listener = try LoopbackListener(port: 0)
        // The per-connection deadline is far away: only serving clients side by side lets the real
        // callback through before the login deadline.
        let waiting = Task {
            try await listener.waitForCode(expectedState: "s", timeout: .seconds(20), connectionTimeout: .seconds(60))
        }
        let slow = try TCPClient(port: listener.port)
        let dripping = Locked(true)
        let dripper = Thread {
            while dripping.current {
                slow.send("G")
                usleep(200_000)
            }
        }
        dripper.start()
        let real = try await TCPClient.request(port: listener.port, "GET /callback?code=c&state=s HTTP/1.1\r\n\r\n")
        dripping.withLock { $0 = false }
        #expect(real.hasPrefix("HTTP/1.1 200"))
        let code = try await waiting.value
        #expect(code == "c")
    }

    @Test func aSilentClientIsDroppedAtItsDeadline() async throws {
        let listener = try LoopbackListener(port: 0)
        let waiting = Task {
            try await listener.waitForCode(expectedState: "s", timeout: .seconds(20), connectionTimeout: .milliseconds(100))
        }
        let silent = try TCPClient(port: listener.port)
        // The listener closes it: the read sees end of file rather than waiting forever.
        let answer = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: silent.readAll()) }.start()
        }
        #expect(answer.isEmpty)
        _ = try await TCPClient.request(port: listener.port, "GET /callback?code=c&state=s HTTP/1.1\r\n\r\n")
        #expect(try await waiting.value == "c")
    }
}

/// A blocking TCP client to 127.0.0.1, used from threads of its own.
final class TCPClient: Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw ConnectFailed(port: port)
        }
        // A safety net, not a bound on speed: the listener's thread is started by a task, which a
        // loaded run (both cores busy, tests blocking the runner's threads) has kept waiting > 30 s.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

    func readAll() -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends one request and reads the answer until the server closes, off the cooperative pool.
    static func request(port: Int, _ text: String) async throws -> String {
        let client = try TCPClient(port: port)
        return await withCheckedContinuation { continuation in
            Thread {
                client.send(text)
                continuation.resume(returning: client.readAll())
            }.start()
        }
    }
}

struct ConnectFailed: Error { let port: Int }
