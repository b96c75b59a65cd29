import Foundation
import Testing
import TimbreTestSupport

/// `--profile NAME` and `TIMBRE_PROFILE`, in-process without a server: which paths a command
/// gets, which wins, what a bad name does, and where the option is documented.
@Suite struct ProfileOptionTests {
    private func paths(_ result: CLIResult) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]) ?? [:]
    }

    @Test func theFlagWinsOverTheVariableWhereverItStands() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let home = cli.home.path
        let byVariable = await cli.invoke(["paths", "--json"], environment: ["TIMBRE_PROFILE": "from-env"])
        #expect(byVariable.status == 0, "\(byVariable.stderr)")
        #expect(
            paths(byVariable) == [
                "config": "\(home)/config/timbre/profiles/from-env/config.toml", "cache": "\(home)/cache/timbre/profiles/from-env/library.sqlite",
                "log": "\(home)/state/timbre/profiles/from-env/timbre.log", "credentials": "\(home)/config/timbre/profiles/from-env/credentials.json",
                "data": "\(home)/data/timbre/profiles/from-env/timbre.sqlite", "journal": "\(home)/data/timbre/profiles/from-env/timbre.sqlite",
                "trust": "\(home)/state/timbre/profiles/from-env/trust.jsonl", "remote_pins": "\(home)/data/timbre/profiles/from-env/remote-pins.json",
            ])
        for arguments in [
            ["--profile", "from-flag", "paths", "--json"], ["paths", "--json", "--profile", "from-flag"], ["paths", "--profile=from-flag", "--json"],
        ] {
            let result = await cli.invoke(arguments, environment: ["TIMBRE_PROFILE": "from-env"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(paths(result)["cache"] == "\(home)/cache/timbre/profiles/from-flag/library.sqlite", "\(arguments)")
        }
        // `--profile default` is today's layout, whatever the variable says.
        let explicitDefault = await cli.invoke(["--profile", "default", "paths", "--json"], environment: ["TIMBRE_PROFILE": "from-env"])
        #expect(paths(explicitDefault)["config"] == "\(home)/config/timbre/config.toml")
        let text = await cli.invoke(["paths", "--profile", "work"])
        #expect(text.stdout.hasPrefix("profile:     work\nconfig:      \(home)/config/timbre/profiles/work/config.toml\n"))
    }

    @Test func aBadNameExitsTwoWithASentenceAndTouchesNothing() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        for (arguments, variable, source, name) in [
            (["--profile", "../etc", "paths"], nil, "--profile", "../etc"),
            (["sync", "--profile=a b"], nil, "--profile", "a b"),
            (["paths", "--profile", String(repeating: "x", count: 65)], nil, "--profile", String(repeating: "x", count: 65)),
            (["paths"], "wörk", "TIMBRE_PROFILE", "wörk"),
        ] as [([String], String?, String, String)] {
            let result = await cli.invoke(arguments, environment: variable.map { ["TIMBRE_PROFILE": $0] } ?? [:])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("\(source) \"\(name)\" is not a profile name: use 1 to 64 letters, digits, '-' or '_'"), "\(result.stderr)")
        }
        let missing = await cli.invoke(["paths", "--profile"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("'--profile' needs a profile name"))
        // A good flag does not excuse a bad variable it overrides? It does: the flag is what is used.
        #expect(await cli.invoke(["paths", "--profile", "ok"], environment: ["TIMBRE_PROFILE": "../bad"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("data").path))
    }

    @Test func everyCommandsHelpNamesTheGlobalOption() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        for arguments in [["--help"], ["sync", "--help"], ["help", "playlist", "add"], ["auth"], ["logout", "-h"]] {
            let help = await cli.invoke(arguments)
            #expect(help.status == 0, "\(arguments)")
            #expect(help.stdout.contains("GLOBAL OPTIONS:\n  --profile <name>"), "\(arguments): \(help.stdout)")
        }
        #expect(await cli.invoke(["--help"]).stdout.contains("--profile NAME (or TIMBRE_PROFILE=NAME)"))
        #expect(!(await cli.invoke(["--version"]).stdout.contains("GLOBAL")))
    }

    @Test func recordAndReplayTogetherIsAUsageError() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let result = await cli.invoke(["sync"], environment: ["TIMBRE_RECORD": "/tmp/a", "TIMBRE_REPLAY": "/tmp/b"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("TIMBRE_RECORD and TIMBRE_REPLAY cannot be used together"))
        // A replay folder that is not there, or holds no exchange, is refused before anything runs.
        let missing = cli.home.appendingPathComponent("no-such-recording").path
        let gone = await cli.invoke(["sync"], environment: ["TIMBRE_REPLAY": missing])
        #expect(gone.status == 1)
        #expect(gone.stderr.hasPrefix("timbre: cannot read the recording in \(missing): no such folder\n"), "\(gone.stderr)")
        let empty = await cli.invoke(["sync"], environment: ["TIMBRE_REPLAY": cli.home.appendingPathComponent("cache").path])
        #expect(empty.status == 1)
        #expect(empty.stderr.hasPrefix("timbre: TIMBRE_REPLAY names \(cli.home.path)/cache, which holds no recorded exchange\n"), "\(empty.stderr)")
    }
}
