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

    /// `timbre completion SHELL` prints what `--generate-completion-script SHELL` prints (what
    /// scripts/package.sh ships), bash's reading names as literal words.
    @Test(arguments: ["bash", "zsh", "fish"])
    func theCompletionCommandPrintsTheSameScript(shell: String) async throws {
        try await withCLI { cli in
            let script = await cli.invoke(["completion", shell])
            #expect(script.status == 0)
            #expect(script.stderr.isEmpty)
            #expect(script.stdout == (await cli.invoke(["--generate-completion-script", shell])).stdout)
            #expect(script.stdout.contains("__timbre_add_literal_completions") == (shell == "bash"))
            #expect(script.stdout.hasSuffix("\n"))
        }
    }

    @Test func anUnknownShellIsAUsageError() async throws {
        try await withCLI { cli in
            let script = await cli.invoke(["--generate-completion-script", "tcsh"])
            #expect(script.status == 2)
            #expect(script.stdout.isEmpty)
            #expect(script.stderr.contains("tcsh"))
            let command = await cli.invoke(["completion", "tcsh"])
            #expect(command.status == 2)
            #expect(command.stdout.isEmpty)
            #expect(command.stderr.contains("'tcsh'") && command.stderr.contains("bash, zsh or fish"), "\(command.stderr)")
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

    /// Every command (every leaf of the tree, and the root) with its path and its description,
    /// from the dump the man pages are generated from.
    private func commands(_ cli: TimbreCLI) async throws -> [(path: String, discussion: String)] {
        let dump = await cli.invoke(["--experimental-dump-help"])
        return try Self.leaves(dump.stdout)
    }

    private static func leaves(_ json: String) throws -> [(path: String, discussion: String)] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var leaves: [(String, String)] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let subcommands = (command["subcommands"] as? [[String: Any]] ?? []).filter { $0["commandName"] as? String != "help" }
            if subcommands.isEmpty || path.isEmpty { leaves.append((path.joined(separator: " "), command["discussion"] as? String ?? "")) }
            for sub in subcommands { walk(sub, path + [sub["commandName"] as? String ?? ""]) }
        }
        walk(try #require(object["command"] as? [String: Any]), [])
        return leaves
    }

    /// gh's help ends with examples; so does timbre's, for every command, and the man pages
    /// (generated from the dumped description) carry them.
    @Test func everyCommandsHelpEndsWithExamplesThatTheManPagesCarry() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let leaves = try await commands(cli)
        #expect(leaves.count > 30)
        for (path, discussion) in leaves {
            let examples = discussion.components(separatedBy: "Examples:\n").last?.split(separator: "\n") ?? []
            #expect(
                discussion.contains("Examples:\n") && examples.count >= 2 && examples.allSatisfy { $0.hasPrefix("  $ ") },
                "timbre \(path): \(discussion)")
            let help = await cli.invoke((path.isEmpty ? [] : path.split(separator: " ").map(String.init)) + ["--help"])
            #expect(help.status == 0)
            let tail = help.stdout.components(separatedBy: "\nEXAMPLES:\n").last ?? ""
            #expect(help.stdout.contains("\nEXAMPLES:\n  $ ") && !tail.contains("OPTIONS:"), "timbre \(path) --help ends with its examples")
        }
    }

    /// README's command table names every command `--help` lists.
    @Test func theReadmeTableNamesEveryCommand() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
        let table = readme.split(separator: "\n").filter { $0.hasPrefix("| `timbre") }.joined(separator: "\n")
        let paths = try await commands(cli).map(\.path).filter { !$0.isEmpty }
        for path in paths {
            // `pins show` is `timbre pins FILE|URL`; verbs of a group may share a row: `folder create\|rename\|…`.
            let words = path.split(separator: " ").map(String.init)
            let named = path == "pins show" ? "`timbre pins" : "`timbre \(path)"
            var found = table.contains(named + " ") || table.contains(named + "`")
            if !found, words.count == 2 {
                found = table.contains("`timbre \(words[0]) ") && (table.contains("\\|\(words[1])") || table.contains("\(words[1])\\|"))
            }
            #expect(found, "README's table lacks timbre \(path)")
        }
    }
}
