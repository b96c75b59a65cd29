import Foundation
import TimbreCore

/// The loopback redirect target of RFC 8252: listens on 127.0.0.1 only, answers a short page,
/// ignores unrelated requests (favicon), and hands back exactly one authorization code.
public final class LoopbackListener: Sendable {
    public let port: Int
    private let socket: Int32
    private let stopped = Locked(false)

    /// Binds 127.0.0.1:`port` (0 = any free port) and starts listening.
    public init(port: Int) throws(LoginError) {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .listenerFailed(port: port, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1, never 0.0.0.0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .listenerFailed(port: port, reason: reason)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.socket = fd
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit {
        stop()
        close(socket)
    }

    public var redirectURI: String { PKCE.redirectURI(port: port) }

    public func stop() { stopped.withLock { $0 = true } }

    /// Waits for the callback whose `state` matches. Unrelated requests, and callbacks with another
    /// state (any web page can fire one at this port), get a 404 and waiting goes on; an error
    /// callback carrying the right state ends the wait with that error. Clients are served side by
    /// side, each with `connectionTimeout` to send its request, so a silent one blocks nobody.
    public func waitForCode(
        expectedState: String, timeout: Duration,
        connectionTimeout: Duration = .seconds(5)
    ) async throws -> String {
        let result = Locked<CheckedContinuation<String, any Error>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                result.withLock { $0 = continuation }
                let thread = Thread { [self] in
                    let outcome = serve(
                        expectedState: expectedState, deadline: ContinuousClock.now + timeout,
                        timeout: timeout, connectionTimeout: connectionTimeout)
                    result.withLock {
                        $0?.resume(with: outcome)
                        $0 = nil
                    }
                }
                thread.name = "timbre-login-listener"
                thread.start()
            }
        } onCancel: {
            stop()
        }
    }

    /// A connection still sending its request.
    private struct Client {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        var data: [UInt8] = []
    }

    /// More half-open connections than a browser ever makes; beyond this the oldest is dropped.
    private static let maxClients = 32

    private func serve(
        expectedState: String, deadline: ContinuousClock.Instant, timeout: Duration,
        connectionTimeout: Duration
    ) -> Result<String, any Error> {
        var clients: [Client] = []
        defer { for client in clients { close(client.fd) } }
        while !stopped.current {
            let now = ContinuousClock.now
            guard now < deadline else {
                return .failure(LoginError.timedOut(seconds: Int(timeout.components.seconds)))
            }
            clients.removeAll { client in
                guard client.deadline <= now else { return false }
                close(client.fd)
                return true
            }
            var pollers = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            pollers += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&pollers, nfds_t(pollers.count), 100) > 0 else { continue }
            if pollers[0].revents != 0 {
                let fd = accept(socket, nil, nil)
                if fd >= 0 {
                    // Glibc's accept4 is not visible to Swift; a browser this process spawns must not inherit it.
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    if clients.count >= Self.maxClients { close(clients.removeFirst().fd) }
                    clients.append(Client(fd: fd, deadline: ContinuousClock.now + connectionTimeout))
                }
            }
            // Indices shift as finished clients leave; walk the fds polled this round.
            for poller in pollers.dropFirst() where poller.revents != 0 {
                guard let index = clients.firstIndex(where: { $0.fd == poller.fd }) else { continue }
                switch Self.receive(&clients[index]) {
                case .waiting:
                    continue
                case .closed:
                    close(clients.remove(at: index).fd)
                case .target(let target):
                    let fd = clients.remove(at: index).fd
                    defer { close(fd) }
                    if let outcome = Self.answer(fd, target: target, expectedState: expectedState) { return outcome }
                }
            }
        }
        return .failure(CancellationError())
    }

    /// Answers one request; returns the login's outcome when this request decides it.
    private static func answer(_ fd: Int32, target: String, expectedState: String) -> Result<String, any Error>? {
        do {
            switch try CallbackParser.parse(target, expectedState: expectedState) {
            case .unrelated:
                respond(fd, status: "404 Not Found", title: "Not found", text: "This address only receives the timbre sign-in.")
                return nil
            case .code(let code):
                respond(
                    fd, status: "200 OK", title: "timbre is signed in",
                    text: "timbre received the authorization. You can close this tab and return to the terminal.")
                return .success(code)
            }
        } catch .stateMismatch {
            // Not the sign-in this timbre started: whoever sent it must not be able to end it.
            respond(fd, status: "404 Not Found", title: "Not found", text: "This address only receives the timbre sign-in.")
            return nil
        } catch {
            respond(fd, status: "400 Bad Request", title: "Sign-in not completed", text: TerminalText.sanitize(error.message))
            return .failure(error)
        }
    }

    private enum Received { case waiting, closed, target(String) }

    /// Reads what is there without blocking; a complete head yields its `GET target`.
    private static func receive(_ client: inout Client) -> Received {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = recv(client.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .waiting }
        guard count > 0 else { return .closed }
        client.data.append(contentsOf: buffer[0..<count])
        let complete =
            client.data.count >= 16_384
            || client.data.containsSequence([13, 10, 13, 10]) || client.data.containsSequence([10, 10])
        guard complete else { return .waiting }
        guard let text = String(bytes: client.data, encoding: .utf8), let line = text.split(whereSeparator: \.isNewline).first else { return .closed }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET" else { return .closed }
        return .target(String(parts[1]))
    }

    private static func respond(_ fd: Int32, status: String, title: String, text: String) {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let body =
            "<!doctype html><meta charset=utf-8><title>\(title)</title><body style=\"font-family:sans-serif;margin:3em\"><h1>\(title)</h1><p>\(escaped)</p>"
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n\(body)"
        var bytes = Array(response.utf8)
        _ = send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }
}

private extension [UInt8] {
    func containsSequence(_ needle: [UInt8]) -> Bool {
        guard count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
