import Foundation
import TimbreCore

public enum HTTPMethod: String, Sendable {
    case get = "GET", post = "POST", put = "PUT", delete = "DELETE", head = "HEAD"

    /// Safe to send twice: retried after a dropped connection.
    public var isIdempotent: Bool { self != .post }
}

public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    public var url: URL
    /// Header names as written; `Authorization` values are never logged.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Overall limit for this transfer; nil = the transport's default.
    public var timeout: Duration?
    /// A write whose repetition would do something else (adding items twice, moving a range
    /// twice): never resent once it may have reached the server, and when its outcome is unknown
    /// (a 5xx, a reset or timeout after it left) the executor throws `WriteOutcomeUnknown` so the
    /// caller reads the server's state instead of resending.
    public var reconciles: Bool
    /// May it be sent again after a dropped connection? (GET, PUT, DELETE: yes; a POST only when
    /// it cannot have reached the server.)
    public var repeatable: Bool { !reconciles && method.isIdempotent }

    public init(
        method: HTTPMethod = .get, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: Duration? = nil,
        reconciles: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.reconciles = reconciles
    }

    public static func form(_ url: URL, fields: [(String, String)]) -> HTTPRequest {
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return HTTPRequest(method: .post, url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(body.utf8))
    }

    public static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Lower-cased header names; repeated headers joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The one way timbre talks HTTP. Callers depend on this protocol, so tests can inject fakes and a
/// record/replay transport can stand in; `CurlTransport` is the real one.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns whatever status the server answered.
    /// Throws `TransportError` when no HTTP response was received, and `CancellationError` when
    /// the calling task was cancelled.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// How long a request may take in all before the transport gives up on it (nil: unknown).
    var requestDeadline: Duration? { get }
}

extension HTTPTransport {
    public var requestDeadline: Duration? { nil }
}
