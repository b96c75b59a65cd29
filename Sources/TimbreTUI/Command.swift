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

    /// The first word of every command's text. Each `Command` case has one (`name` switches over
    /// them), and `parse` switches over these, so a command cannot be added without a name.
    public enum Name: String, Sendable, CaseIterable {
        case move, focus, open, filter
        case nextMatch = "next-match"
        case previousMatch = "previous-match"
        case clear, sort, search, sync, help, messages, redraw, prompt, quit
    }

    public var name: Name {
        switch self {
        case .move: return .move
        case .focus: return .focus
        case .open: return .open
        case .filter: return .filter
        case .nextMatch: return .nextMatch
        case .previousMatch: return .previousMatch
        case .clear: return .clear
        case .sort: return .sort
        case .search: return .search
        case .sync: return .sync
        case .help: return .help
        case .messages: return .messages
        case .redraw: return .redraw
        case .prompt: return .prompt
        case .quit: return .quit
        }
    }

    /// What follows the name, if anything.
    private var arguments: String? {
        switch self {
        case .move(let motion, let count): return count == 1 ? motion.rawValue : "\(motion.rawValue) \(count)"
        case .focus(let focus): return focus.rawValue
        case .filter(let text), .search(let text): return text
        case .sort(.set(let field, let order)): return order.map { "\(field.rawValue) \($0.rawValue)" } ?? field.rawValue
        case .sort(.nextField): return "next"
        case .sort(.reverse): return "reverse"
        case .open, .nextMatch, .previousMatch, .clear, .sync, .help, .messages, .redraw, .prompt, .quit: return nil
        }
    }

    public var description: String { arguments.map { "\(name.rawValue) \($0)" } ?? name.rawValue }

    public static func parse(_ text: String) throws(CommandError) -> Command {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
        // `name` is the word as typed (errors quote it); `q` is short for `quit`.
        guard let name = parts.first?.lowercased() else { throw .empty }
        guard let known = name == "q" ? Name.quit : Name(rawValue: name) else { throw .unknownCommand(name) }
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        let words = rest.split(separator: " ").map { String($0).lowercased() }

        func noArguments(_ command: Command) throws(CommandError) -> Command {
            guard rest.isEmpty else { throw .unexpectedArgument(command: name, argument: rest) }
            return command
        }

        switch known {
        case .move:
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
        case .focus:
            guard words.count == 1 else { throw words.isEmpty ? .missingArgument(command: name, expected: Focus.allCases.map(\.rawValue)) : .unexpectedArgument(command: name, argument: rest) }
            guard let focus = Focus(rawValue: words[0]) else { throw .badArgument(command: name, argument: words[0], expected: Focus.allCases.map(\.rawValue)) }
            return .focus(focus)
        case .sort:
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
        case .filter: return .filter(rest.isEmpty ? nil : rest)
        case .search: return .search(rest.isEmpty ? nil : rest)
        case .open: return try noArguments(.open)
        case .nextMatch: return try noArguments(.nextMatch)
        case .previousMatch: return try noArguments(.previousMatch)
        case .clear: return try noArguments(.clear)
        case .sync: return try noArguments(.sync)
        case .help: return try noArguments(.help)
        case .messages: return try noArguments(.messages)
        case .redraw: return try noArguments(.redraw)
        case .prompt: return try noArguments(.prompt)
        case .quit: return try noArguments(.quit)
        }
    }

    /// Every command name, in the order `Name` declares them (for error messages and help).
    public static let names = Name.allCases.map(\.rawValue)
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
