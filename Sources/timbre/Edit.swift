import ArgumentParser
import TimbreApp
import TimbreCore

/// `N` or `N-M` (counting from 1, inclusive). Any whole number parses, 0 and negatives too: the
/// command says that positions count from 1 (exit 2), which a parse failure could not.
struct PositionRange: ExpressibleByArgument {
    let range: ClosedRange<Int>

    init?(argument: String) {
        if let single = Int(argument) {
            range = single...single
            return
        }
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), high >= low, high - low < 10_000 else { return nil }
        range = low...high
    }
}

/// What every edit takes.
struct EditOptions: ParsableArguments {
    @Flag(help: "Print the plan (the writes it would send); read Spotify, write nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object on stdout.")
    var json = false
}

extension Root {
    struct Playlist: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a playlist on Spotify: add, remove or move entries (journalled; `timbre undo` reverts).",
            discussion: """
                Every edit is recorded in the journal before its first request and checked against the \
                playlist as Spotify holds it. Exit codes: 6 the playlist changed on Spotify since it was \
                synced and the edit names positions (nothing written; sync, or --force), 7 the playlist \
                is not yours to change.
                """,
            subcommands: [Create.self, Edit.self, Add.self, Remove.self, Move.self, Dedupe.self, Shuffle.self, Sort.self, Copy.self, Delete.self])

        struct Copy: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Append SRC's entries to DST; DST `new:NAME` creates it first (local files are left out: the API cannot add them).")

            @Argument(help: "The source: a playlist (name, ID, URI or link), or liked.", completion: .playlists)
            var source: String

            @Argument(help: "The destination playlist (name, ID, URI or link), or new:NAME.", completion: .playlists)
            var destination: String

            @Flag(help: "Leave out entries DST has already (and repeats within SRC).")
            var dedupe = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await CopyCommand(source: source, destination: destination, dedupe: dedupe, dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        struct Dedupe: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Remove later copies of a track, keep the first; the order is otherwise unchanged.",
                discussion: """
                    Exact: the same track (a local file: the same URI). --fuzzy: also the same title (case, accents and \
                    "- Remastered 2011"-style suffixes aside) and first artist, durations within 2 seconds. Spotify \
                    removes every copy of a track, so the kept ones are put back at their positions (with a new \
                    added date). --dry-run lists each duplicate and what it repeats.
                    """)

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Flag(help: "Also count the same song under another id (remasters, re-releases) as a duplicate.")
            var fuzzy = false

            @Flag(help: "Apply even if the playlist changed on Spotify since it was synced.")
            var force = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .dedupe(fuzzy: fuzzy), force: force, dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        /// What shuffle and sort say about moves, `--rewrite` and the question.
        static let orderDiscussion = """
            Every entry keeps its "date added": the new order is made with range moves (one request per run \
            of entries out of place; at most n − 1). --rewrite makes it in ⌈n/100⌉ requests instead (the \
            first 100 replace the list, the rest follow) and every date becomes today. On a terminal, an \
            order change of more than 20 moves asks first — y: moves, r: rewrite, n: nothing is sent; --yes \
            skips the question; without a terminal timbre uses moves (config.toml `reorder = "rewrite"` makes \
            --rewrite the default). --dry-run prints both counts \
            (--json: "moves" and "rewrite_writes"). `timbre undo` restores the old order with moves; after \
            a rewrite the old dates cannot come back. A playlist with local files is always reordered by moves.
            """

        struct Shuffle: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Save a random order on Spotify: every entry and its date added stay (journalled; `timbre undo` restores the old order).",
                discussion: Playlist.orderDiscussion)

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Flag(help: "Apply even if the playlist changed on Spotify since it was synced.")
            var force = false

            @Flag(help: "Rewrite the list in ⌈n/100⌉ requests: fewer requests, but every entry's date added becomes today.")
            var rewrite = false

            @Flag(help: "Do not ask before a long order change (moves, unless --rewrite).")
            var yes = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .shuffle, force: force, dryRun: options.dryRun, json: options.json,
                                              rewrite: rewrite, yes: yes).run(invocation)
            }
        }

        struct Sort: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Save an order by title, artist, album, year, duration or added date (stable; dates added kept; journalled; `timbre undo` restores the old order).",
                discussion: Playlist.orderDiscussion)

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Option(help: "title, artist, album, year (release date), duration or added.", completion: .sortFields)
            var by: String

            @Flag(help: "Descending.")
            var reverse = false

            @Flag(help: "Apply even if the playlist changed on Spotify since it was synced.")
            var force = false

            @Flag(help: "Rewrite the list in ⌈n/100⌉ requests: fewer requests, but every entry's date added becomes today.")
            var rewrite = false

            @Flag(help: "Do not ask before a long order change (moves, unless --rewrite).")
            var yes = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .sort(by: by, reverse: reverse), force: force, dryRun: options.dryRun, json: options.json,
                                              rewrite: rewrite, yes: yes).run(invocation)
            }
        }

        struct Create: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Create a playlist; prints its id (`--json`: its `timbre playlists --json` object). `timbre undo` unfollows it.")

            @Argument(help: "The name.")
            var name: String

            @Option(help: "The description.")
            var description: String?

            @Flag(help: "Private (default: public).")
            var `private` = false

            @Flag(help: "Collaborative (needs --private).")
            var collaborative = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await CreateCommand(name: name, description: description, isPrivate: `private`, collaborative: collaborative,
                                        dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        struct Edit: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Change a playlist's name, description, visibility or collaboration (`timbre undo` puts the old values back).")

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Option(help: "The new name.")
            var name: String?

            @Option(help: "The new description.")
            var description: String?

            @Flag(exclusivity: .exclusive, help: "Public or private.")
            var visibility: Visibility?

            @Flag(exclusivity: .exclusive, help: "Collaborative or not.")
            var collaboration: Collaboration?

            enum Visibility: String, EnumerableFlag { case `public`, `private` }
            enum Collaboration: String, EnumerableFlag { case collaborative, noCollaborative }

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await DetailsCommand(ref: ref, name: name, description: description, isPublic: visibility.map { $0 == .public },
                                         collaborative: collaboration.map { $0 == .collaborative }, dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        struct Delete: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Delete playlists: unfollow them (Spotify's only delete); `timbre undo` follows them again.",
                discussion: "Asks first on a terminal; without one, needs --yes (else exit 2).")

            @Argument(help: "The playlists: names, IDs, spotify:playlist:IDs or links.", completion: .playlists)
            var refs: [String]

            @Flag(help: "Do not ask.")
            var yes = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await DeleteCommand(refs: refs, yes: yes, dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        struct Add: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Insert tracks or episodes (URIs, open.spotify.com links, or - for one a line on stdin).")

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Argument(help: "spotify:track:ID, spotify:episode:ID, a link, or - to read them from stdin.")
            var items: [String]

            @Option(parsing: .unconditional, help: "Insert so that the first item becomes entry N (counting from 1, as `timbre tracks` shows); default: the end.")
            var position: Int?

            @Flag(help: "With --position: apply even if the playlist changed on Spotify since it was synced.")
            var force = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .add(items: items, position: position), force: force,
                                              dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        struct Remove: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Remove entries: --position removes exactly those (other copies stay); --uri removes every copy.",
                discussion: """
                    Spotify can only remove every copy of a track; to remove one copy, timbre removes them \
                    all and puts the others back at their positions (the re-added copies get a new \
                    added date). Positions count from 1, as `timbre tracks REF` shows them (timbre 0.1 \
                    counted from 0).
                    """)

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Option(name: .customLong("position"), parsing: .unconditionalSingleValue, help: "N or N-M (counting from 1, inclusive). Repeatable.")
            var positions: [PositionRange] = []

            @Option(name: .customLong("uri"), help: "Remove every copy of this track. Repeatable.")
            var uris: [String] = []

            @Flag(help: "Apply even if the playlist changed on Spotify since it was synced (the same entries, found by track and occurrence).")
            var force = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .remove(positions: positions.map(\.range), uris: uris), force: force,
                                              dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }

        struct Move: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Move entries N-M so that the first ends at position P.",
                discussion: "Positions count from 1, as `timbre tracks REF` shows them (timbre 0.1 counted from 0).")

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Option(parsing: .unconditional, help: "N or N-M (counting from 1, inclusive).")
            var position: PositionRange

            @Option(parsing: .unconditional, help: "Where the first moved entry ends (counting from 1, in the result).")
            var to: Int

            @Flag(help: "Apply even if the playlist changed on Spotify since it was synced.")
            var force = false

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .move(range: position.range, to: to), force: force,
                                              dryRun: options.dryRun, json: options.json).run(invocation)
            }
        }
    }

    struct Undo: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Revert the newest edit (removed entries go back to their positions, moved ones to their old order).",
            discussion: """
                Entries put back get a new added date: Spotify sets it. A move, shuffle or sort is undone with moves, \
                which keep every date; after a --rewrite the old dates cannot come back. Exits 6 when the playlist \
                changed since the edit, unless --force.
                """)

        @Flag(help: "The playlist changed since: revert the same entries, found by track and occurrence.")
        var force = false

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await UndoCommand(redo: false, force: force, json: json).run(invocation)
        }
    }

    struct Redo: Runnable {
        static let configuration = CommandConfiguration(abstract: "Apply again the edit undone last (until a new edit is made).")

        @Flag(help: "The playlist changed since: apply it to the same entries, found by track and occurrence.")
        var force = false

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await UndoCommand(redo: true, force: force, json: json).run(invocation)
        }
    }

    struct History: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "The edit journal, newest first: done, undone, interrupted (finished by the next sync or edit, or dropped with --abandon) or failed (with the reason).")

        @Flag(help: "Print a JSON array.")
        var json = false

        @Option(help: "At most this many edits (1–200).")
        var limit = 20

        @Option(name: .customLong("abandon"), help: ArgumentHelp(
            "End the interrupted edit ID without finishing it (nothing more of it is sent); prints what it leaves on Spotify.",
            valueName: "ID"))
        var abandon: Int64?

        func validate() throws {
            guard (1...200).contains(limit) else { throw ValidationError("--limit must be 1–200") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await HistoryCommand(json: json, limit: limit, abandon: abandon).run(invocation)
        }
    }
}

