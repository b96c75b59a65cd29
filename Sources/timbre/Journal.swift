import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Undo: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Revert the newest edit (removed entries go back to their positions, moved ones to their old order).",
            discussion: """
                Entries put back get a new added date: Spotify sets it. A move, shuffle or sort is undone with moves, \
                which keep every date; after a --rewrite the old dates cannot come back. Exits 6 when the playlist \
                changed since the edit, unless --force.
                """)

        @OptionGroup var force: ForceOption

        @OptionGroup var json: JSONOption

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await UndoCommand(redo: false, flags: EditFlags(json: json.json, force: force.force)).run(invocation)
        }
    }

    struct Redo: Runnable {
        static let configuration = CommandConfiguration(abstract: "Apply again the edit undone last (until a new edit is made).")

        @OptionGroup var force: ForceOption

        @OptionGroup var json: JSONOption

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await UndoCommand(redo: true, flags: EditFlags(json: json.json, force: force.force)).run(invocation)
        }
    }

    struct History: Runnable {
        static let configuration = CommandConfiguration(
            abstract:
                "The edit journal, newest first: done, undone, interrupted (finished by the next sync or edit, or dropped with --abandon) or failed (with the reason)."
        )

        @Flag(help: "Print a JSON array.")
        var json = false

        @Option(help: "At most this many edits (1–200).")
        var limit = 20

        @Option(
            name: .customLong("abandon"),
            help: ArgumentHelp(
                "End the interrupted edit ID without finishing it (nothing more of it is sent); prints what it leaves on Spotify.",
                valueName: "ID"))
        var abandon: Int64?

        @Flag(help: "Remove playlist versions older than `history_keep` (config.toml, default 1y; the newest 20 of each playlist stay); prints what went.")
        var prune = false

        func validate() throws {
            guard (1...200).contains(limit) else { throw ValidationError("--limit must be 1–200") }
            if prune && abandon != nil { throw ValidationError("'--prune' and '--abandon' cannot be used together") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            if prune { return try await VersionPruneCommand().run(invocation) }
            return try await HistoryCommand(json: json, limit: limit, abandon: abandon).run(invocation)
        }
    }
}
