import Foundation
import TimbreAuth
import TimbreLibrary
import TimbreNet

/// The live `SpotifyAPI` is the authorized client itself: the token manager authorizes, the
/// executor retries and paces, the pinned libcurl transport carries. TimbreAuth and TimbreLibrary
/// do not see each other, so the composition root joins them here; commands get theirs from
/// `AppContext.spotify(vault:)`.
extension AuthorizedClient: SpotifyAPI {
    public var pacing: RequestPacing { RequestPacing(executor: executor) }
}
