import Foundation
import TimbreCore

/// An HTTP answer that was not a success, decoded from Spotify's two error shapes.
public enum SpotifyError: UserFacingError, Equatable {
    /// Web API: `{"error": {"status": 401, "message": "…"}}`.
    case api(status: Int, message: String, path: String)
    /// Accounts service: `{"error": "invalid_grant", "error_description": "…"}`.
    case accounts(status: Int, code: String, description: String?)
    /// A body in neither shape (an HTML error page, a proxy's answer).
    case unexpected(status: Int, bodyPreview: String, path: String)
    /// 429 whose wait would take the stall (pauses since the last successful answer) past
    /// `rate_limit_budget`: `retryAfterSeconds` asked for, `waitedSeconds` already stalled.
    case rateLimited(retryAfterSeconds: Int, waitedSeconds: Int, budgetSeconds: Int, path: String)
    /// 429 whose body names `QUOTA_EXCEEDED`: the app's quota is spent, waiting seconds won't help.
    case quotaExceeded(path: String)
    /// 5xx that persisted through every retry.
    case serverUnavailable(status: Int, attempts: Int, path: String)

    public var status: Int {
        switch self {
        case .api(let s, _, _), .accounts(let s, _, _), .unexpected(let s, _, _), .serverUnavailable(let s, _, _): return s
        case .rateLimited, .quotaExceeded: return 429
        }
    }

    /// Spotify answered and said no, for good: any 4xx of the Web API but 401 (sign in again),
    /// 408 and 429 (try later). Sending the same request again gets the same answer, so an edit
    /// that meets one ends (`failed`) instead of waiting to be resent.
    public var isDefinitiveRefusal: Bool {
        guard case .api(let status, _, _) = self else { return false }
        return (400..<500).contains(status) && ![401, 408, 429].contains(status)
    }

    /// Spotify's own words for an `.api` error (nil for the others).
    public var spotifyMessage: String? {
        if case .api(_, let message, _) = self { return message }
        return nil
    }

    /// The accounts service's refresh token is gone: the user must sign in again.
    public var isInvalidGrant: Bool {
        if case .accounts(_, let code, _) = self { return code == "invalid_grant" }
        return false
    }

    public var message: String {
        switch self {
        case .api(let status, let message, let path):
            return "Spotify answered \(status) for \(TerminalText.sanitize(path)): \(TerminalText.preview(message))"
        case .accounts(let status, let code, let description):
            if code == "invalid_grant" {
                return "your Spotify session has expired (refresh tokens last 6 months) — run `timbre login`"
            }
            let detail = description.map { ": \(TerminalText.preview($0))" } ?? ""
            return "Spotify sign-in failed (\(status) \(TerminalText.preview(code))\(detail))"
        case .unexpected(let status, let preview, let path):
            return "Spotify answered \(status) for \(TerminalText.sanitize(path)) with an unexpected body: \(TerminalText.sanitize(preview))"
        case .rateLimited(let seconds, let waited, let budget, let path):
            if waited == 0, seconds > budget {
                return
                    "Spotify is rate-limiting timbre (\(TerminalText.sanitize(path))) and asks to wait \(Self.duration(seconds)), longer than rate_limit_budget (\(budget) s)"
            }
            return
                "Spotify is rate-limiting timbre (\(TerminalText.sanitize(path))): after \(waited) s of waiting without a successful answer it asks for \(Self.duration(seconds)) more, past rate_limit_budget (\(budget) s)"
        case .quotaExceeded(let path):
            return "Spotify says this app's request quota is used up (QUOTA_EXCEEDED, \(TerminalText.sanitize(path)))"
        case .serverUnavailable(let status, let attempts, let path):
            return "Spotify kept answering \(status) for \(TerminalText.sanitize(path)) (\(attempts) attempts)"
        }
    }

    public var hint: String? {
        switch self {
        case .api(401, _, _): return "run `timbre login` to sign in again"
        case .api(403, _, _): return "this app may not have access to that resource (development-mode apps only see playlists you own or collaborate on)"
        case .accounts(_, "invalid_client", _): return "check client_id in config.toml (or TIMBRE_CLIENT_ID)"
        case .rateLimited: return "try again later (`timbre sync` resumes where the cache left off), or raise rate_limit_budget in config.toml"
        case .quotaExceeded: return "wait for the quota to reset (usually within a day), or use a client_id of your own in config.toml"
        case .serverUnavailable: return "Spotify may be having trouble; try again in a few minutes"
        case .api(404, _, _): return "sync, or check the id with `timbre playlists` (Spotify answers 404 for what is gone, and for its own playlists)"
        case .api(400, let message, _) where message.lowercased().contains("non-existing id"):
            return "check the track and episode ids you gave (`timbre search` prints a track's URI)"
        case .api(let status, _, _) where status >= 500: return "Spotify may be having trouble; try again in a few minutes"
        case .api: return "check the ids and values you gave; `timbre doctor` checks the setup"
        case .accounts: return "run `timbre login` again; if it keeps failing, `timbre doctor` checks the client id and the connection"
        case .unexpected: return "something between timbre and Spotify (a proxy, a captive portal) may have answered; `timbre doctor` checks the connection"
        }
    }

    public var exitStatus: ExitStatus {
        if isInvalidGrant { return .authenticationRequired }
        if case .api(401, _, _) = self { return .authenticationRequired }
        return .failure
    }

    /// "45 s", "3 min", "26 h": a wait as a person reads it.
    static func duration(_ seconds: Int) -> String {
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7_200 { return "\(seconds / 60) min" }
        return "\(seconds / 3_600) h"
    }

    /// A 429 body that names the quota (`"reason": "QUOTA_EXCEEDED"`, or the word in the message).
    public static func namesQuota(_ response: HTTPResponse) -> Bool {
        guard response.status == 429, !response.body.isEmpty else { return false }
        return String(decoding: response.body.prefix(4_096), as: UTF8.self).uppercased().contains("QUOTA_EXCEEDED")
    }

    /// Decodes an error response; `path` names the request in messages (never its query).
    public static func decode(_ response: HTTPResponse, path: String) -> SpotifyError {
        if namesQuota(response) { return .quotaExceeded(path: path) }
        let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        if let error = json?["error"] as? [String: Any] {
            let status = (error["status"] as? Int) ?? response.status
            let message = (error["message"] as? String) ?? "no message"
            return .api(status: status, message: message, path: path)
        }
        if let code = json?["error"] as? String {
            return .accounts(status: response.status, code: code, description: json?["error_description"] as? String)
        }
        let text = String(decoding: response.body.prefix(200), as: UTF8.self)
        return .unexpected(status: response.status, bodyPreview: TerminalText.preview(Redactor.redact(text), limit: 120), path: path)
    }
}
