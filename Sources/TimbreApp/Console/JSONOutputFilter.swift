import TimbreCore
import TimbreJQ

/// `--jq EXPR`, as gh has it: with `--json`, every JSON document the command prints goes through
/// the jq expression, in process (libjq), and each result is printed on its own line — a string
/// raw, anything else as compact JSON. `Root.run` takes the option out of the arguments before
/// parsing (so every command with `--json` has it), compiles the expression before the command
/// runs (a bad one: exit 2 with jq's message, nothing done) and hands the filter down in the
/// invocation's console.
public final class JSONOutputFilter: Sendable {
    /// Appended to the `--help` of every command with `--json`, under GLOBAL OPTIONS.
    public static let help = """
          --jq <expression>       With --json: print what the jq expression makes of the
                                  output, one result a line, strings raw (gh's --jq).
        """

    let filter: JQFilter
    private let failures = Locked(0)

    init(_ filter: JQFilter) { self.filter = filter }

    /// What the expression makes of one document.
    func apply(to json: String) throws -> [String] { try filter.run(json: json) }

    /// A run of the expression failed (`.name` of an array): jq's message on stderr; the command
    /// ends with exit 2 (`exitStatus(after:)`).
    func failed(_ error: any Error, console: Console) {
        failures.withLock { $0 += 1 }
        let message = (error as? JQFilter.Failure)?.message ?? "\(error)"
        console.report(UsageError(message: "--jq: \(message)", hint: "the expression ran on this command's `--json` output; try it with `--jq .` first"))
    }

    /// The command's exit status, or 2 when it succeeded but the expression failed on its output.
    public func exitStatus(after status: Int32) -> Int32 {
        status == ExitStatus.success.rawValue && failures.current > 0 ? ExitStatus.usage.rawValue : status
    }

    /// The arguments without `--jq EXPR` (or `--jq=EXPR`), and the compiled filter when it was
    /// given. `shape` says which options take a value, so a word that is another option's value
    /// (`--description --jq`) stays that value; everything after `--` is left alone.
    public static func take(_ arguments: [String], shape: @Sendable () -> CommandShape?) throws -> ([String], JSONOutputFilter?) {
        let (rest, given) = try CommandShape.take(
            "--jq", from: arguments, shape: shape,
            missing: UsageError(message: "'--jq' needs a jq expression", hint: "for example `timbre playlists --json --jq '.[].name'`"))
        guard given.count <= 1 else { throw UsageError(message: "'--jq' is given twice", hint: "join the expressions with `|`") }
        let expression = given.first
        guard let expression else { return (rest, nil) }
        // gh's rule: `--jq` filters the `--json` output, so it needs `--json` — but `api`, whose
        // answer is JSON already (`gh api --jq`).
        guard rest.prefix(while: { $0 != "--" }).contains("--json") || rest.first == "api" else {
            throw UsageError(
                message: "'--jq' filters the JSON output: add '--json'",
                hint: "for example `timbre playlists --json --jq '.[].name'`; only commands with `--json` take `--jq`")
        }
        let compiled: JQFilter
        do {
            compiled = try JQFilter(expression)
        } catch {
            // (`error` is jq's `Failure`: the initializer's typed throw.)
            throw UsageError(
                message: "--jq: \(error.message)",
                hint: "jq's language: https://jqlang.github.io/jq/manual/v1.6/ (timbre uses libjq 1.6)")
        }
        return (rest, JSONOutputFilter(compiled))
    }
}
