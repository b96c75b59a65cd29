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
        case .search, .catalog: return ("", [])
        }
    }

    /// Every verb the `:` prompt takes (the CLI's names too, and `sort!`), sorted.
    static let verbs = (Command.names + Command.cliNames.keys + ["sort!"]).sorted()

    /// What the `:` prompt lists under itself: the candidates for the word before the cursor, each
    /// with its usage and what it does (verbs, from the key table), and the one Tab shows now.
    public func promptCandidates() -> (items: [(text: String, help: String)], selected: Int?) {
        guard case .typing(.command, let line) = mode else { return ([], nil) }
        if let cycle = line.completion {
            return (cycle.candidates.map { Self.describe($0, first: !cycle.before.contains(" ")) }, cycle.index)
        }
        let before = line.beforeCursor
        let (_, matches) = completions(for: .command, before: before)
        return (matches.map { Self.describe($0, first: !before.contains(" ")) }, nil)
    }

    /// A candidate as the list shows it: a verb with its usage and what it does, anything else as it is.
    private static func describe(_ candidate: String, first: Bool) -> (text: String, help: String) {
        guard first, let entry = verbHelp[candidate.lowercased()] else { return (candidate, "") }
        return entry
    }

    /// Each verb's usage and description, from the key table's first line for it (the CLI's names
    /// and `new`/`rename` say what they stand for).
    static let verbHelp: [String: (text: String, help: String)] = {
        var out: [String: (text: String, help: String)] = [:]
        for entry in KeyHelp.table {
            let usage = entry.command.hasPrefix(":") ? String(entry.command.dropFirst()) : entry.command
            guard let verb = usage.split(separator: " ").first.map(String.init), out[verb] == nil else { continue }
            let keys = entry.keys.isEmpty ? "" : " (" + entry.keys.joined(separator: " ") + ")"
            out[verb] = (entry.isVerb ? usage : verb, entry.description + keys)
        }
        if let create = out["create"] { out["new"] = ("new" + create.text.dropFirst("create".count), create.help) }
        if let edit = out["edit"] { out["rename"] = ("rename NAME", edit.help) }
        return out
    }()

    private func commandCompletions(_ before: String) -> (word: String, matches: [String]) {
        let words = before.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let typingFirst = !before.contains(" ")
        if typingFirst { return (before, Self.fuzzyMatching(before, in: Self.verbs)) }
        guard let verb = words.first?.lowercased() else { return ("", []) }
        // The text after the verb (names may hold spaces), and the word being typed.
        let rest = String(before.drop { $0 != " " }.drop { $0 == " " })
        let word = Self.lastWord(before)
        let argument = before.hasSuffix(" ") ? words.count : words.count - 1
        func fixed(_ options: [String]) -> (String, [String]) { (word, Self.matching(word, in: options)) }
        switch (verb, argument) {
        case ("order", 1): return fixed(Command.ViewOrderKey.allCases.map(\.rawValue) + ["next", "reverse"])
        case ("order", 2): return fixed(Command.SortOrder.allCases.map(\.rawValue))
        case ("sort", 1): return fixed(LibraryChange.SortKey.allCases.map(\.rawValue) + ["next", "reverse"])
        case ("sort", 2): return fixed(["reverse"])
        case ("move", 1): return fixed(Command.Motion.allCases.map(\.rawValue))
        case ("focus", 1): return fixed(Command.Focus.allCases.map(\.rawValue))
        case ("paste", 1): return fixed(Command.Place.allCases.map(\.rawValue))
        case ("shift", 1): return fixed(Command.Direction.allCases.map(\.rawValue))
        case ("dedupe", 1): return fixed(["--fuzzy"])
        case ("create", 1), ("new", 1): return fixed(["--public"])
        case ("sort!", 1): return fixed(LibraryChange.SortKey.allCases.map(\.rawValue))
        case ("sort!", 2): return fixed(["reverse"])
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

    /// The options that start with `typed` (in their order), then those holding its characters in
    /// order (the `A` picker's match: the tightest and earliest first).
    static func fuzzyMatching(_ typed: String, in options: [String]) -> [String] {
        let starting = options.filter { $0.lowercased().hasPrefix(typed.lowercased()) }
        let query = Array(typed.lowercased().filter { $0 != " " })
        let fuzzy = options.enumerated().compactMap { index, option -> (Int, (span: Int, start: Int))? in
            guard !starting.contains(option), let score = Picker.fuzzy(query, in: Array(option.lowercased())) else { return nil }
            return (index, score)
        }
        return starting + fuzzy.sorted { ($0.1.span, $0.1.start, $0.0) < ($1.1.span, $1.1.start, $1.0) }.map { options[$0.0] }
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
