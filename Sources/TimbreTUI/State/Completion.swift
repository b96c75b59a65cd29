import Foundation
import TimbreLibrary

/// Tab at a prompt: what the word before the cursor can become. At `:` the verbs, then each verb's
/// arguments (sort fields, motions, folder verbs), folder names after `folder add|rename` and
/// playlist names after `rename`/`edit --name`; at `/` playlist names (left pane) or the field
/// terms of `:filter` (right pane). Pure: reads only the state.
extension TUIState {
    /// The word being completed (the end of `before`) and its candidates, in order.
    func completions(for prompt: Prompt, before: String) -> (word: String, matches: [String]) {
        switch prompt {
        case .command: return commandCompletions(before)
        case .filter:
            if focus == .playlists { return (before, Self.matching(before, in: playlists.map(\.name))) }
            let word = Self.lastWord(before)
            return (word, Self.matching(word, in: EntryFilter.fields.map { $0 + ":" }))
        case .search, .catalogue: return ("", [])
        }
    }

    /// Every verb the `:` prompt takes (the CLI's names too), sorted.
    static let verbs = (Command.names + Command.cliNames.keys).sorted()

    private func commandCompletions(_ before: String) -> (word: String, matches: [String]) {
        let words = before.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let typingFirst = !before.contains(" ")
        if typingFirst { return (before, Self.matching(before, in: Self.verbs)) }
        guard let verb = words.first?.lowercased() else { return ("", []) }
        // The text after the verb (names may hold spaces), and the word being typed.
        let rest = String(before.drop { $0 != " " }.drop { $0 == " " })
        let word = Self.lastWord(before)
        let argument = before.hasSuffix(" ") ? words.count : words.count - 1
        func fixed(_ options: [String]) -> (String, [String]) { (word, Self.matching(word, in: options)) }
        switch (verb, argument) {
        case ("order", 1): return fixed(Command.SortField.allCases.map(\.rawValue) + ["next", "reverse"])
        case ("order", 2): return fixed(Command.SortOrder.allCases.map(\.rawValue))
        case ("sort", 1): return fixed(LibraryChange.SortKey.allCases.map(\.rawValue) + ["next", "reverse"])
        case ("sort", 2): return fixed(["reverse"])
        case ("move", 1): return fixed(Command.Motion.allCases.map(\.rawValue))
        case ("focus", 1): return fixed(Command.Focus.allCases.map(\.rawValue))
        case ("paste", 1): return fixed(Command.Place.allCases.map(\.rawValue))
        case ("shift", 1): return fixed(Command.Direction.allCases.map(\.rawValue))
        case ("dedupe", 1): return fixed(["--fuzzy"])
        case ("folder", 1): return fixed(Command.FolderAction.verbs)
        case ("folder", _):
            let action = words.count > 1 ? words[1].lowercased() : ""
            guard action == "add" || action == "rename" else { return ("", []) }
            let name = String(rest.drop { $0 != " " }.drop { $0 == " " })
            return (name, Self.matching(name, in: folders.map(\.name)))
        case ("rename", _): return (rest, Self.matching(rest, in: playlists.map(\.name)))
        case ("edit", _):
            guard rest.hasPrefix("--name ") else { return fixed(["--name"]) }
            let name = String(rest.dropFirst("--name ".count).drop { $0 == " " })
            return (name, Self.matching(name, in: playlists.map(\.name)))
        default: return ("", [])
        }
    }

    static func lastWord(_ text: String) -> String {
        String(text.reversed().prefix { $0 != " " }.reversed())
    }

    /// The options that start with `prefix` (case-insensitive), each once, in their order; with
    /// none, those that contain it.
    static func matching(_ prefix: String, in options: [String]) -> [String] {
        let needle = prefix.lowercased()
        var seen = Set<String>()
        let unique = options.filter { seen.insert($0).inserted }
        let starting = unique.filter { $0.lowercased().hasPrefix(needle) }
        if !starting.isEmpty || needle.isEmpty { return starting }
        return unique.filter { $0.lowercased().contains(needle) }
    }
}
