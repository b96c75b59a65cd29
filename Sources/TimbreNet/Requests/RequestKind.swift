import Foundation

/// What a request was sent for, as `timbre quota` counts them.
///
/// The command decides when it knows (`RequestKind.$current`, set around a command's run: an
/// edit's reads are part of the edit, `timbre api`'s Web API requests are "other"); otherwise the request
/// says it by method and path: `/search` → search, `/me/player…` → player, a write (not GET) →
/// edit, a read of the Web API → sync, anything else (the accounts service's token requests) →
/// other. The interface sets none, so its background sync counts as sync and its edits as edit.
public enum RequestKind: String, Sendable, CaseIterable, Equatable {
    case sync, edit, search, player, other

    /// The kind the running command gives every request it sends (nil: decided per request).
    @TaskLocal public static var current: RequestKind?

    /// The kind of `request` for the command running now.
    /// A request outside the Web API (the accounts service's token requests) is "other" whatever
    /// the command: it is not part of the app's Web API quota.
    public static func of(_ request: HTTPRequest) -> RequestKind {
        let kind = classify(method: request.method.rawValue, path: request.url.path)
        guard kind != .other, let current else { return kind }
        return current
    }

    /// By method and path alone.
    public static func classify(method: String, path: String) -> RequestKind {
        let segments = path.split(separator: "/")
        // The Web API is served under `/v1` (Spotify's and the sandbox's); the accounts service is not.
        guard let v1 = segments.firstIndex(of: "v1") else { return .other }
        let rest = segments[(v1 + 1)...]
        if rest.first == "search" { return .search }
        if rest.count >= 2, rest[rest.startIndex] == "me", rest[rest.startIndex + 1] == "player" { return .player }
        return method.uppercased() == "GET" ? .sync : .edit
    }
}
