import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TimbreCore

@main
struct Root: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timbre",
        abstract: "Your Spotify library in the terminal: browse playlists from a local cache, sync headlessly.",
        discussion: """
            Run `timbre demo` to try it against the bundled sandbox without a Spotify account.
            Exit codes: 0 ok · 1 error · 2 usage or invalid input · 3 partial sync · \
            4 sign-in required · 5 TLS trust failure (pin mismatch, old TLS, invalid certificate).
            Files: `timbre paths`. Configuration: config.toml (see README).
            """,
        version: TimbreVersion.current,
        subcommands: [Demo.self, Doctor.self, Login.self, Logout.self, Auth.self, Sync.self, Playlists.self, Tracks.self, Pins.self, PathsCommand.self]
    )

    func run() async throws {
        // The interface needs a terminal on both ends; otherwise this is a usage error.
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Output.stderr(Root.helpMessage() + "\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        try await Interface.open(try AppContext.load())
    }

    /// Runs the command line with timbre's exit codes: usage errors exit 2 (ArgumentParser would
    /// say 64), `UserFacingError`s print their message and hint and exit with their own code.
    static func main() async {
        // A reader that goes away must end the output through EPIPE (Output.write), not kill
        // timbre with a signal mid-write.
        signal(SIGPIPE, SIG_IGN)
        // Every file timbre makes — the cache's -wal and -shm included, which SQLite creates —
        // is the user's alone.
        umask(0o077)
        let paths = Paths.resolve()
        TimbreLogging.bootstrap(paths: paths)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as any UserFacingError {
            Output.error(error)
            Foundation.exit(error.exitStatus.rawValue)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if code == .success {
                if !text.isEmpty { print(text) }
                Foundation.exit(0)
            }
            Output.stderr(text + "\n")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}

/// Data to stdout, diagnostics to stderr.
enum Output {
    static func error(_ error: any UserFacingError) {
        var text = "timbre: \(error.message)\n"
        if let hint = error.hint { text += "  hint: \(hint)\n" }
        write(Redactor.redact(text), to: STDERR_FILENO)
    }

    /// Lines of data on stdout.
    static func lines(_ lines: [String], terminator: String = "\n") {
        guard !lines.isEmpty else { return }
        write(lines.joined(separator: terminator) + terminator, to: STDOUT_FILENO)
    }

    static func warning(_ text: String) {
        write("timbre: warning: \(text)\n", to: STDERR_FILENO)
    }

    static func stdout(_ text: String) { write(text, to: STDOUT_FILENO) }
    static func stderr(_ text: String) { write(text, to: STDERR_FILENO) }

    /// Writes JSON on one line plus a newline.
    static func json(_ value: JSONValue) {
        write(value.serialized() + "\n", to: STDOUT_FILENO)
    }

    /// All of `text`, retrying short writes. A reader that went away (`timbre sync --json | head
    /// -c 0`: EPIPE, SIGPIPE being ignored) ends the output quietly; Foundation's
    /// `FileHandle.write` would stop the process with a crash report instead.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// Usage errors raised by our own validation: exit 2 with the message.
struct UsageError: UserFacingError {
    let message: String
    var hint: String? = nil
    var exitStatus: ExitStatus { .usage }
}
