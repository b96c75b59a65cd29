import Foundation
import TimbreAuth
import TimbreCore
import TimbreNet

/// `timbre auth status`: who is signed in, where the secret lives, when the access token expires.
public struct AuthStatusCommand: Sendable {
    public var json: Bool

    public init(json: Bool) { self.json = json }

    /// Exit 4 when not signed in.
    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = context.console
        let vault = context.vault()
        guard let (_, source) = try await vault.refreshToken() else {
            if json { console.json(.object([("signed_in", .bool(false))])) }
            throw AuthError.notSignedIn
        }
        var session = await vault.loadSession()
        if session?.userID == nil {
            // Signed in through TIMBRE_REFRESH_TOKEN (or a session that was never saved): ask Spotify.
            let api = try context.spotify(vault: vault)
            await api.tokens.setUser(try await api.me())
            session = await api.tokens.currentSession()
        }
        if json {
            console.json(
                .object([
                    ("signed_in", .bool(true)),
                    ("user_id", .optional(session?.userID)),
                    ("display_name", .optional(session?.displayName)),
                    ("source", .string(source.rawValue)),
                    ("expires_at", .optional(session?.expiresAt.iso8601)),
                    ("scopes", .array((session?.scopes ?? []).map(JSONValue.string))),
                ]))
            return .success
        }
        // Every string here came from Spotify: shown, never run by the terminal.
        let userID = session?.userID.map { TerminalText.preview($0, limit: 80) }
        let who = session?.displayName.map { "\(TerminalText.preview($0, limit: 80)) (\(userID ?? "?"))" } ?? userID ?? "unknown user"
        var lines = ["Signed in to Spotify as \(who)", "  secret stored in: \(source.rawValue)"]
        if let session {
            let state = session.expiresAt > Date() ? "expires" : "expired"
            lines.append("  access token \(state): \(session.expiresAt.iso8601)")
            lines.append("  scopes: \(session.scopes.map { TerminalText.preview($0, limit: 80) }.joined(separator: " "))")
        }
        console.lines(lines)
        return .success
    }
}

/// `timbre auth token`: a valid access token and a newline, nothing else on stdout.
public struct AuthTokenCommand: Sendable {
    public init() {}

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let vault = context.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        context.console.line(try await context.spotify(vault: vault).tokens.accessToken())
        return .success
    }
}
