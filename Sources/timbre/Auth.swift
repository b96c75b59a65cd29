import ArgumentParser
import Foundation
import TimbreAuth
import TimbreCore

extension Root {
    struct Auth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the sign-in state, or print an access token for scripts.",
            subcommands: [Status.self, Token.self])

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Who is signed in, where the secret lives (keyring, file, env), and when the access token expires.",
                discussion: "Exits 4 when not signed in.")

            @Flag(help: "Print a JSON object.")
            var json = false

            func run() async throws {
                let context = try AppContext.load()
                let vault = context.vault()
                guard let (_, source) = try await vault.refreshToken() else {
                    if json { Output.json(.object([("signed_in", .bool(false))])) }
                    throw AuthError.notSignedIn
                }
                var session = await vault.loadSession()
                if session?.userID == nil {
                    // Signed in through TIMBRE_REFRESH_TOKEN (or a session that was never saved): ask Spotify.
                    let executor = context.executor()
                    let tokens = try context.tokens(executor: executor, vault: vault)
                    let client = AuthorizedClient(executor: executor, tokens: tokens, apiURL: context.config.apiURL)
                    let profile = try await client.me()
                    await tokens.setUser(profile)
                    session = await tokens.currentSession()
                }
                if json {
                    Output.json(.object([
                        ("signed_in", .bool(true)),
                        ("user_id", .optional(session?.userID)),
                        ("display_name", .optional(session?.displayName)),
                        ("source", .string(source.rawValue)),
                        ("expires_at", .optional(session?.expiresAt.iso8601)),
                        ("scopes", .array((session?.scopes ?? []).map(JSONValue.string))),
                    ]))
                    return
                }
                // Every string here came from Spotify: shown, never run by the terminal.
                let userID = session?.userID.map { TerminalText.preview($0, limit: 80) }
                let who = session?.displayName.map { "\(TerminalText.preview($0, limit: 80)) (\(userID ?? "?"))" } ?? userID ?? "unknown user"
                print("Signed in to Spotify as \(who)")
                print("  secret stored in: \(source.rawValue)")
                if let session {
                    let state = session.expiresAt > Date() ? "expires" : "expired"
                    print("  access token \(state): \(session.expiresAt.iso8601)")
                    print("  scopes: \(session.scopes.map { TerminalText.preview($0, limit: 80) }.joined(separator: " "))")
                }
            }
        }

        struct Token: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print a valid access token and a newline (refreshed first when under 5 minutes remain).",
                discussion: "Nothing else goes to stdout, so `$(timbre auth token)` works in scripts.")

            func run() async throws {
                let context = try AppContext.load()
                let vault = context.vault()
                guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
                let token = try await context.tokens(executor: context.executor(), vault: vault).accessToken()
                Output.stdout(token + "\n")
            }
        }
    }
}
