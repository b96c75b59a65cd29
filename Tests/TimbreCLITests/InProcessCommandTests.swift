import Foundation
import SandboxCore
import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

@testable import TimbreApp

/// Commands run in-process through a buffered console (`invoke`): the parser, the command and the
/// exit-code mapping the binary uses, with no process, keyring or server — the unit tier.
@Suite struct InProcessCommandTests {
    private func withCLI(_ body: (TimbreCLI) async throws -> Void) async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        try await body(cli)
    }

    @Test func pathsFollowTheEnvironmentGivenNotTheProcesses() async throws {
        try await withCLI { cli in
            let text = await cli.invoke(["paths"])
            #expect(text.status == 0)
            #expect(text.stdout.contains("config:      \(cli.home.path)/config/timbre/config.toml\n"))
            #expect(text.stdout.contains("cache:       \(cli.home.path)/cache/timbre/library.sqlite\n"))
            #expect(text.stderr.isEmpty)
            let json = await cli.invoke(["paths", "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
            #expect(object?["log"] == "\(cli.home.path)/state/timbre/timbre.log")
        }
    }

    @Test func helpAndVersionGoToStdoutWithExitZero() async throws {
        try await withCLI { cli in
            let version = await cli.invoke(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout == TimbreVersion.current + "\n")
            let help = await cli.invoke(["sync", "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("USAGE: timbre sync"))
            // A group named alone prints its help.
            let group = await cli.invoke(["auth"])
            #expect(group.status == 0)
            #expect(group.stdout.contains("USAGE: timbre auth <subcommand>"))
        }
    }

    @Test func usageErrorsExitTwoInTimbresForm() async throws {
        try await withCLI { cli in
            let unknown = await cli.invoke(["frobnicate"])
            #expect(unknown.status == 2)
            #expect(unknown.stdout.isEmpty)
            // timbre's one error form: the sentence, then where the usage is.
            #expect(unknown.stderr == "timbre: unexpected argument 'frobnicate'\n  hint: `timbre --help` shows the usage, every option and examples\n")
            let library = await cli.invoke(["demo", "--library", "huge", "--no-interface"])
            #expect(library.status == 2)
            #expect(library.stderr.contains("'small', 'medium' or 'large'"))
            let both = await cli.invoke(["tracks", "liked", "--csv", "--json"])
            #expect(both.status == 2)
            #expect(both.stderr.contains("cannot be used together"))
        }
    }

    /// A playlist's name is checked by `LibraryChange` before sign-in is looked at: exit 2, not 4.
    @Test func namesAreCheckedBeforeAnythingElse() async throws {
        try await withCLI { cli in
            let long = String(repeating: "n", count: 1_001)
            let created = await cli.invoke(["playlist", "create", long])
            #expect(created.status == 2 && created.stderr.contains("a playlist needs a name of 1 to 1,000 characters"))
            let renamed = await cli.invoke(["playlist", "edit", "37i9dQZF1DXcBWIGoYBM5M", "--name", long])
            #expect(renamed.status == 2 && renamed.stderr.contains("at most 1,000 characters"))
            let blank = await cli.invoke(["playlist", "edit", "37i9dQZF1DXcBWIGoYBM5M", "--name", " "])
            #expect(blank.status == 2 && blank.stderr.contains("a playlist name cannot be empty"))
            let shared = await cli.invoke(["playlist", "create", "Shared", "--collaborative"])
            #expect(shared.status == 2 && shared.stderr.contains("must be private"))
            let signedOut = await cli.invoke(["playlist", "create", "Fine"])
            #expect(signedOut.status == 4, "a good name goes on to the sign-in check")
        }
    }

    /// Whatever refuses the line — the parser or timbre — the user reads one form: `timbre:` and a
    /// sentence, a hint naming what to do; exit 2; nothing on stdout.
    @Test func parserErrorsTakeTimbresForm() async throws {
        try await withCLI { cli in
            let id = "37i9dQZF1DXcBWIGoYBM5M"
            for arguments in [
                ["playlist", "add", id, "spotify:track:4uLU6hMCjMI75M1A2tKUQC", "--position", "-1"],
                ["playlist", "move", id, "--position", "2", "--to", "-1"],
            ] {
                let result = await cli.invoke(arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.hasPrefix("timbre: --") && result.stderr.contains(" -1: positions count from 1"), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("\n  hint: "))
            }
            let missing = await cli.invoke(["tracks"])
            #expect(missing.status == 2)
            #expect(missing.stderr.hasPrefix("timbre: missing expected argument '<ref>'\n  hint: "), "\(missing.stderr)")
            #expect(missing.stderr.contains("`timbre tracks --help` shows the usage, every option and examples"))
            let flag = await cli.invoke(["doctor", "--colour"])
            #expect(flag.status == 2)
            #expect(flag.stderr.hasPrefix("timbre: unknown option '--colour'"), "\(flag.stderr)")
            #expect(!flag.stderr.contains("Error:") && !flag.stderr.contains("Usage:"))
        }
    }

    @Test func theInterfaceAndTheDemoNeedATerminal() async throws {
        try await withCLI { cli in
            let root = await cli.invoke([])
            #expect(root.status == 2)
            #expect(root.stderr.contains("SUBCOMMANDS:"), "the help comes with the refusal")
            #expect(root.stderr.contains("timbre: the interface needs a terminal"))
            let demo = await cli.invoke(["demo"])
            #expect(demo.status == 2)
            #expect(demo.stderr.contains("`timbre demo` opens the interface and needs a terminal"))
            #expect(demo.stderr.contains("hint: run it in a terminal, or add --no-interface"))
        }
    }

    @Test func offlineListingsExplainAnEmptyCache() async throws {
        try await withCLI { cli in
            let playlists = await cli.invoke(["playlists", "--json"])
            #expect(playlists.status == 0)
            #expect(playlists.stdout == "[]\n")
            #expect(playlists.stderr == "timbre: warning: the cache is empty — run `timbre sync` first\n")
            let tracks = await cli.invoke(["tracks", "liked"])
            #expect(tracks.status == 1)
            #expect(tracks.stderr.hasPrefix("timbre: Liked Songs are not in the cache\n  hint: run `timbre sync`"))
            let bad = await cli.invoke(["tracks", "spotify:playlist:not-an-id\u{1B}]0;x\u{07}"])
            #expect(bad.status == 2)
            #expect(!bad.stderr.contains("\u{1B}"), "a hostile reference is shown, never run by the terminal")
            // No cache file appears: read-only commands never create one.
            #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("cache/timbre/library.sqlite").path))
        }
    }

    @Test func syncRefusesBadReferencesBeforeReadingAnything() async throws {
        try await withCLI { cli in
            // No config, no sign-in: the reference is checked first, so the answer is exit 2, not 4.
            let sync = await cli.invoke(["sync", "--playlist", "https://evil.example/playlist/x"])
            #expect(sync.status == 2)
            #expect(sync.stderr.contains("is not a playlist reference"))
        }
    }

    @Test func pinsOfAPEMFileAsTextAndJSON() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-pins-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try SandboxCertificates.loadOrCreate(in: directory)
        try await withCLI { cli in
            let text = await cli.invoke(["pins", certificates.chainFile])
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n")
            #expect(lines.count == 2 || lines.count == 3)
            #expect(lines.first?.hasPrefix("leaf") == true)
            #expect(lines.first?.contains(certificates.pins.leaf) == true)
            let json = await cli.invoke(["pins", certificates.caFile, "--json"])
            let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]]
            #expect(entries?.map { $0["pin"] } == [certificates.pins.root])
            let missing = await cli.invoke(["pins", directory + "/nope.pem"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("nope.pem"))
            let scheme = await cli.invoke(["pins", "ftp://example.com"])
            #expect(scheme.status == 2)
        }
    }
}

/// The console's policies, on their own.
@Suite struct ConsoleTests {
    @Test func colourOnlyOnATerminalWithoutNO_COLOR() {
        #expect(Console.buffered(tty: true, environment: ["TERM": "xterm-256color"]).0.colour)
        #expect(!Console.buffered(tty: false, environment: ["TERM": "xterm-256color"]).0.colour)
        #expect(!Console.buffered(tty: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]).0.colour)
        #expect(Console.buffered(tty: true, environment: ["TERM": "xterm", "NO_COLOR": ""]).0.colour, "an empty NO_COLOR is unset (no-color.org)")
        #expect(!Console.buffered(tty: true, environment: ["TERM": "dumb"]).0.colour)
        let (plain, _) = Console.buffered()
        #expect(plain.tinted("ok", .green) == "ok")
        let (coloured, _) = Console.buffered(tty: true, environment: ["TERM": "xterm"])
        #expect(coloured.tinted("ok", .green) == "\u{1B}[32mok\u{1B}[0m")
    }

    @Test func progressOnlyWhenSomeoneWatchesStderr() {
        #expect(Console.buffered(tty: true).0.showsProgress)
        #expect(!Console.buffered(tty: false).0.showsProgress)
    }

    @Test func bufferedInputReadsLinesThenTheRest() {
        let (console, _) = Console.buffered(stdin: "first\nsecond\r\nlast")
        #expect(console.input.readLine() == "first")
        #expect(console.input.readLine() == "second", "\\r\\n ends a line, as Swift.readLine has it")
        #expect(String(decoding: console.input.readAll(), as: UTF8.self) == "last")
        #expect(console.input.readLine() == nil)
    }

    @Test func errorsAreOneSentenceAndAHintWithSecretsRedacted() {
        struct Leaky: TimbreCore.UserFacingError {
            var message: String { "refused: Authorization: Bearer abc.def-ghi" }
            var hint: String? { "run `timbre login`" }
            var exitStatus: TimbreCore.ExitStatus { .authenticationRequired }
        }
        let (console, capture) = Console.buffered()
        console.report(Leaky())
        #expect(capture.stderr.contents.hasPrefix("timbre: refused: "))
        #expect(!capture.stderr.contents.contains("abc.def-ghi"))
        #expect(capture.stderr.contents.hasSuffix("\n  hint: run `timbre login`\n"))
        #expect(capture.stdout.contents.isEmpty)
    }
}

/// The formats `timbre import` reads, recognised by their headers.
@Suite struct ImportFormatTests {
    @Test func exportifyTimorTracksCSVAndURILists() throws {
        let exportify =
            "\"Track URI\",\"Track Name\",\"Artist Name(s)\",\"Album Name\",\"Track Duration (ms)\"\r\nspotify:track:4uLU6hMCjMI75M1A2tKUQC,Song,\"A,B\",Al,1000\r\n,No Uri,C,Al,61000\r\n"
        let rows = try PlaylistImport.rows(exportify)
        #expect(rows.map(\.uri) == ["spotify:track:4uLU6hMCjMI75M1A2tKUQC", nil])
        #expect(rows.map(\.artist) == ["A", "C"] && rows[1].durationMS == 61_000 && rows[1].line == 3)

        let timor = "Title,Artist,Album,Release Date,Duration,Spotify URI\nHeroes,David Bowie,Heroes,1977,6:11,\n"
        let timorRows = try PlaylistImport.rows(timor)
        #expect(timorRows == [PlaylistImport.Row(line: 2, uri: nil, title: "Heroes", artist: "David Bowie", durationMS: 371_000)])

        let tracks = "position,name,artists,album,duration_ms,added_at,uri\r\n0,\"'=cmd\",A; B,Al,5,,spotify:track:4uLU6hMCjMI75M1A2tKUQC\r\n"
        #expect(try PlaylistImport.rows(tracks).map(\.title) == ["=cmd"], "the neutralising ' is removed")

        let list = "spotify:track:4uLU6hMCjMI75M1A2tKUQC\nhttps://open.spotify.com/track/7ouMYWpwJ422jRcDASZB7P?si=x\n"
        #expect(try PlaylistImport.rows(list).map(\.uri) == ["spotify:track:4uLU6hMCjMI75M1A2tKUQC", "spotify:track:7ouMYWpwJ422jRcDASZB7P"])
        #expect(throws: InvalidInput.self) { try PlaylistImport.rows("what,is\nthis,file\n") }
        #expect(throws: InvalidInput.self) { try PlaylistImport.rows("Title,Artist\n\"never closed,x\n") }
    }
}
