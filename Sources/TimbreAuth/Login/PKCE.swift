import Foundation
import TimbreNet

/// One authorization attempt: PKCE verifier and challenge (RFC 7636, S256) and the CSRF `state`,
/// all from the CSPRNG.
public struct PKCE: Sendable {
    public let verifier: String
    public let challenge: String
    public let state: String

    /// Reading the library, editing it (playlists, Liked Songs), and playing it on a Connect device.
    public static let scopes =
        [
            "playlist-read-private", "playlist-read-collaborative", "user-library-read",
            "playlist-modify-public", "playlist-modify-private", "user-library-modify",
        ] + playbackScopes
    /// What an edit needs; a sign-in from before editing existed lacks them.
    public static let editScopes = ["playlist-modify-public", "playlist-modify-private", "user-library-modify"]
    /// What the player commands need (reading the player and devices, commanding them, and what
    /// played); a sign-in from before playback existed lacks them.
    public static let playbackScopes = [
        "user-read-playback-state", "user-modify-playback-state", "user-read-currently-playing", "user-read-recently-played",
    ]

    public init() throws {
        // 48 random bytes → 64 base64url characters (RFC 7636 allows 43…128).
        let verifier = Crypto.base64URL(try Crypto.randomBytes(48))
        self.init(verifier: verifier, state: Crypto.base64URL(try Crypto.randomBytes(24)))
    }

    public init(verifier: String, state: String) {
        self.verifier = verifier
        self.challenge = Crypto.base64URL(Crypto.sha256(Array(verifier.utf8)))
        self.state = state
    }

    /// `GET {accounts}/authorize?…` as Spotify's authorization-code-with-PKCE guide describes it.
    public func authorizeURL(accountsURL: URL, clientID: String, redirectURI: String) -> URL {
        var components =
            URLComponents(url: accountsURL.appendingPathComponent("authorize"), resolvingAgainstBaseURL: false)
            ?? URLComponents()
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "scope", value: Self.scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
            URLQueryItem(name: "code_challenge", value: challenge),
        ]
        // URLComponents leaves '+' alone in queries; encode it so the server cannot read a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url ?? accountsURL
    }

    public static func redirectURI(port: Int) -> String { "http://127.0.0.1:\(port)/callback" }
}
