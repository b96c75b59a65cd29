import Foundation
import TimbreNet

/// The Web API as the library sees it: the seam between what the sync and the editor ask of
/// Spotify and how a request gets there. The live implementation — token manager, request
/// executor, pinned libcurl transport — is put together once, by the composition root
/// (`AppContext` in TimbreApp); a test hands in anything that answers the same way, with no
/// executor to build: `pacing` has a default that counts nothing and never waits.
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

    /// How the calls are paced, for the reports and the retries above the requests.
    var pacing: RequestPacing { get }
}

extension SpotifyAPI {
    public var pacing: RequestPacing { .unpaced }
}

/// What the sync and the editor need from how requests go out (live: the `RequestExecutor`'s):
/// how many were sent and how long the rate limit held them back (the reports), how many may run
/// at once (the sync's workers), and the wait before reading a page again that came back
/// unreadable — a retry above the executor, bounded by `maxRetries`.
public struct RequestPacing: Sendable {
    public var requestsSent: @Sendable () -> Int
    public var rateLimitWaited: @Sendable () -> Duration
    /// How long Spotify's rate limit still holds every request back (nil: not limited).
    public var remainingPause: @Sendable () -> Duration?
    public var maxConcurrent: Int
    public var maxRetries: Int
    /// Waits before attempt `attempt + 1` (0-based) at something that failed transiently.
    public var backOff: @Sendable (_ attempt: Int) async throws -> Void
    /// How long one request may take before the transport gives up on it: past that, a write
    /// this process sent cannot be in flight on its side any more.
    public var requestDeadline: Duration = .seconds(60)

    public init(
        requestsSent: @escaping @Sendable () -> Int, rateLimitWaited: @escaping @Sendable () -> Duration,
        remainingPause: @escaping @Sendable () -> Duration?, maxConcurrent: Int, maxRetries: Int,
        backOff: @escaping @Sendable (_ attempt: Int) async throws -> Void
    ) {
        self.requestsSent = requestsSent
        self.rateLimitWaited = rateLimitWaited
        self.remainingPause = remainingPause
        self.maxConcurrent = maxConcurrent
        self.maxRetries = maxRetries
        self.backOff = backOff
    }

    /// The executor's counts, rate budget and backoff.
    public init(executor: RequestExecutor) {
        self.init(
            requestsSent: { executor.requestsSent }, rateLimitWaited: { executor.budget.waited },
            remainingPause: { executor.budget.remainingPause }, maxConcurrent: executor.budget.maxConcurrent,
            maxRetries: executor.policy.maxRetries, backOff: { attempt in try await executor.backOff(attempt: attempt) })
        if let deadline = executor.transport.requestDeadline { requestDeadline = deadline }
    }

    /// Nothing counted, no waits, the executor's default limits: a fake's.
    public static let unpaced = RequestPacing(
        requestsSent: { 0 }, rateLimitWaited: { .zero }, remainingPause: { nil },
        maxConcurrent: RateBudget.defaultMaxConcurrent, maxRetries: RetryPolicy().maxRetries,
        backOff: { _ in })
}
