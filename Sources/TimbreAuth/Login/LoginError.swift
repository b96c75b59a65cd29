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

/// Reads the callback target (`/callback?code=…&state=…`, or the full redirect URL pasted over
/// SSH) and returns the authorization code when the state matches.
public enum CallbackParser {
    public enum Outcome: Equatable {
        case code(String)
        /// Not a callback at all (favicon, a stray request): ignore it.
        case unrelated
    }

    public static func parse(_ target: String, expectedState: String) throws(LoginError) -> Outcome {
        guard let components = URLComponentsLite(target), components.path == "/callback" else { return .unrelated }
        let query = components.query
        guard let state = query["state"], constantTimeEqual(state, expectedState) else { throw .stateMismatch }
        if let error = query["error"] {
            throw error == "access_denied" ? .accessDenied : .authorizationFailed(error)
        }
        guard let code = query["code"], !code.isEmpty else { throw .authorizationFailed("the callback carried no code") }
        return .code(code)
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Path and decoded query of a request target or URL, without Foundation's URL leniency.
struct URLComponentsLite {
    let path: String
    let query: [String: String]

    init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            rest = rest[slash...]
        }
        guard rest.hasPrefix("/") else { return nil }
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts[0])
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = Self.decode(kv[0])
                let value = kv.count == 2 ? Self.decode(kv[1]) : ""
                if query[key] == nil { query[key] = value }
            }
        }
        self.query = query
    }

    private static func decode(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}
