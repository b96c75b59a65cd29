import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Sync: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Bring the local cache up to date with your Spotify library (headless; for cron and servers).",
            discussion: """
                With no selection: every playlist plus Liked Songs. Only playlists whose snapshot \
                changed are fetched again, unless --force. Exit codes: 0 ok, 3 some playlists failed \
                (the rest are stored), or the request limit was reached, or Spotify asked timbre to \
                wait past rate_limit_budget (the daily quota: the wait is kept, and no command sends \
                anything until then; `timbre quota`), 4 sign-in required, 5 TLS trust failure. Two \
                syncs never run at once: the second waits briefly, then gives up with a message.
                """)

        @Option(
            name: .customLong("playlist"), help: "Sync only this playlist (cached name, ID, spotify:playlist:ID, link, or liked). Repeatable.",
            completion: .playlists)
        var playlists: [String] = []

        @Flag(help: "Sync Liked Songs (alone, or with the --playlist selection).")
        var liked = false

        @Flag(help: "Refetch every selected playlist even if its snapshot did not change.")
        var force = false

        @Flag(help: "Print the summary as one JSON object on stdout.")
        var json = false

        @Flag(help: "Print nothing but errors.")
        var quiet = false

        @Option(help: "Stop cleanly after N requests to Spotify (exit 3; the next sync goes on from there): for cron under a small daily quota.")
        var maxRequests: Int?

        func validate() throws {
            if let maxRequests, maxRequests < 1 { throw ValidationError("'--max-requests' must be 1 or more") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await SyncCommand(playlists: playlists, liked: liked, force: force, json: json, quiet: quiet, maxRequests: maxRequests).run(invocation)
        }
    }
}
