import ArgumentParser
import TimbreApp
import TimbreCore

extension Root.Playlist {
    struct Log: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "The versions timbre kept of a playlist, newest first (offline).",
            discussion: """
                A version is recorded whenever a sync finds the playlist changed (source sync) or one of timbre's \
                edits changes it (source edit, with the journal's id); before its first change the state the cache \
                held is recorded as version 1 (until then the cached state is shown as version 1). Each line: \
                version, when it was seen, source, entries, and +added −removed ~moved against the version before \
                it. Kept for `history_keep` (config.toml, \
                default 1y; the newest 20 of each playlist always). REF may also be a deleted playlist's ID or name.
                """)

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link; or a deleted one's ID.", completion: .playlists)
        var ref: String

        @Flag(help: "Print a JSON array (see docs/CLI.md for the shape).")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await PlaylistLogCommand(ref: ref, json: json).run(invocation)
        }
    }

    struct Diff: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "What changed between two versions of a playlist (offline; `playlist log` numbers them).",
            discussion: """
                Without versions: from the version before the current list to the list as the cache holds it. \
                With V1: from V1 to the current list; with V1 and V2: from V1 to V2. Lines: `- #3` removed (its \
                old position), `+ #5` added (its new one), `~ #3 → #9` moved; positions count from 1. Copies of one \
                track are matched in order; of the entries that stayed, the fewest that explain the new order are \
                shown as moved.
                """)

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link; or a deleted one's ID.", completion: .playlists)
        var ref: String

        @Argument(help: "The older version (default: the one before the current list).")
        var from: Int?

        @Argument(help: "The newer version (default: the current list).")
        var to: Int?

        @Flag(help: "Print {\"added\": [{\"position\", \"uri\"}], \"removed\": […], \"moved\": [{\"uri\", \"from\", \"to\"}]}.")
        var json = false

        func validate() throws {
            if let from, from < 1 { throw ValidationError("versions count from 1 (`timbre playlist log` lists them)") }
            if let to, to < 1 { throw ValidationError("versions count from 1 (`timbre playlist log` lists them)") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await PlaylistDiffCommand(ref: ref, from: from, to: to, json: json).run(invocation)
        }
    }

    struct Restore: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Make a playlist equal to one of its versions on Spotify (`playlist log` numbers them).",
            discussion: """
                One journalled edit (`timbre undo` reverts it; an interrupted one is finished by the next command): \
                the fewest writes that give the version's entries in its order — range moves for the order, adds \
                for what was removed — so every entry that stayed keeps its date added; entries put back are dated \
                today (the summary says how many). The live playlist is checked before anything is sent. A playlist \
                no longer in your library is followed again if Spotify still has it, else created anew with that \
                version's name, description and entries (the summary says which). --dry-run prints the plan.
                """)

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID or link; or a deleted one's ID.", completion: .playlists)
        var ref: String

        @Option(help: ArgumentHelp("The version to restore (`timbre playlist log REF` lists them).", valueName: "V"))
        var to: Int

        @OptionGroup var force: ForceOption

        @OptionGroup var options: EditOptions

        func validate() throws {
            if to < 1 { throw ValidationError("versions count from 1 (`timbre playlist log` lists them)") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await RestoreVersionCommand(ref: ref, version: to, flags: EditFlags(options, force: force)).run(invocation)
        }
    }
}
