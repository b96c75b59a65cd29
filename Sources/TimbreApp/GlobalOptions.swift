import Foundation
import TimbreCore
import TimbreNet

/// Options every command takes, wherever they appear on the line (`timbre --profile work sync`,
/// `timbre sync --profile work`). `Root.run` takes them out before ArgumentParser parses the rest,
/// so no subcommand has to declare them, and the environment they set is the one every path, the
/// log and the secrets are resolved from.
public enum GlobalOptions {
    /// Appended to every command's `--help`.
    public static let help = """
        GLOBAL OPTIONS:
          --profile <name>        Use the profile NAME: its own config, cache, user data, log
                                  and secrets (default: $TIMBRE_PROFILE, else "default").
        """

    /// The arguments without the global options, and the invocation they describe: `--profile`
    /// wins over `TIMBRE_PROFILE` (and `timbre demo` over both). Everything after `--` is left alone.
    public static func apply(
        _ arguments: [String], to invocation: Invocation,
        shape: @Sendable () -> CommandShape? = { nil }
    ) throws -> ([String], Invocation) {
        let (rest, environment) = try apply(arguments, environment: invocation.environment, shape: shape)
        return (rest, Invocation(console: invocation.console, environment: environment, services: invocation.services))
    }

    /// `shape` tells which options of which command take a value (asked only when `--profile`
    /// appears at all): a word that is another option's value (`--description "--profile=work"`)
    /// is that value, never a global option.
    public static func apply(
        _ arguments: [String], environment: [String: String],
        shape: @Sendable () -> CommandShape? = { nil }
    ) throws -> ([String], [String: String]) {
        let (rest, given) = try CommandShape.take(
            "--profile", from: arguments, shape: shape,
            missing: UsageError(message: "'--profile' needs a profile name", hint: "for example `timbre --profile work sync`"))
        // Given twice, the last one counts (as for any option).
        let flag = given.last
        var environment = environment
        if let flag {
            environment["TIMBRE_PROFILE"] = try ProfileName(validating: flag, source: "--profile").rawValue
        } else {
            _ = try ProfileName.from(environment: environment)
        }
        // `timbre demo` always runs in its own profile: from the first line of the log on.
        if rest.first == "demo" { environment["TIMBRE_PROFILE"] = DemoCommand.profileName }
        if ExchangeLog.directory(environment, "TIMBRE_RECORD") != nil, ExchangeLog.directory(environment, "TIMBRE_REPLAY") != nil {
            throw UsageError(
                message: "TIMBRE_RECORD and TIMBRE_REPLAY cannot be used together",
                hint: "record a session with TIMBRE_RECORD=DIR, then replay it with TIMBRE_REPLAY=DIR in another run")
        }
        // A replay folder that cannot answer anything is said at once, not as a failed request.
        if let replay = ExchangeLog.directory(environment, "TIMBRE_REPLAY") { try ReplayTransport.checkFolder(replay) }
        return (rest, environment)
    }
}

/// Which options of a command take a value, and its subcommands: enough of the command line's
/// grammar for `GlobalOptions` to tell an option from another option's value.
public struct CommandShape: Sendable, Equatable {
    /// `--description`, `-o`: the spellings of the options that take a value.
    public var valueOptions: Set<String>
    public var subcommands: [String: CommandShape]

    public init(valueOptions: Set<String> = [], subcommands: [String: CommandShape] = [:]) {
        self.valueOptions = valueOptions
        self.subcommands = subcommands
    }

    /// Takes the option `name` (`name VALUE` or `name=VALUE`, anywhere on the line) out of
    /// `arguments`: the rest, and each value given, in order. `shape` (asked only when `name`
    /// appears) tells which options take a value, so a word that is another option's value
    /// (`--description "--profile=work"`) stays that value; everything after `--` is left alone.
    /// `missing`: thrown when `name` ends the line or is followed by `--`.
    static func take(
        _ name: String, from arguments: [String], shape: @Sendable () -> CommandShape?, missing: @autoclosure () -> UsageError
    ) throws -> (rest: [String], values: [String]) {
        let options = arguments.prefix { $0 != "--" }
        guard options.contains(where: { $0 == name || $0.hasPrefix(name + "=") }) else { return (arguments, []) }
        var rest: [String] = []
        var values: [String] = []
        var node = shape()
        var positional = false
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            if let current = node, !argument.hasPrefix("-") {
                // A subcommand's name (before any positional argument) moves to its options.
                if !positional, let child = current.subcommands[argument] { node = child } else { positional = true }
            } else if let current = node, argument.hasPrefix("-"), !argument.contains("="), argument != name,
                current.valueOptions.contains(argument)
            {
                // An option that takes a value: the next word is that value, whatever it looks like.
                rest.append(argument)
                let next = arguments.index(after: index)
                if next < arguments.endIndex { rest.append(arguments[next]) }
                index = min(arguments.index(after: next), arguments.endIndex)
                continue
            }
            if argument == name {
                let next = arguments.index(after: index)
                guard next < arguments.endIndex, arguments[next] != "--" else { throw missing() }
                values.append(arguments[next])
                index = arguments.index(after: next)
                continue
            }
            if argument.hasPrefix(name + "=") {
                values.append(String(argument.dropFirst(name.count + 1)))
            } else {
                rest.append(argument)
            }
            index = arguments.index(after: index)
        }
        return (rest, values)
    }

    /// From ArgumentParser's description of the commands (`_dumpHelp()`, ToolInfo v0 JSON).
    public init?(toolInfo json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let command = object["command"] as? [String: Any]
        else { return nil }
        self.init(command: command)
    }

    init(command: [String: Any]) {
        var options = Set<String>()
        for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
            for name in argument["names"] as? [[String: Any]] ?? [] {
                guard let text = name["name"] as? String, let kind = name["kind"] as? String else { continue }
                options.insert((kind == "long" ? "--" : "-") + text)
            }
        }
        var children: [String: CommandShape] = [:]
        for child in command["subcommands"] as? [[String: Any]] ?? [] {
            let shape = CommandShape(command: child)
            for name in [child["commandName"] as? String].compactMap({ $0 }) + (child["aliases"] as? [String] ?? []) { children[name] = shape }
        }
        valueOptions = options
        subcommands = children
    }
}
