import TimbreCore

/// `timbre doctor`: one line per check (`--json`: `{"checks": [{"name", "level", "detail", "fix"}]}`);
/// exit 1 when any check fails.
public struct DoctorCommand: Sendable {
    public var online: Bool
    public var json: Bool

    public init(online: Bool, json: Bool = false) {
        self.online = online
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let console = invocation.console
        let context: AppContext
        do {
            context = try invocation.context()
        } catch let error as ConfigError {
            // Nothing else can be checked without the configuration: say what is wrong with it.
            let check = DoctorCheck(.fail, "config", "\(error.message) — fix: \(error.hint ?? "correct the file")")
            if json { console.json(Self.json([check])) } else { console.line(Self.format(check, width: 0, console: console)) }
            return .failure
        }
        let results = await Doctor(context: context).checks(online: online)
        if json {
            console.json(Self.json(results))
            return results.contains { $0.level == .fail } ? .failure : .success
        }
        let width = results.map(\.name.count).max() ?? 8
        console.lines(results.map { Self.format($0, width: width, console: console) })
        return results.contains { $0.level == .fail } ? .failure : .success
    }

    static func json(_ checks: [DoctorCheck]) -> JSONValue {
        .object([("checks", .array(checks.map(\.json)))])
    }

    /// `ok    name  text`: the level coloured on a terminal, the text made safe to show.
    static func format(_ check: DoctorCheck, width: Int, console: Console) -> String {
        let level = check.level.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0)
        let tint: Console.Tint = check.level == .ok ? .green : check.level == .warn ? .yellow : .red
        let name = check.name.padding(toLength: max(width, check.name.count), withPad: " ", startingAt: 0)
        return "\(console.tinted(level, tint))  \(name)  \(TerminalText.sanitize(check.text))"
    }
}
