import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Backup: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "The whole library to one versioned JSON file: own playlists with details and entries, followed ones, folders, Liked Songs.",
            discussion: """
                Syncs first (as `timbre sync` does), then writes the cache's library, the local folders and each own \
                playlist's description (read from Spotify) to FILE, mode 0600, through a temporary file. Default FILE: \
                timbre-backup-YYYY-MM-DD.json in the current folder; - writes to stdout. An existing file (not empty) is \
                kept unless --force. The format is in docs/BACKUP.md; `timbre restore FILE` puts it back.
                """)

        @Option(name: .shortAndLong, help: "Write to this file (- for stdout).")
        var output: String?

        @Flag(help: "Replace FILE if it exists.")
        var force = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await BackupCommand(output: output, force: force).run(invocation)
        }
    }
}

extension Root {
    struct Restore: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Put a `timbre backup` file into the signed-in account: create own playlists, follow, like, folders.",
            discussion: """
                Syncs first, then creates each own playlist of the file that is not in the account (name, description, \
                privacy, collaborative) and adds its entries in order, follows the followed ones, likes the liked songs \
                (oldest first, so Liked Songs keep their order) and puts the local folders back. What the account has \
                already is skipped; an own playlist deleted since (a backup of this same account) is followed \
                back, as it was. Journaled: a restore stopped at any point (even killed) and run again finishes and \
                creates nothing twice. Local files cannot be added through Spotify's API. Exit 0 done, 3 some items \
                refused by Spotify (named), 2 a file that is not a timbre backup, damaged or from a newer timbre \
                (nothing sent).
                """)

        @Argument(help: "The file `timbre backup` wrote.", completion: .file(extensions: ["json"]))
        var file: String

        @Flag(help: "Print what would be done (counts, requests, time at Spotify's pace); send nothing.")
        var dryRun = false

        @Flag(help: "Print one JSON object (docs/CLI.md).")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await RestoreCommand(file: file, dryRun: dryRun, json: json).run(invocation)
        }
    }
}
