import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

/// What scripts/package.sh asks of the binary: the completion scripts and the command description
/// the man pages are generated from, on stdout with exit 0, through the same `Root.run` as every
/// other command.
@Suite struct PackagingCLITests {
    private func withCLI(_ body: (TimbreCLI) async throws -> Void) async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        try await body(cli)
    }

    @Test(arguments: [
        ("bash", "complete -o filenames -F _timbre timbre"),
        ("zsh", "#compdef timbre"),
        ("fish", "complete -c 'timbre'"),
    ])
    func completionScriptsGoToStdoutWithExitZero(shell: String, marker: String) async throws {
        try await withCLI { cli in
            let script = await cli.invoke(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stderr.isEmpty)
            #expect(script.stdout.contains(marker))
            // Subcommands and their options are completed, not only the root's.
            #expect(script.stdout.contains("playlists"))
            #expect(script.stdout.contains("--playlist"))
        }
    }

    @Test func anUnknownShellIsAUsageError() async throws {
        try await withCLI { cli in
            let script = await cli.invoke(["--generate-completion-script", "tcsh"])
            #expect(script.status == 2)
            #expect(script.stdout.isEmpty)
            #expect(script.stderr.contains("tcsh"))
        }
    }

    @Test func theDumpedHelpDescribesEveryCommand() async throws {
        try await withCLI { cli in
            let dump = await cli.invoke(["--experimental-dump-help"])
            #expect(dump.status == 0)
            #expect(dump.stderr.isEmpty)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
            #expect(object["serializationVersion"] as? Int == 0)
            let command = try #require(object["command"] as? [String: Any])
            #expect(command["commandName"] as? String == "timbre")
            let subcommands = (command["subcommands"] as? [[String: Any]] ?? []).compactMap { $0["commandName"] as? String }
            #expect(subcommands.contains("sync"))
            #expect(subcommands.contains("playlist"))
            #expect(subcommands.contains("doctor"))
            let sync = try #require((command["subcommands"] as? [[String: Any]])?.first { $0["commandName"] as? String == "sync" })
            #expect((sync["abstract"] as? String)?.isEmpty == false, "a man page needs each command's abstract")
        }
    }
}