extension Root {
    struct API: Runnable {
        static let configuration = CommandConfiguration(
            commandName: "api",
            abstract: "Call the Spotify Web API directly, through the pinned, signed-in transport (like `gh api`).",
            discussion: """
                PATH is relative to api_url (`me/playlists?limit=5`) and must stay below it (`../x` is refused, nothing sent). \
                The answer's JSON goes to stdout as Spotify sent it (on a terminal with control bytes made \
                visible, unless --raw); with --paginate every page follows on its own line. A write (-X POST, PUT, \
                DELETE) is sent once: timbre never resends one whose answer was lost. Raw calls are not \
                journalled and `timbre undo` does not revert them.
                """)

        @Option(name: .customShort("X"), help: "GET (default; POST with --input), POST, PUT or DELETE.")
        var method: String?

        @Argument(help: "The path, e.g. me/playlists?limit=5.")
        var path: String

        @Option(help: "A JSON request body: a file, or - for stdin.")
        var input: String?

        @Flag(help: "Follow `next` links: every page, one per line.")
        var paginate = false

        @Flag(help: "Print bodies byte for byte on a terminal too (by default a terminal gets control bytes made visible).")
        var raw = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await APICommand(method: method, path: path, input: input, paginate: paginate, raw: raw).run(invocation)
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
            try await LikeCommand(items: items, like: true, dryRun: options.dryRun, json: options.json).run(invocation)
        }
    }

    struct Unlike: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Remove tracks or episodes from Liked Songs (journalled; `timbre undo` likes them again, at the top).")

        @Argument(help: "spotify:track:ID, spotify:episode:ID, a link, or - to read them from stdin.")
        var items: [String]

        @OptionGroup var options: EditOptions

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await LikeCommand(items: items, like: false, dryRun: options.dryRun, json: options.json).run(invocation)
        }
    }
}

