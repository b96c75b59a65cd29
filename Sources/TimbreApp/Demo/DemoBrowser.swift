import Foundation
import TimbreNet

#if canImport(Glibc)
import Glibc
#endif

/// Plays the user's browser in the demo: asks the sandbox's authorize page (through the same
/// pinned transport) and follows its redirect to timbre's loopback listener. `secret` (the
/// sandbox's owner secret) stands in for a signed-in browser's session: the sandbox approves only
/// a request carrying it.
enum DemoBrowser {
    static func approve(_ url: String, secret: String, executor: RequestExecutor) {
        Task.detached {
            guard let authorize = URL(string: url),
                let response = try? await executor.transport.send(HTTPRequest(url: authorize, headers: [("X-Sandbox-Secret", secret)])),
                response.status == 302, let location = response.header("location"),
                let callback = URL(string: location), callback.host == "127.0.0.1", let port = callback.port
            else { return }
            let target = callback.path + (callback.query.map { "?" + $0 } ?? "")
            LoopbackGet.send(port: port, target: target)
        }
    }
}

/// A one-shot `GET` to 127.0.0.1, enough to deliver the redirect to the listener.
enum LoopbackGet {
    static func send(port: Int, target: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        var request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        _ = Glibc.send(fd, &request, request.count, Int32(MSG_NOSIGNAL))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
    }
}
