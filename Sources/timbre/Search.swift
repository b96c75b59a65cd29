import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Search: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Search Spotify's catalogue; each line starts with the URI to give `playlist add` or `like`.",
            discussion:
                "QUERY takes free words and track:, artist:, album:, year: filters. Development-mode apps get 10 results a request; timbre asks page by page.")

        @Argument(help: "What to look for.")
        var query: String

        @Option(help: "track (default), album or playlist.")
        var type = "track"

        @Option(help: "At most this many results (1–50).")
        var limit = 10

        @Flag(help: "Print a JSON array (the shape of `tracks --json`, without position and added_at).")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await SearchCommand(query: query, type: type, limit: limit, json: json).run(invocation)
        }
    }
}

extension Root {
    struct Duplicates: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Offline: tracks found in more than one of the named playlists (default: every cached playlist), with their positions (from 1).")

        @Argument(help: "Playlists (names, IDs, URIs, links, or liked); none: all.", completion: .playlists)
        var refs: [String] = []

        @Flag(help: "Print a JSON array.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await DuplicatesCommand(refs: refs, json: json).run(invocation)
        }
    }
}

extension Root {
    struct Stats: Runnable {
        static let configuration = CommandConfiguration(
            abstract:
                "Offline: entries, total and average duration, distinct artists and albums, share liked, years, top artists and albums, entries per decade.")

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID, link, or liked.", completion: .playlists)
        var ref: String

        @Flag(help: "Print one JSON object.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await StatsCommand(ref: ref, json: json).run(invocation)
        }
    }
}
