import ArgumentParser
import Foundation
import TimbreApp
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

/// A subcommand: its options parsed by ArgumentParser, its work one call into TimbreApp.
protocol Runnable: ParsableCommand {
    func run(_ invocation: Invocation) async throws -> ExitStatus
}

@main
struct Root: Runnable {
    static let configuration = CommandConfiguration(
        commandName: "timbre",
        abstract: "Your Spotify library in the terminal: browse and manage playlists from a local cache, sync headlessly.",
        discussion: """
            Run `timbre` alone for the interface (`?` lists its keys: marks, d, y/p, J/K, u, a, i and the : verbs).
            Run `timbre demo` to try it against the bundled sandbox without a Spotify account.
            Exit codes: 0 ok · 1 error · 2 usage or invalid input · 3 partial sync · \
            4 sign-in required · 5 TLS trust failure (pin mismatch, old TLS, invalid certificate) · \
            6 edit conflict (the playlist changed on Spotify) · 7 not permitted (not your playlist).
            Files: `timbre paths`. Configuration: config.toml (see README).
            Global option, on every command: --profile NAME (or TIMBRE_PROFILE=NAME) — a separate \
            config, cache, user data, log and set of secrets; default "default".
            """,
        version: TimbreVersion.current,
        subcommands: [
            Demo.self, Doctor.self, Login.self, Logout.self, Auth.self, Sync.self, Playlists.self, Tracks.self, Playlist.self,
            Folder.self, Stats.self, Export.self, Import.self, Duplicates.self, Search.self, Like.self, Unlike.self, Undo.self, Redo.self, History.self,
            API.self, Pins.self, PathsCommand.self, Backup.self, Restore.self, Completion.self, Quota.self,
            Play.self, Pause.self, Next.self, Prev.self, Seek.self, Volume.self, Shuffle.self, Repeat.self, Queue.self,
            Devices.self, Transfer.self, Now.self, Recent.self, MPRIS.self,
        ]
    )

    func run(_ invocation: Invocation) async throws -> ExitStatus {
        try await InterfaceCommand().run(invocation)
    }

    static func main() async {
        // A reader that goes away ends the output through EPIPE (see the console's streams), not
        // by killing timbre with a signal mid-write.
        signal(SIGPIPE, SIG_IGN)
        // Every file timbre makes — the cache's -wal and -shm included, which SQLite creates —
        // is the user's alone.
        umask(0o077)
        // The process's environment is read here, once; everything below gets it from the invocation.
        let environment = ProcessInfo.processInfo.environment
        let started = Invocation(console: .standard(environment: environment), environment: environment)
        // The global options, applied once: the log of the profile they name, then the run. A bad
        // name gets no log: `run` refuses it before anything could write one.
        let applied = Result { try GlobalOptions.apply(Array(CommandLine.arguments.dropFirst()), to: started, shape: shape) }
        var logRefusal: UnsafeFileError?
        if case .success((_, let profiled)) = applied {
            logRefusal = TimbreLogging.bootstrap(paths: profiled.paths, environment: profiled.environment)
        }
        Foundation.exit(await run(applied: applied, console: started.console, logRefusal: logRefusal))
    }

    /// Parses `arguments`, runs the command, and turns every way it can end into an exit code —
    /// the one place that does. Usage errors exit 2 with ArgumentParser's help text; a
    /// `UserFacingError` prints its sentence and hint and exits with its own code.
    static func run(_ given: [String], _ started: Invocation) async -> Int32 {
        await run(applied: Result { try GlobalOptions.apply(given, to: started, shape: shape) }, console: started.console)
    }

    /// `applied`: the arguments without the global options (`--profile`) and the invocation they
    /// describe — every path, the log and the secrets follow them —, or why they were refused.
    /// `logRefusal`: why timbre.log is refused (a link, another user's file): every command stops
    /// with it (exit 1), except `--help`, `--version` and `doctor`, which reports it as a failed check.
    private static func run(
        applied: Result<([String], Invocation), any Error>, console: Console, logRefusal: UnsafeFileError? = nil
    ) async -> Int32 {
        let arguments: [String], invocation: Invocation
        var replay: ReplayState?
        var jsonFilter: JSONOutputFilter?
        defer { replay?.discard() }
        do {
            let (given, profiled) = try applied.get()
            // `--jq EXPR`, on every command with `--json`: compiled before anything runs.
            (arguments, jsonFilter) = try JSONOutputFilter.take(given, shape: shape)
            invocation = Invocation(
                console: profiled.console.filteringJSON(with: jsonFilter), environment: profiled.environment, services: profiled.services)
            // A replay works on a throwaway copy of the profile's state (README "Reporting a bug").
            if let (replayed, state) = try ReplayState.prepare(invocation) {
                replay = state
                let status = await run(parsing: arguments, replayed, logRefusal: logRefusal)
                return jsonFilter?.exitStatus(after: status) ?? status
            }
        } catch let error as any UserFacingError {
            console.report(error)
            return error.exitStatus.rawValue
        } catch {
            console.writeError(Redactor.redact("timbre: \(error)\n"))
            return ExitStatus.usage.rawValue
        }
        let status = await run(parsing: arguments, invocation, logRefusal: logRefusal)
        return jsonFilter?.exitStatus(after: status) ?? status
    }

    /// Which options take a value, from the parser's own description of every command: so
    /// `--profile` is only taken where an option can stand.
    @Sendable static func shape() -> CommandShape? { CommandShape(toolInfo: _dumpHelp()) }

