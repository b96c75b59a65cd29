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
    public func me() async throws -> UserProfile { try await client.me() }
}
