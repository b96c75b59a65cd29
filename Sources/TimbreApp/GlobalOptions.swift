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
    public static func apply(_ arguments: [String], to invocation: Invocation) throws -> ([String], Invocation) {
        let (rest, environment) = try apply(arguments, environment: invocation.environment)
        return (rest, Invocation(console: invocation.console, environment: environment))
    }

    public static func apply(_ arguments: [String], environment: [String: String]) throws -> ([String], [String: String]) {
        var rest: [String] = []
        var flag: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            if argument == "--profile" {
                let next = arguments.index(after: index)
                guard next < arguments.endIndex, arguments[next] != "--" else {
                    throw UsageError(message: "'--profile' needs a profile name", hint: "for example `timbre --profile work sync`")
                }
                flag = arguments[next]
                index = arguments.index(after: next)
                continue
            }
            if argument.hasPrefix("--profile=") {
                flag = String(argument.dropFirst("--profile=".count))
            } else {
                rest.append(argument)
            }
            index = arguments.index(after: index)
        }
        var environment = environment
        if let flag {
            environment["TIMBRE_PROFILE"] = try ProfileName(validating: flag, source: "--profile").rawValue
        } else {
            _ = try ProfileName.from(environment: environment)
        }
        // `timbre demo` always runs in its own profile: from the first line of the log on.
        if rest.first == "demo" { environment["TIMBRE_PROFILE"] = DemoCommand.profileName }
        if ExchangeLog.directory(environment, "TIMBRE_RECORD") != nil, ExchangeLog.directory(environment, "TIMBRE_REPLAY") != nil {
            throw UsageError(message: "TIMBRE_RECORD and TIMBRE_REPLAY cannot be used together",
                             hint: "record a session with TIMBRE_RECORD=DIR, then replay it with TIMBRE_REPLAY=DIR in another run")
        }
        // A replay folder that cannot answer anything is said at once, not as a failed request.
        if let replay = ExchangeLog.directory(environment, "TIMBRE_REPLAY") { try ReplayTransport.checkFolder(replay) }
        return (rest, environment)
    }
}
