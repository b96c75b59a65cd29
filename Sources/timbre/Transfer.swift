import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Export: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Offline: a cached playlist as CSV in Exportify's layout (its 19 columns, in its order).",
            discussion: """
                Columns: Track URI, Track Name, Artist URI(s), Artist Name(s), Album URI, Album Name, Album Artist URI(s), \
                Album Artist Name(s), Album Release Date, Album Image URL, Disc Number, Track Number, Track Duration (ms), \
                Track Preview URL, Explicit, Popularity, ISRC, Added By, Added At. Artists are joined by ", " with a comma \
                inside a name written \\, (as Exportify does). Album Artist URI(s), Album Artist Name(s), Album Image URL, \
                Track Preview URL and Popularity stay empty (timbre does not keep them); the others fill after a sync. \
                Cells a spreadsheet would run as a formula (leading =, +, -, @, tab, CR) get a leading ' (OWASP); control \
                characters are dropped.
                """)

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID, link, or liked.", completion: .playlists)
        var ref: String

        @Option(
            name: .shortAndLong,
            help: "Write to this file instead of stdout. A file already there is replaced only after a yes on a terminal, or with --force.")
        var output: String?

        @Flag(help: "Replace the -o file if it exists, without asking (needed when timbre cannot ask: no terminal).")
        var force = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await ExportCommand(ref: ref, output: output, force: force).run(invocation)
        }
    }
}

extension Root {
    struct Import: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Add the tracks of a CSV (Exportify's, Timor's, `timbre tracks --csv`) or of URIs one a line to a playlist.",
            discussion: """
                Rows with a Spotify URI (Track URI, Spotify URI, uri) or a bare ID (Exportify's Spotify ID) are \
                taken as they are; the others are matched by one catalogue search per title and artist, accepted \
                only when the title (case, accents, "- Remastered"-style suffixes aside) and first artist are the \
                same and the duration (Track Duration (ms), Duration (ms), Duration) is within 2 seconds. Artists \
                may be separated by ";" or "," (with Exportify's \\, inside a name). At most --max-searches \
                searches are sent: more rows to search is exit 2 before any request. Unmatched rows are listed and \
                the exit code is 3. --dry-run shows the matches and writes nothing.
                """)

        @Argument(help: "The file, or - for stdin.")
        var file: String

        @Option(help: "Add to this playlist (name, ID, URI or link).", completion: .playlists)
        var into: String?

        @Option(help: "Create a playlist with this name and add to it.")
        var name: String?

        @Option(help: "Catalogue searches allowed for rows without a URI or ID.")
        var maxSearches: Int = ImportCommand.defaultMaxSearches

        @OptionGroup var options: EditOptions

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await ImportCommand(file: file, into: into, name: name, flags: EditFlags(options), maxSearches: maxSearches).run(invocation)
        }
    }
}
