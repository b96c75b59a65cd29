import ArgumentParser
import TimbreApp
import TimbreCore

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
