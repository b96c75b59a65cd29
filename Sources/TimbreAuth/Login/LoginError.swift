import Foundation
import TimbreCore

public enum LoginError: UserFacingError, Equatable {
    case missingClientID(redirectURI: String)
    case stateMismatch
    case accessDenied
    case authorizationFailed(String)
    case timedOut(seconds: Int)
    case listenerFailed(port: Int, reason: String)
    case invalidRedirectURL(String)
    case invalidTokenInput(String)

    public var message: String {
        switch self {
        case .missingClientID:
            return "no Spotify client id is configured"
        case .stateMismatch:
            return "the sign-in callback did not carry this login's state (a stale or forged redirect); nothing was stored"
        case .accessDenied:
            return "sign-in was cancelled: Spotify reports that access was denied"
        case .authorizationFailed(let error):
            return "Spotify refused the sign-in: \(TerminalText.preview(error))"
        case .timedOut(let seconds):
            return "no sign-in callback arrived within \(seconds) seconds"
        case .listenerFailed(let port, let reason):
            return "cannot listen for the sign-in callback on 127.0.0.1:\(port): \(reason)"
        case .invalidRedirectURL(let detail):
            return "that is not the redirect URL of this sign-in: \(TerminalText.preview(detail))"
        case .invalidTokenInput(let detail):
            return "could not read a refresh token from standard input: \(detail)"
        }
    }

    public var hint: String? {
        switch self {
        case .missingClientID(let redirectURI):
            return """
                register a Spotify app once:
                    1. open https://developer.spotify.com/dashboard and create an app (any name)
                    2. add this Redirect URI exactly: \(redirectURI)
                    3. tick "Web API", save, and copy the app's Client ID
                    4. put `client_id = "…"` in config.toml (`timbre paths` shows where) or export TIMBRE_CLIENT_ID
                """
        case .stateMismatch, .timedOut, .accessDenied:
            return "run `timbre login` again (over SSH: `timbre login --paste`)"
        case .listenerFailed:
            return "free that port, or pass --port N (and register http://127.0.0.1:N/callback in your Spotify app)"
        case .invalidRedirectURL:
            return "paste the whole address the browser shows after approving, starting with http://127.0.0.1"
        case .invalidTokenInput:
            return "pipe the refresh token, or the JSON a token endpoint returned, e.g. `timbre login --with-token < token.txt`"
        case .authorizationFailed:
            return "check client_id and the app's redirect URIs in the Spotify dashboard"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .missingClientID, .invalidRedirectURL, .invalidTokenInput: return .usage
        case .accessDenied: return .authenticationRequired
        default: return .failure
        }
    }
}
