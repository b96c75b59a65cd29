import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Demo: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Try timbre without a Spotify account: a local Spotify sandbox, signed in and synced, in the interface.",
            discussion: """
                Starts the bundled sandbox (timbre-sandbox, a Spotify-compatible server over TLS on \
                127.0.0.1), signs in to it through the real OAuth PKCE flow over the pinned TLS \
                transport using the sandbox's freshly generated certificate pins, syncs its medium \
                library (60 playlists, 6,000 items, 800 liked songs), then opens the interface. \
                Everything lives in the profile "demo" (its own config, cache and log; the sandbox \
                account's session in its credentials file, never the keyring), reset once the new \
                sandbox is up: your own login, keyring and cache are never touched. While it runs, \
                `timbre --profile demo playlists` (or any command) in another terminal works against \
                its sandbox; afterwards the demo's cache stays readable until the next demo. The \
                sandbox is timbre-sandbox beside timbre, or ../lib/timbre/timbre-sandbox as installed.
                """)

        @Option(help: "Library size: small, medium or large (500 playlists, 200,000 items).")
        var library: DemoCommand.Library = .medium

        @Flag(help: "Sign in and sync, print the summary, and exit without opening the interface.")
        var noInterface = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await DemoCommand(library: library, noInterface: noInterface).run(invocation)
        }
    }
}

extension DemoCommand.Library: ExpressibleByArgument {}
