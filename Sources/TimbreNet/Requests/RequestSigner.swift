import Foundation
import TimbreCore

/// Authenticates a request just before it is sent. `RequestExecutor` calls it for every attempt
/// (so a retry carries a fresh timestamp) and never knows which kind it holds.
public protocol RequestSigner: Sendable {
    func sign(_ request: HTTPRequest) throws -> HTTPRequest
}

extension HTTPRequest {
    /// Replaces every header called `name` (case-insensitive) with one `name: value`.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.insert((name, value), at: 0)
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// `Authorization: Bearer TOKEN` — what Spotify's Web API takes (RFC 6750).
public struct BearerTokenSigner: RequestSigner {
    let token: String

    public init(token: String) { self.token = token }

    public func sign(_ request: HTTPRequest) throws -> HTTPRequest {
        var signed = request
        signed.setHeader("Authorization", "Bearer \(token)")
        return signed
    }
}

/// An API key, in a header (`X-API-Key: KEY`) or a query parameter (`?api_key=KEY`).
public struct APIKeySigner: RequestSigner {
    public enum Placement: Sendable, Equatable {
        case header(String)
        case query(String)
    }

    let key: String
    public let placement: Placement

    public init(key: String, placement: Placement) {
        self.key = key
        self.placement = placement
    }

    public func sign(_ request: HTTPRequest) throws -> HTTPRequest {
        var signed = request
        switch placement {
        case .header(let name):
            signed.setHeader(name, key)
        case .query(let name):
            guard var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
                throw TransportError.invalidRequest("cannot add an API key to \(TerminalText.preview(request.url.absoluteString))")
            }
            let encodedName = HTTPRequest.formEncode(name)
            var items = (parts.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
            items.removeAll { $0 == encodedName || $0.hasPrefix(encodedName + "=") }
            items.append("\(encodedName)=\(HTTPRequest.formEncode(key))")
            parts.percentEncodedQuery = items.joined(separator: "&")
            guard let url = parts.url else {
                throw TransportError.invalidRequest("cannot add an API key to \(TerminalText.preview(request.url.absoluteString))")
            }
            signed.url = url
        }
        return signed
    }
}

/// HMAC-SHA256 over the request (docs/ARCHITECTURE.md "Request signing"). The canonical string
/// is five lines joined by "\n", no trailing newline:
///
///     TIMBRE-HMAC-SHA256
///     METHOD                     upper case: GET, POST, …
///     PATH?QUERY                 the request target exactly as sent (percent-encoded; no "?" without a query)
///     TIMESTAMP                  Unix seconds, the value of X-Timbre-Timestamp
///     SHA256(BODY)               lower-case hex; of the empty string when there is no body
///
/// The request gets `X-Timbre-Timestamp: TIMESTAMP` and
/// `X-Timbre-Signature: keyId=ID, signature=HEX` (HEX: lower-case HMAC-SHA256 of the canonical
/// string with the shared key).
public struct HMACRequestSigner: RequestSigner {
    public static let scheme = "TIMBRE-HMAC-SHA256"
    public static let timestampHeader = "X-Timbre-Timestamp"
    public static let signatureHeader = "X-Timbre-Signature"

    public let keyID: String
    private let key: [UInt8]
    private let clock: @Sendable () -> Date

    public init(keyID: String, key: [UInt8], clock: @escaping @Sendable () -> Date = { Date() }) {
        self.keyID = keyID
        self.key = key
        self.clock = clock
    }

    public static func canonicalString(method: HTTPMethod, url: URL, timestamp: Int, body: Data?) -> String {
        [scheme, method.rawValue, target(of: url), String(timestamp), Crypto.hex(Crypto.sha256(Array(body ?? Data())))]
            .joined(separator: "\n")
    }

    /// The path and query as they go on the request line.
    static func target(of url: URL) -> String {
        let parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = parts?.percentEncodedPath ?? url.path
        let query = parts?.percentEncodedQuery
        return (path.isEmpty ? "/" : path) + (query.map { "?" + $0 } ?? "")
    }

    public func signature(for request: HTTPRequest, timestamp: Int) -> String {
        let text = Self.canonicalString(method: request.method, url: request.url, timestamp: timestamp, body: request.body)
        return Crypto.hex(Crypto.hmacSHA256(key: key, data: Array(text.utf8)))
    }

    public func sign(_ request: HTTPRequest) throws -> HTTPRequest {
        let timestamp = Int(clock().timeIntervalSince1970.rounded(.down))
        var signed = request
        signed.setHeader(Self.timestampHeader, String(timestamp))
        signed.setHeader(Self.signatureHeader, "keyId=\(keyID), signature=\(signature(for: request, timestamp: timestamp))")
        return signed
    }
}
