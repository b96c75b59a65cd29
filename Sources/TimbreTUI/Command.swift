import TimbreCore

/// Everything the TUI can do, as one vocabulary (ncspot's model): keys map to commands, the `:`
/// prompt parses commands, and `[keys]` in config.toml binds keys to command text. Every command
/// prints back to text that parses to itself.
public enum Command: Equatable, Sendable, CustomStringConvertible {
    public enum Motion: String, Sendable, CaseIterable { case up, down, top, bottom, pageup, pagedown }
    public enum Focus: String, Sendable, CaseIterable { case next, previous, playlists, tracks }
    public enum SortField: String, Sendable, CaseIterable { case position, title, artist, album, duration, added }
    public enum SortOrder: String, Sendable, CaseIterable { case asc, desc }
    public enum SortChange: Equatable, Sendable {
        case set(SortField, SortOrder?)
        case nextField
        case reverse
    }

    case move(Motion, count: Int)
    case focus(Focus)
    case open
    /// Starts the incremental filter (nil) or sets it.
    case filter(String?)
    case nextMatch
    case previousMatch
    /// Esc: clears the filter, closes an overlay.
    case clear
    case sort(SortChange)
    /// Search across every cached playlist: prompt (nil) or run with text.
    case search(String?)
    case sync
    case help
    /// The list of warnings and errors background work reported.
    case messages
    case redraw
    case prompt
    case quit

    public var description: String {
        switch self {
        case .move(let motion, let count): return count == 1 ? "move \(motion.rawValue)" : "move \(motion.rawValue) \(count)"
        case .focus(let focus): return "focus \(focus.rawValue)"
        case .open: return "open"
        case .filter(let text): return text.map { "filter \($0)" } ?? "filter"
        case .nextMatch: return "next-match"
        case .previousMatch: return "previous-match"
        case .clear: return "clear"
        case .sort(.set(let field, let order)): return order.map { "sort \(field.rawValue) \($0.rawValue)" } ?? "sort \(field.rawValue)"
        case .sort(.nextField): return "sort next"
        case .sort(.reverse): return "sort reverse"
        case .search(let text): return text.map { "search \($0)" } ?? "search"
        case .sync: return "sync"
        case .help: return "help"
        case .messages: return "messages"
        case .redraw: return "redraw"
        case .prompt: return "prompt"
        case .quit: return "quit"
        }
    }

    public static func parse(_ text: String) throws(CommandError) -> Command {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
        guard let name = parts.first?.lowercased() else { throw .empty }
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        let words = rest.split(separator: " ").map { String($0).lowercased() }

        func noArguments(_ command: Command) throws(CommandError) -> Command {
            guard rest.isEmpty else { throw .unexpectedArgument(command: name, argument: rest) }
            return command
        }

        switch name {
        case "move":
            guard let first = words.first else { throw .missingArgument(command: name, expected: Motion.allCases.map(\.rawValue)) }
            guard let motion = Motion(rawValue: first) else { throw .badArgument(command: name, argument: first, expected: Motion.allCases.map(\.rawValue)) }
            var count = 1
            if words.count > 1 {
                guard words.count == 2, let n = Int(words[1]), (1...10_000).contains(n) else {
                    throw .badArgument(command: name, argument: words.dropFirst().joined(separator: " "), expected: ["a count from 1 to 10000"])
                }
                count = n
            }
            return .move(motion, count: count)
        case "focus":
            guard words.count == 1 else { throw words.isEmpty ? .missingArgument(command: name, expected: Focus.allCases.map(\.rawValue)) : .unexpectedArgument(command: name, argument: rest) }
            guard let focus = Focus(rawValue: words[0]) else { throw .badArgument(command: name, argument: words[0], expected: Focus.allCases.map(\.rawValue)) }
            return .focus(focus)
        case "sort":
            guard let first = words.first else { throw .missingArgument(command: name, expected: SortField.allCases.map(\.rawValue) + ["next", "reverse"]) }
            if first == "next" || first == "reverse" {
                guard words.count == 1 else { throw .unexpectedArgument(command: name, argument: rest) }
                return .sort(first == "next" ? .nextField : .reverse)
            }
            guard let field = SortField(rawValue: first) else { throw .badArgument(command: name, argument: first, expected: SortField.allCases.map(\.rawValue) + ["next", "reverse"]) }
            guard words.count <= 2 else { throw .unexpectedArgument(command: name, argument: rest) }
            if words.count == 2 {
                guard let order = SortOrder(rawValue: words[1]) else { throw .badArgument(command: name, argument: words[1], expected: ["asc", "desc"]) }
                return .sort(.set(field, order))
            }
            return .sort(.set(field, nil))
        case "filter": return .filter(rest.isEmpty ? nil : rest)
        case "search": return .search(rest.isEmpty ? nil : rest)
        case "open": return try noArguments(.open)
        case "next-match": return try noArguments(.nextMatch)
        case "previous-match": return try noArguments(.previousMatch)
        case "clear": return try noArguments(.clear)
        case "sync": return try noArguments(.sync)
        case "help": return try noArguments(.help)
        case "messages": return try noArguments(.messages)
        case "redraw": return try noArguments(.redraw)
        case "prompt": return try noArguments(.prompt)
        case "quit", "q": return try noArguments(.quit)
        default: throw .unknownCommand(name)
        }
    }

    public static let names = ["move", "focus", "open", "filter", "next-match", "previous-match", "clear", "sort",
                               "search", "sync", "help", "messages", "redraw", "prompt", "quit"]
}

public enum CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case unknownCommand(String)
    case missingArgument(command: String, expected: [String])
    case badArgument(command: String, argument: String, expected: [String])
    case unexpectedArgument(command: String, argument: String)

    public var description: String {
        switch self {
        case .empty: return "no command given"
        case .unknownCommand(let name):
            return "unknown command '\(TerminalText.preview(name, limit: 40))' (commands: \(Command.names.joined(separator: ", ")))"
        case .missingArgument(let command, let expected):
            return "'\(command)' needs one of: \(expected.joined(separator: ", "))"
        case .badArgument(let command, let argument, let expected):
            return "'\(command)' does not take '\(TerminalText.preview(argument, limit: 40))'; expected \(expected.joined(separator: ", "))"
        case .unexpectedArgument(let command, let argument):
            return "'\(command)' takes no '\(TerminalText.preview(argument, limit: 40))'"
        }
    }
}
