import TimbreApp
import TimbreTestSupport

@testable import timbre

extension TimbreCLI {
    /// Runs `timbre arguments` inside the test process, through a console over buffers: the
    /// binary's own parser, command and exit-code mapping (`Root.run`), without spawning it.
    /// `tty`: the console says its streams are a terminal. `run(_:)` spawns the real binary, for
    /// what only a process shows (signals, umask, the log file, a reader that leaves early).
    func invoke(_ arguments: [String], stdin: String = "", environment extra: [String: String] = [:], tty: Bool = false) async -> CLIResult {
        let environment = self.environment.merging(extra) { $1 }
        let (console, capture) = Console.buffered(stdin: stdin, tty: tty, environment: environment)
        let status = await Root.run(arguments, Invocation(console: console, environment: environment))
        return CLIResult(status: status, stdout: capture.stdout.contents, stderr: capture.stderr.contents)
    }
}
