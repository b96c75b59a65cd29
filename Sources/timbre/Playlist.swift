import ArgumentParser
import TimbreApp
import TimbreCore

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
            subcommands: [
                Create.self, Edit.self, Add.self, Remove.self, Move.self, Dedupe.self, Shuffle.self, Sort.self, Copy.self, Delete.self,
                Log.self, Diff.self, Restore.self,
            ])

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
                try await CopyCommand(source: source, destination: destination, dedupe: dedupe, flags: EditFlags(options)).run(invocation)
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

            @OptionGroup var force: ForceOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .dedupe(fuzzy: fuzzy), flags: EditFlags(options, force: force)).run(invocation)
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
            a rewrite the old dates cannot come back. A playlist with local files is always reordered by moves. \
            Ctrl-C while the moves are sent stops them after the one under way (exit 3): every entry is there \
            with its date, in the order the moves made so far left, and `timbre undo` puts the old order back; \
            a rewrite cannot stop part-way and finishes.
            """

        struct Shuffle: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Save a random order on Spotify: every entry and its date added stay (journalled; `timbre undo` restores the old order).",
                discussion: Playlist.orderDiscussion)

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @OptionGroup var force: ForceOption

            @OptionGroup var order: OrderOptions

            @OptionGroup var yes: YesOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .shuffle, flags: EditFlags(options, force: force, order: order, yes: yes)).run(invocation)
            }
        }

        struct Sort: Runnable {
            static let configuration = CommandConfiguration(
                abstract:
                    "Save an order by title, artist, album, year, duration or added date (stable; dates added kept; journalled; `timbre undo` restores the old order).",
                discussion: Playlist.orderDiscussion)

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Option(help: "title, artist, album, year (release date), duration or added.", completion: .sortFields)
            var by: String

            @Flag(help: "Descending.")
            var reverse = false

            @OptionGroup var force: ForceOption

            @OptionGroup var order: OrderOptions

            @OptionGroup var yes: YesOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(
                    ref: ref, action: .sort(by: by, reverse: reverse), flags: EditFlags(options, force: force, order: order, yes: yes)
                ).run(invocation)
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
                try await CreateCommand(
                    name: name, description: description, isPrivate: `private`, collaborative: collaborative,
                    flags: EditFlags(options)
                ).run(invocation)
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
                try await DetailsCommand(
                    ref: ref, name: name, description: description, isPublic: visibility.map { $0 == .public },
                    collaborative: collaboration.map { $0 == .collaborative }, flags: EditFlags(options)
                ).run(invocation)
            }
        }

        struct Delete: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Delete playlists: unfollow them (Spotify's only delete); `timbre undo` follows them again.",
                discussion: "Asks first on a terminal; without one, needs --yes (else exit 2).")

            @Argument(help: "The playlists: names, IDs, spotify:playlist:IDs or links.", completion: .playlists)
            var refs: [String]

            @OptionGroup var yes: YesOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await DeleteCommand(refs: refs, flags: EditFlags(options, yes: yes)).run(invocation)
            }
        }

        struct Add: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Insert tracks or episodes (URIs, open.spotify.com links, or - for one a line on stdin).")

            @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link.", completion: .playlists)
            var ref: String

            @Argument(help: "spotify:track:ID, spotify:episode:ID, a link, or - to read them from stdin.")
            var items: [String]

            @Option(
                parsing: .unconditional, help: "Insert so that the first item becomes entry N (counting from 1, as `timbre tracks` shows); default: the end.")
            var position: Int?

            @OptionGroup var force: ForceOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .add(items: items, position: position), flags: EditFlags(options, force: force)).run(invocation)
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

            @OptionGroup var force: ForceOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .remove(positions: positions.map(\.range), uris: uris), flags: EditFlags(options, force: force))
                    .run(invocation)
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

            @OptionGroup var force: ForceOption

            @OptionGroup var options: EditOptions

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PlaylistEditCommand(ref: ref, action: .move(range: position.range, to: to), flags: EditFlags(options, force: force)).run(invocation)
            }
        }
    }
}
