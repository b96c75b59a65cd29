import Foundation
import TimbreCore

/// The three standard streams of one command run (gh's IOStreams): every command reads and writes
/// through it, so a test runs a command in-process against buffers and a terminal gets what a
/// terminal should (colour, progress), a pipe what a script should.
public struct Console: Sendable {
    public let input: any ConsoleInput
    public let output: any ConsoleOutput
    public let errors: any ConsoleOutput
    public let stdinIsTTY: Bool
    public let stdoutIsTTY: Bool
    public let stderrIsTTY: Bool
    /// Colour on stdout: a terminal, and neither `NO_COLOR` (https://no-color.org) nor `TERM=dumb`.
    public let colour: Bool
    /// `--jq EXPR`: what every JSON document on stdout goes through (`json(_:)`), or nil.
    public private(set) var jsonFilter: JSONOutputFilter?

    public init(
        input: any ConsoleInput, output: any ConsoleOutput, errors: any ConsoleOutput,
        stdinIsTTY: Bool, stdoutIsTTY: Bool, stderrIsTTY: Bool, environment: [String: String]
    ) {
        self.input = input
        self.output = output
        self.errors = errors
        self.stdinIsTTY = stdinIsTTY
        self.stdoutIsTTY = stdoutIsTTY
        self.stderrIsTTY = stderrIsTTY
        colour = Self.wantsColour(isTTY: stdoutIsTTY, environment: environment)
    }

    /// The process's own stdin, stdout and stderr.
    public static func standard(environment: [String: String]) -> Console {
        Console(
            input: StandardInput(), output: DescriptorOutput(descriptor: STDOUT_FILENO), errors: DescriptorOutput(descriptor: STDERR_FILENO),
            stdinIsTTY: isatty(STDIN_FILENO) == 1, stdoutIsTTY: isatty(STDOUT_FILENO) == 1, stderrIsTTY: isatty(STDERR_FILENO) == 1,
            environment: environment)
    }

    /// In-memory streams for tests: `stdin` is what the command reads; the capture holds what it wrote.
    public static func buffered(stdin: String = "", tty: Bool = false, environment: [String: String] = [:]) -> (Console, ConsoleCapture) {
        let capture = ConsoleCapture()
        let console = Console(
            input: BufferInput(stdin), output: capture.stdout, errors: capture.stderr,
            stdinIsTTY: tty, stdoutIsTTY: tty, stderrIsTTY: tty, environment: environment)
        return (console, capture)
    }

    static func wantsColour(isTTY: Bool, environment: [String: String]) -> Bool {
        guard isTTY else { return false }
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// A progress display belongs on stderr only when a person is watching it.
    public var showsProgress: Bool { stderrIsTTY }

    // MARK: Writing

    /// Data on stdout, as given.
    public func write(_ text: String) { output.write(text) }

    /// Lines of data on stdout; nothing at all for no lines.
    public func lines(_ lines: [String], terminator: String = "\n") {
        guard !lines.isEmpty else { return }
        output.write(lines.joined(separator: terminator) + terminator)
    }

    public func line(_ text: String) { output.write(text + "\n") }

    /// This console with every JSON document it prints put through `filter` (`--jq`).
    public func filteringJSON(with filter: JSONOutputFilter?) -> Console {
        var console = self
        console.jsonFilter = filter
        return console
    }

    /// One JSON document on one line; with `--jq`, what the expression makes of it, one result a line.
    public func json(_ value: JSONValue) {
        guard jsonFilter != nil else { return output.write(value.serialized() + "\n") }
        filtered(json: value.serialized())
    }

    /// `json` (text) through `--jq`: each result on its own line. A string is printed raw, so on a
    /// terminal its control bytes are made visible (tabs kept), as the server's text is everywhere
    /// else: a name cannot drive the terminal.
    func filtered(json text: String) {
        guard let jsonFilter else { return line(text) }
        do {
            let results = try jsonFilter.apply(to: text)
            guard stdoutIsTTY else { return lines(results) }
            lines(
                results.map { result in
                    result.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                        line.split(separator: "\t", omittingEmptySubsequences: false).map { TerminalText.sanitize(String($0)) }.joined(separator: "\t")
                    }.joined(separator: "\n")
                })
        } catch {
            jsonFilter.failed(error, console: self)
        }
    }

    /// Diagnostics and progress on stderr, as given.
    public func writeError(_ text: String) { errors.write(text) }

    /// A line for the person at the terminal (stderr: stdout stays data).
    public func say(_ text: String) { errors.write(text + "\n") }

    /// What starts every warning line.
    public static let warningPrefix = "timbre: warning: "

    public func warning(_ text: String) { errors.write(Self.warningPrefix + text + "\n") }

    /// The one way an error reaches the user: its sentence and what to do next, secrets redacted.
    public func report(_ error: any UserFacingError) {
        var text = "timbre: \(error.message)\n"
        if let hint = error.hint { text += "  hint: \(hint)\n" }
        errors.write(Redactor.redact(text))
    }

    public enum Tint: String, Sendable {
        case green = "32", yellow = "33", red = "31", bold = "1"
    }

    /// `text` in `tint` when stdout takes colour, else `text` unchanged.
    public func tinted(_ text: String, _ tint: Tint) -> String {
        colour ? "\u{1B}[\(tint.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Warnings as a closure, for layers that report them without knowing the console.
    public var warnings: @Sendable (String) -> Void {
        let errors = self.errors
        return { errors.write(Self.warningPrefix + $0 + "\n") }
    }
}
