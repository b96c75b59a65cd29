import Foundation

public struct SandboxRequest: Sendable {
    public var method: String
    /// Path without the query, e.g. `/v1/me/playlists`.
    public var path: String
    /// Raw (still percent-encoded) query without `?`, or "".
    public var query: String
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: String, headers: [String: String], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A `/v1` write (POST, PUT, DELETE) that declares no body length: neither `Content-Length`
    /// nor `Transfer-Encoding` — what curl sends for `-X PUT` without data.
    var lacksLength: Bool {
        ["POST", "PUT", "DELETE"].contains(method) && (path == "/v1" || path.hasPrefix("/v1/"))
            && headers["content-length"] == nil && headers["transfer-encoding"] == nil
    }

    /// Decoded query parameters; the first occurrence of a name wins.
    public var parameters: [String: String] { FormEncoding.decode(query) }
}

public struct SandboxResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Wait this long before answering (latency option and faults).
    public var delayMilliseconds = 0
    /// Send the headers and this many body bytes, then close the connection abruptly.
    public var resetAfterBytes: Int?
    /// Close the connection without sending anything (the request was handled all the same).
    public var closeWithoutAnswer = false
    /// Set by handlers whose body is still to be filtered and serialized.
    var value: JSONValue?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static let jsonType = ("Content-Type", "application/json; charset=utf-8")

    public static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> SandboxResponse {
        SandboxResponse(status: status, headers: [jsonType] + headers, body: value.serialized())
    }

    /// Web API error: `{"error":{"status":N,"message":"…"}}`, with `"reason"` when given.
    public static func apiError(_ status: Int, _ message: String, headers: [(String, String)] = [], reason: String? = nil) -> SandboxResponse {
        var fields: [(String, JSONValue)] = [("status", .int(status)), ("message", .string(message))]
        if let reason { fields.append(("reason", .string(reason))) }
        return json(status, .object([("error", .object(fields))]), headers: headers)
    }

    /// Accounts-service error: `{"error":"invalid_grant","error_description":"…"}`.
    public static func accountsError(_ error: String, _ description: String, status: Int = 400) -> SandboxResponse {
        json(status, .object([("error", .string(error)), ("error_description", .string(description))]))
    }

    public static func text(_ status: Int, _ text: String) -> SandboxResponse {
        SandboxResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    public static func redirect(_ location: String) -> SandboxResponse {
        SandboxResponse(status: 302, headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")], body: [])
    }
}

public enum FormEncoding {
    public static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unescape(String(parts[0]))
            if result[name] == nil { result[name] = parts.count > 1 ? unescape(String(parts[1])) : "" }
        }
        return result
    }

    static func unescape(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Encodes a value for a query string (RFC 3986 unreserved characters stay).
    public static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static let secretNames: Set<String> = ["code", "refresh_token", "code_verifier", "access_token", "client_secret"]

    /// The query with secret-bearing parameters' values replaced, for logs. Every request is
    /// logged, and most queries hold no secret: those come back as they are, and a name is only
    /// percent-decoded when it holds an escape (Foundation's decoding of every name of every
    /// request was a seventh of the sandbox's CPU during a full sync).
    public static func redacted(_ query: String) -> String {
        var pairs = query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { Substring($0) }
        var changed = false
        for (index, pair) in pairs.enumerated() {
            guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = pair[..<equals]
            let escaped = name.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
            guard secretNames.contains(escaped ? unescape(String(name)) : String(name)) else { continue }
            pairs[index] = Substring(name + "=REDACTED")
            changed = true
        }
        return changed ? pairs.joined(separator: "&") : query
    }
}
