import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Playlists: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "List the cached playlists (offline: reads the cache, sends no request).",
            discussion: "Liked Songs first, then your playlists in Spotify's order. Run `timbre sync` to fill the cache.")

        @Flag(help: "Print a JSON array (see README for the shape).")
        var json = false

        @Flag(help: "List the playlists no longer in your library (id, entries, when, last version, name), from the playlist versions.")
        var deleted = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            if deleted { return try await DeletedPlaylistsCommand(json: json).run(invocation) }
            return try await PlaylistsCommand(json: json).run(invocation)
        }
    }

    struct Tracks: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "List a cached playlist's items (offline).",
            discussion: """
                REF is a cached playlist's name (any case) or the start of one that fits only it, its ID \
                (22 letters and digits), spotify:playlist:ID, https://open.spotify.com/playlist/ID, or `liked` \
                for Liked Songs; a prefix that fits several playlists lists them (exit 2). Items whose track \
                Spotify returns as null are left out, so positions may have gaps. Positions count from 1 \
                (text, --csv and --json alike: what `--position` takes); timbre 0.1 counted from 0.
                """)

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID, open.spotify.com link, or liked.", completion: .playlists)
        var ref: String

        @Flag(help: "Print a JSON array.")
        var json = false

        @Flag(help: "Print CSV (RFC 4180): position,name,artists,album,duration_ms,added_at,uri.")
        var csv = false

        func validate() throws {
            if json && csv { throw ValidationError("'--csv' and '--json' cannot be used together") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await TracksCommand(ref: ref, format: json ? .json : csv ? .csv : .text).run(invocation)
        }
    }
}

extension Root {
    struct Like: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Add tracks or episodes to Liked Songs (journalled; `timbre undo` reverts).",
            discussion: "Only items not liked yet are sent, 40 a request.")

        @Argument(help: "spotify:track:ID, spotify:episode:ID, a link, or - to read them from stdin.")
        var items: [String]

        @OptionGroup var options: EditOptions

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await LikeCommand(items: items, like: true, flags: EditFlags(options)).run(invocation)
        }
    }

    struct Unlike: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Remove tracks or episodes from Liked Songs (journalled; `timbre undo` likes them again, at the top).")

        @Argument(help: "spotify:track:ID, spotify:episode:ID, a link, or - to read them from stdin.")
        var items: [String]

        @OptionGroup var options: EditOptions

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await LikeCommand(items: items, like: false, flags: EditFlags(options)).run(invocation)
        }
    }
}
