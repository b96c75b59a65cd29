import Foundation
import TimbreCore

/// The loopback redirect target of RFC 8252: listens on 127.0.0.1 only, answers a short page,
/// ignores unrelated requests (favicon), and hands back exactly one authorization code.
public final class LoopbackListener: @unchecked Sendable {
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
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian // 127.0.0.1, never 0.0.0.0
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

    /// Waits for the callback whose `state` matches. Unrelated requests get a 404 and waiting goes
    /// on; a callback with another state, or an error, ends the wait with that error.
    public func waitForCode(expectedState: String, timeout: Duration) async throws -> String {
        let result = Locked<CheckedContinuation<String, any Error>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                result.withLock { $0 = continuation }
                let thread = Thread { [self] in
                    let outcome = serve(expectedState: expectedState, deadline: ContinuousClock.now + timeout, timeout: timeout)
                    result.withLock { $0?.resume(with: outcome); $0 = nil }
                }
                thread.name = "timbre-login-listener"
                thread.start()
            }
        } onCancel: {
            stop()
        }
    }

    private func serve(expectedState: String, deadline: ContinuousClock.Instant, timeout: Duration) -> Result<String, any Error> {
        while !stopped.current {
            guard ContinuousClock.now < deadline else {
                return .failure(LoginError.timedOut(seconds: Int(timeout.components.seconds)))
            }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            defer { close(client) }
            guard let target = Self.readRequestTarget(client) else { continue }
            do {
                switch try CallbackParser.parse(target, expectedState: expectedState) {
                case .unrelated:
                    Self.respond(client, status: "404 Not Found", title: "Not found", text: "This address only receives the timbre sign-in.")
                case .code(let code):
                    Self.respond(client, status: "200 OK", title: "timbre is signed in",
                                 text: "timbre received the authorization. You can close this tab and return to the terminal.")
                    return .success(code)
                }
            } catch {
                Self.respond(client, status: "400 Bad Request", title: "Sign-in not completed", text: TerminalText.sanitize(error.message))
                return .failure(error)
            }
        }
        return .failure(CancellationError())
    }

    /// The request target of `GET target HTTP/1.1`, read with a short timeout.
    private static func readRequestTarget(_ fd: Int32) -> String? {
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 2048)
        while data.count < 16_384 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count >= 4, data.suffix(4) == [13, 10, 13, 10] { break }
            if let text = String(bytes: data, encoding: .utf8), text.contains("\r\n\r\n") || text.contains("\n\n") { break }
        }
        guard let text = String(bytes: data, encoding: .utf8), let line = text.split(whereSeparator: \.isNewline).first else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    private static func respond(_ fd: Int32, status: String, title: String, text: String) {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let body = "<!doctype html><meta charset=utf-8><title>\(title)</title><body style=\"font-family:sans-serif;margin:3em\"><h1>\(title)</h1><p>\(escaped)</p>"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n\(body)"
        var bytes = Array(response.utf8)
        _ = send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }
}
