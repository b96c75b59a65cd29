import Foundation
import TimbreAuth
import TimbreLibrary
import TimbreNet

/// `SpotifyAPI` over the network: the token manager authorizes, the executor retries and paces,
/// the pinned libcurl transport carries. Commands get theirs from `AppContext.spotify(vault:)`.
public struct LiveSpotifyAPI: SpotifyAPI {
    let client: AuthorizedClient

    public init(client: AuthorizedClient) { self.client = client }

    public var executor: RequestExecutor { client.executor }
    public var tokens: TokenManager { client.tokens }

    public func get(_ path: String) async throws -> HTTPResponse { try await client.get(path) }
    public func send(_ method: HTTPMethod, _ path: String, json body: Data?, reconciles: Bool) async throws -> HTTPResponse {
        try await client.send(method, path, json: body, reconciles: reconciles)
    }
    public func me() async throws -> UserProfile { try await client.me() }
}