    private static func run(parsing arguments: [String], _ invocation: Invocation, logRefusal: UnsafeFileError? = nil) async -> Int32 {
        let console = invocation.console
        // ArgumentParser's own `--generate-completion-script SHELL` prints timbre's scripts too.
        if let shell = Self.generatedCompletion(arguments) {
            console.write(CompletionScripts.script(for: shell))
            return ExitStatus.success.rawValue
        }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            return parseFailure(error, console, arguments: arguments)
        }
        guard let runnable = command as? any Runnable else {
            // `--help`, `help sync`, a group named alone (`timbre auth`): the parser's own commands,
            // which end by asking for the help text.
            do {
                var command = command
                try command.run()
                return ExitStatus.success.rawValue
            } catch {
                return parseFailure(error, console)
            }
        }
        if let logRefusal, !(runnable is Doctor) {
            // A link (or another user's file) where timbre.log goes: refused with the fix, exit 1.
            console.report(logRefusal)
            return logRefusal.exitStatus.rawValue
        }
        do {
            return try await RequestUse.running(command: type(of: runnable)._commandName) { try await runnable.run(invocation) }.rawValue
        } catch let error as UsageError where error.showsHelp {
            console.writeError(withGlobalOptions(helpMessage(for: type(of: command))) + "\n")
            console.report(error)
            return error.exitStatus.rawValue
        } catch let error as any UserFacingError {
            let shown = DemoCommand.explained(error, environment: invocation.environment)
            console.report(shown)
            return shown.exitStatus.rawValue
        } catch {
            console.writeError(Redactor.redact("timbre: \(error)\n"))
            return ExitStatus.failure.rawValue
        }
    }

    /// The shell `--generate-completion-script SHELL` (or `=SHELL`) asks for, when that is the
    /// whole command line and a shell timbre has a script for.
    static func generatedCompletion(_ arguments: [String]) -> CompletingShell? {
        let option = "--generate-completion-script"
        switch arguments.count {
        case 2 where arguments[0] == option: return CompletingShell(rawValue: arguments[1])
        case 1 where arguments[0].hasPrefix(option + "="): return CompletingShell(rawValue: String(arguments[0].dropFirst(option.count + 1)))
        default: return nil
        }
    }

    /// `--help` and `--version` exit 0 with their text on stdout; everything else ArgumentParser
    /// refuses is a usage error in timbre's one form (`Console.report`): exit 2, the sentence, and
    /// a hint that names the command's `--help`, where its usage and examples are.
    private static func parseFailure(_ error: any Error, _ console: Console, arguments: [String] = []) -> Int32 {
        if exitCode(for: error) == .success {
            let message = fullMessage(for: error)
            // The description the man pages are generated from carries the examples too.
            let text = message.hasPrefix("{") ? Examples.addingToDump(message) : withGlobalOptions(message)
            if !text.isEmpty { console.line(text) }
            return ExitStatus.success.rawValue
        }
        console.report(usageError(for: error, arguments: arguments))
        return ExitStatus.usage.rawValue
    }

    /// What ArgumentParser refused, as timbre says it: its message as a sentence, the option's own
    /// help and the command's `--help` as the hint.
    static func usageError(for error: any Error, arguments: [String]) -> UsageError {
        // A negative position reads as an option to the parser ("Missing value"): say what is wrong.
        for (index, argument) in arguments.enumerated()
        where ["--position", "--to"].contains(argument) || argument.hasPrefix("--position=") || argument.hasPrefix("--to=") {
            let value =
                argument.contains("=")
                ? String(argument.drop { $0 != "=" }.dropFirst())
                : arguments.indices.contains(index + 1) ? arguments[index + 1] : ""
            if value.hasPrefix("-"), let number = Int(value.split(separator: "-").first.map(String.init) ?? ""), number >= 0 {
                let option = argument.split(separator: "=").first.map(String.init) ?? argument
                return UsageError(
                    message: "positions count from 1: '\(option) \(TerminalText.preview(value, limit: 20))' names none",
                    hint: "`timbre tracks REF` shows each entry's position")
            }
        }
        let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var message = Self.message(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
        if message.isEmpty { message = "that is not a timbre command line" }
        message = message.prefix(1).lowercased() + message.dropFirst()
        // "  See 'timbre playlist add --help' for more information."
        let command =
            lines.lazy.compactMap { line -> String? in
                guard let start = line.range(of: "See '"), let end = line.range(of: "' for more", range: start.upperBound..<line.endIndex) else { return nil }
                return String(line[start.upperBound..<end.lowerBound])
            }.first ?? "timbre --help"
        var hint = "`\(command)` shows the usage, every option and examples"
        if let help = lines.first(where: { $0.hasPrefix("Help:") }) {
            hint = help.dropFirst("Help:".count).trimmingCharacters(in: .whitespaces) + "; " + hint
        }
        return UsageError(message: message, hint: hint)
    }

    /// A command's help, with the options `Root.run` handles for every command, and its examples last.
    private static func withGlobalOptions(_ text: String) -> String {
        guard text.hasPrefix("OVERVIEW:") || text.hasPrefix("USAGE:") else { return text }
        let examples = Examples.path(ofHelp: text).flatMap(Examples.section(for:)).map { "\n\n" + $0 } ?? ""
        // `--jq`, which `Root.run` takes for every command with `--json`, beside `--profile`.
        let jq = text.contains("--json") || text.contains("USAGE: timbre api ") ? "\n" + JSONOutputFilter.help : ""
        return text.trimmingCharacters(in: .newlines) + "\n\n" + GlobalOptions.help + jq + examples
    }
}
