import Foundation
import Logging
import TimbreCore
import TimbreNet

/// Sends Web API requests with a valid bearer token (a `BearerTokenSigner` the executor applies
/// to each attempt), only ever to the API's own origin.
///
/// A 401 refreshes the token (single-flight across every request) and retries, for as long as
/// each 401 answers a newer token than the one rejected before (bounded by
/// `RetryPolicy.maxReauthorizations`): with many requests in flight and tokens that die quickly,
/// one retry is not enough, and only a refresh the accounts service itself refuses means "sign
/// in again".
public struct AuthorizedClient: Sendable {
    public let executor: RequestExecutor
    public let tokens: TokenManager
    public let apiURL: URL

    public init(executor: RequestExecutor, tokens: TokenManager, apiURL: URL) {
        self.executor = executor
        self.tokens = tokens
        self.apiURL = apiURL
    }

    /// `path` is relative to api_url (`me/playlists?limit=50`) or an absolute `next` URL, which
    /// must be on api_url's origin: the token is never sent anywhere else.
    public func get(_ path: String) async throws -> HTTPResponse {
        try await send(.get, path)
    }

    /// Any method, with an optional JSON body; `reconciles` for a write that must not be repeated
    /// (see `HTTPRequest.reconciles`). A 401 is answered by a refresh and the same request again:
    /// a 401 means the request was not applied.
    public func send(_ method: HTTPMethod, _ path: String, json body: Data? = nil, reconciles: Bool = false) async throws -> HTTPResponse {
        let url = try resolve(path)
        var token = try await tokens.accessToken()
        var reauthorizations = 0
        var headers: [(name: String, value: String)] = []
        if body != nil { headers.append(("Content-Type", "application/json")) }
        while true {
            do {
                return try await executor.send(
                    HTTPRequest(method: method, url: url, headers: headers, body: body, reconciles: reconciles),
                    signer: BearerTokenSigner(token: token))
            } catch let error as SpotifyError where error.status == 401 && reauthorizations < executor.policy.maxReauthorizations {
                let renewed = try await tokens.accessToken(afterRejecting: token)
                // The same token again means no refresh could help: give the 401 to the caller.
                guard renewed != token else { throw error }
                token = renewed
                reauthorizations += 1
            }
        }
    }

    func resolve(_ path: String) throws -> URL {
        try Self.resolve(path, apiURL: apiURL)
    }

    /// The URL `path` names — relative to api_url, or absolute — with its dot segments removed
    /// (`.`/`..`, percent-encoded ones too), refused unless it stays on api_url's origin and inside
    /// its path: `../x`, `/v1/../x` and `/v1evil` all leave `/v1`.
    public static func resolve(_ path: String, apiURL: URL) throws -> URL {
        let given: URL
        if path.hasPrefix("https://") || path.hasPrefix("http://") {
            guard let absolute = URL(string: path) else { throw TransportError.invalidRequest("bad URL from the API: \(TerminalText.preview(path))") }
            guard sameOrigin(absolute, apiURL) else { throw outside(absolute, apiURL) }
            given = absolute
        } else {
            guard let relative = URL(string: apiURL.absoluteString + "/" + path) else {
                throw TransportError.invalidRequest("bad path \(TerminalText.preview(path))")
            }
            given = relative
        }
        guard var parts = URLComponents(url: given, resolvingAgainstBaseURL: false),
            let normalised = removingDotSegments(parts.percentEncodedPath),
            isInside(normalised, base: URLComponents(url: apiURL, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "")
        else { throw outside(given, apiURL) }
        parts.percentEncodedPath = normalised
        guard let url = parts.url else { throw TransportError.invalidRequest("bad path \(TerminalText.preview(path))") }
        return url
    }

    private static func outside(_ url: URL, _ apiURL: URL) -> TransportError {
        .invalidRequest(
            "\(TerminalText.preview(Redactor.redact(url.absoluteString), limit: 80)) is outside api_url (\(apiURL.absoluteString)); the access token is only sent to api_url"
        )
    }

    /// RFC 3986's remove_dot_segments, with `%2E` counted as `.`; nil when `..` climbs above the root.
    static func removingDotSegments(_ path: String) -> String? {
        var kept: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment.replacingOccurrences(of: "%2e", with: ".", options: .caseInsensitive) {
            case ".":
                if last { kept.append("") }
            case "..":
                // The leading "" (the path's first "/") is never removed.
                guard kept.count > 1 else { return nil }
                kept.removeLast()
                if last { kept.append("") }
            default:
                kept.append(segment)
            }
        }
        return kept.joined(separator: "/")
    }

    /// `path` is `base` or below it, segment by segment (`/v1evil` is not below `/v1`).
    static func isInside(_ path: String, base: String) -> Bool {
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        return root.isEmpty || path == root || path.hasPrefix(root + "/")
    }

    /// Scheme, host and port equal (a missing port is the scheme's default).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    /// `GET /me`; an unreadable body is transient, like a 5xx: fetched again after a backoff.
    public func me() async throws -> UserProfile {
        var attempt = 0
        while true {
            let response = try await get("me")
            if let profile = try? JSONDecoder().decode(UserProfile.self, from: response.body) { return profile }
            guard attempt < executor.policy.maxRetries else { throw AuthError.malformedProfile }
            try await executor.backOff(attempt: attempt)
            attempt += 1
        }
    }
}
