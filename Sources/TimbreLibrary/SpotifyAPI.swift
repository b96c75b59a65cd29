import Foundation
import TimbreNet

/// The Web API as the service layer sees it: the seam between what sync (and the coming edit
/// layer) asks of Spotify and how a request gets there. The live implementation — token manager,
/// request executor, pinned libcurl transport — is put together once, by the composition root
/// (`AppContext` in TimbreApp); a test may hand in anything that answers the same way.
public protocol SpotifyAPI: Sendable {
    /// An authorized `GET` of a path relative to api_url (`me/playlists?limit=50`), or of an
    /// absolute `next` URL on api_url's origin (the token is never sent anywhere else).
    func get(_ path: String) async throws -> HTTPResponse

    /// An authorized request of any method with an optional JSON body. `reconciles`: a write that
    /// must not be repeated — when its outcome is unknown this throws `WriteOutcomeUnknown` and
    /// the caller reads the server's state instead of resending.
    func send(_ method: HTTPMethod, _ path: String, json body: Data?, reconciles: Bool) async throws -> HTTPResponse

    /// The signed-in user (`GET /me`).
    func me() async throws -> UserProfile

    /// What every call goes through: its retry policy, its rate budget, its request count.
    var executor: RequestExecutor { get }
}
