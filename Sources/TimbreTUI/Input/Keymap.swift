import TimbreCore

/// A key as written in config.toml and the help screen: a printable character ("j", "/", "G"),
/// `C-x` for Ctrl, or a name (Up, Down, Left, Right, Home, End, PageUp, PageDown, Tab, BackTab,
/// Enter, Esc, Backspace, Space).
public struct Key: Hashable, Sendable, CustomStringConvertible, Comparable {
    public let name: String

    public static let named = [
        "Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown", "Tab", "BackTab",
        "Enter", "Esc", "Backspace", "Space", "Delete",
    ]

    public init?(_ text: String) {
        if text.count == 1, let scalar = text.unicodeScalars.first, scalar.value >= 0x21, scalar.value != 0x7F {
            name = text
        } else if text.hasPrefix("C-"), text.count == 3, let letter = text.last, letter.isASCII, letter.isLetter {
            name = "C-" + letter.lowercased()
        } else if let match = Key.named.first(where: { $0.lowercased() == text.lowercased() }) {
            name = match
        } else {
            return nil
        }
    }

    public var description: String { name }
    public static func < (a: Key, b: Key) -> Bool { a.name < b.name }
}

/// Keys → commands: the defaults, then `[keys]` from config.toml on top.
public struct Keymap: Sendable {
    public private(set) var bindings: [Key: Command]
    /// Keys pressed one after the other (`"g p" = "add-to"` in `[keys]`), as vim's: a key that
    /// starts one waits for the next (KeySequences.swift).
    public private(set) var sequences: [[Key]: Command] = [:]

    /// Key → command text: from the one table of keys (KeyHelp.swift).
    public static var defaults: [(String, String)] { KeyHelp.defaultBindings }

    public init() {
        var bindings: [Key: Command] = [:]
        for (key, command) in Self.defaults {
            if let key = Key(key), let command = try? Command.parse(command) { bindings[key] = command }
        }
        self.bindings = bindings
    }

    /// Applies `[keys]` (key → command text; "none" unbinds). Returns one readable problem per bad entry.
    public mutating func apply(_ table: [String: String]) -> [String] {
        var problems: [String] = []
        for (keyText, commandText) in table.sorted(by: { $0.key < $1.key }) {
            if keyText.contains(" ") {
                if let problem = applySequence(keyText, commandText) { problems.append(problem) }
                continue
            }
            guard let key = Key(keyText) else {
                problems.append(
                    "[keys] '\(TerminalText.preview(keyText, limit: 20))' is not a key (use a character, C-x, or one of \(Key.named.joined(separator: ", ")))")
                continue
            }
            if commandText.lowercased() == "none" {
                bindings[key] = nil
                continue
            }
            do {
                bindings[key] = try Command.parse(commandText)
            } catch {
                problems.append("[keys] \(key): \(error)")
            }
        }
        return problems
    }

    public func command(for key: Key) -> Command? { bindings[key] }

    /// `"g p" = "add-to"`: two or more keys, separated by spaces; nil, or a readable problem.
    private mutating func applySequence(_ keyText: String, _ commandText: String) -> String? {
        let parts = keyText.split(separator: " ").map(String.init)
        let keys = parts.compactMap(Key.init)
        guard keys.count == parts.count, keys.count >= 2 else {
            return "[keys] '\(TerminalText.preview(keyText, limit: 20))' is not a key sequence (keys separated by spaces, e.g. \"g p\")"
        }
        if commandText.lowercased() == "none" {
            sequences[keys] = nil
            return nil
        }
        do {
            sequences[keys] = try Command.parse(commandText)
            return nil
        } catch {
            return "[keys] \(parts.joined(separator: " ")): \(error)"
        }
    }

    /// Whether `keys` begin a longer sequence.
    func startsSequence(_ keys: [Key]) -> Bool {
        sequences.keys.contains { $0.count > keys.count && Array($0.prefix(keys.count)) == keys }
    }

    /// Lines for the help screen: every binding, grouped by command, in a stable order.
    public var helpLines: [(keys: String, command: String)] {
        var byCommand: [String: [Key]] = [:]
        for (key, command) in bindings { byCommand[command.description, default: []].append(key) }
        return byCommand.map { (keys: $0.value.sorted().map(\.name).joined(separator: " "), command: $0.key) }
            .sorted { $0.command < $1.command }
    }
}