extension Root {
    struct Search: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Search Spotify's catalogue; each line starts with the URI to give `playlist add` or `like`.",
            discussion: "QUERY takes free words and track:, artist:, album:, year: filters. Development-mode apps get 10 results a request; timbre asks page by page.")

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
            abstract: "Offline: entries, total and average duration, distinct artists and albums, share liked, years, top artists and albums, entries per decade.")

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID, link, or liked.", completion: .playlists)
        var ref: String

        @Flag(help: "Print one JSON object.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await StatsCommand(ref: ref, json: json).run(invocation)
        }
    }

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

        @Option(name: .shortAndLong, help: "Write to this file instead of stdout.")
        var output: String?

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await ExportCommand(ref: ref, output: output).run(invocation)
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
            try await ImportCommand(file: file, into: into, name: name, dryRun: options.dryRun, json: options.json,
                                    maxSearches: maxSearches).run(invocation)
        }
    }
}

extension Root {
    struct Folder: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Local folders of playlists (Timor's): kept on this machine; Spotify has no folders.",
            subcommands: [Create.self, Rename.self, Delete.self, Add.self, Remove.self, List.self])

        struct Create: Runnable {
            static let configuration = CommandConfiguration(abstract: "Create a folder.")
            @Argument(help: "The name.") var name: String
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .create(name)).run(invocation) }
        }

        struct Rename: Runnable {
            static let configuration = CommandConfiguration(abstract: "Rename a folder.")
            @Argument(help: "The folder.", completion: .folders) var name: String
            @Argument(help: "Its new name.") var new: String
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .rename(name, to: new)).run(invocation) }
        }

        struct Delete: Runnable {
            static let configuration = CommandConfiguration(abstract: "Delete a folder (its playlists stay in your library).")
            @Argument(help: "The folder.", completion: .folders) var name: String
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .delete(name)).run(invocation) }
        }

        struct Add: Runnable {
            static let configuration = CommandConfiguration(abstract: "Put playlists in a folder (out of any other).")
            @Argument(help: "The folder.", completion: .folders) var name: String
            @Argument(help: "Playlists: names, IDs, URIs or links.", completion: .playlists) var refs: [String]
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .add(name, refs: refs)).run(invocation) }
        }

        struct Remove: Runnable {
            static let configuration = CommandConfiguration(abstract: "Take playlists out of a folder.")
            @Argument(help: "The folder.", completion: .folders) var name: String
            @Argument(help: "Playlists: names, IDs, URIs or links.", completion: .playlists) var refs: [String]
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .remove(name, refs: refs)).run(invocation) }
        }

        struct List: Runnable {
            static let configuration = CommandConfiguration(abstract: "The folders and their playlists.")
            @Flag(help: "Print a JSON array.") var json = false
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .list(json: json)).run(invocation) }
        }
    }
}
