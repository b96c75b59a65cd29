import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Auth: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the sign-in state, or print an access token for scripts.",
            subcommands: [Status.self, Token.self])

        struct Status: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Who is signed in, where the secret lives (keyring, file, env), and when the access token expires.",
                discussion: "Exits 4 when not signed in.")

            @Flag(help: "Print a JSON object.")
            var json = false

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await AuthStatusCommand(json: json).run(invocation)
            }
        }

        struct Token: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Print a valid access token and a newline (refreshed first when under 5 minutes remain).",
                discussion: "Nothing else goes to stdout, so `$(timbre auth token)` works in scripts.")

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await AuthTokenCommand().run(invocation)
            }
        }
    }
}
