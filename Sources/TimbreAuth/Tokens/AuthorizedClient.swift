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
                return try await executor.send(HTTPRequest(method: method, url: url, headers: headers, body: body, reconciles: reconciles),
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
        if path.hasPrefix("https://") || path.hasPrefix("http://") {
            guard let absolute = URL(string: path) else { throw TransportError.invalidRequest("bad URL from the API: \(TerminalText.preview(path))") }
            guard Self.sameOrigin(absolute, apiURL), absolute.path.hasPrefix(apiURL.path) else {
                throw TransportError.invalidRequest(
                    "the API pointed timbre at \(TerminalText.preview(Redactor.redact(absolute.absoluteString), limit: 80)), outside api_url (\(apiURL.absoluteString)); the access token is only sent to api_url")
            }
            return absolute
        }
        guard let relative = URL(string: apiURL.absoluteString + "/" + path) else { throw TransportError.invalidRequest("bad path \(TerminalText.preview(path))") }
        return relative
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
