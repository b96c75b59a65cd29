import TimbreCore
import TimbreLibrary

/// Everything the TUI can do, as one vocabulary (ncspot's model): keys map to commands, the `:`
/// prompt parses commands, and `[keys]` in config.toml binds keys to command text. Every command
/// prints back to text that parses to itself.
public enum Command: Equatable, Sendable, CustomStringConvertible {
    public enum Motion: String, Sendable, CaseIterable { case up, down, top, bottom, pageup, pagedown, halfpageup, halfpagedown }
    public enum Focus: String, Sendable, CaseIterable { case next, previous, playlists, tracks }
    /// What the view is ordered by (`order`): the interface's rows only, never the playlist on
    /// Spotify (a saved sort orders by `LibraryChange.SortKey`, which has no `position`).
    public enum ViewOrderKey: String, Sendable, CaseIterable { case position, title, artist, album, year, duration, added }
    public enum SortOrder: String, Sendable, CaseIterable { case asc, desc }
    public enum SortChange: Equatable, Sendable {
        case set(ViewOrderKey, SortOrder?)
        case nextField
        case reverse
    }
    public enum Place: String, Sendable, CaseIterable { case after, before }
    public enum Direction: String, Sendable, CaseIterable { case down, up }
    /// `:folder …`: folders are local (Timor's); the selected playlist or folder is the subject.
    public enum FolderAction: Equatable, Sendable {
        case create(String)
        /// Renames the folder at the cursor (or the selected playlist's folder).
        case rename(String)
        /// Deletes the folder at the cursor; its playlists stay.
        case delete
        /// Moves the selected playlist into the folder (matched ignoring case; a new one is asked about first).
        case add(String)
        /// Takes the selected playlist out of its folder.
        case remove

        static let verbs = ["create", "rename", "delete", "add", "remove"]
        /// As the errors list them (each parses once NAME is replaced).
        static let usage = ["create NAME", "rename NAME", "delete", "add NAME", "remove"]
    }

    case cursor(Motion, count: Int)
    case focus(Focus)
    /// Enter: opens the selected playlist, toggles a folder, jumps to a search hit, adds a catalogue pick.
    case open
    /// Starts the incremental filter (nil) or sets it; `year:`, `duration:`, `artist:`, `album:`,
    /// `title:` terms filter by field, the rest of the text as `/` does.
    case filter(String?)
    case nextMatch
    case previousMatch
    /// Esc: closes an overlay, ends a range, clears the marks, else the filter.
    case clear
    /// The view's order.
    case order(SortChange)
    /// Search across every cached playlist: prompt (nil) or run with text.
    case search(String?)
    case sync
    case help
    /// The list of warnings and errors background work reported.
    case messages
    case redraw
    case prompt
    case quit
    // Managing (every edit goes through the same editor and journal as the CLI).
    /// Space: marks or unmarks the entry under the cursor (a catalogue result, over those).
    case mark
    /// `v`: starts a range at the cursor (moving extends it), or ends it.
    case markRange
    /// `d`: removes the marked entries (or the current one) after a y/n question.
    case remove
    /// `y`: copies the marked entries (or the current one) for `paste`.
    case yank
    /// `p`/`P`: inserts what was yanked after/before the cursor, in the open playlist.
    case paste(Place)
    /// `J`/`K`: moves the marked entries (one run of them) or the current one down/up by one.
    case shift(Direction)
    case undo
    case redo
    /// `a`: searches Spotify's catalogue (prompt when nil) to add the picked results.
    case add(String?)
    /// `A`: adds the marked entries (or the current one) to a playlist chosen in a fuzzy picker;
    /// TEXT starts the picker's query.
    case addTo(String?)
    /// `x`: copies the open.spotify.com link of the entry or playlist under the cursor (OSC 52).
    case copyLink
    /// `i`: the open playlist's statistics.
    case info
    /// `H`: the versions timbre kept of the playlist.
    case versions
    /// `o`: opens or closes the folder at the cursor.
    case toggle
    case new(String)
    case rename(String)
    /// Deletes (unfollows) the selected playlist after a y/n question.
    case delete
    case dedupe(fuzzy: Bool)
    case shuffle
    /// `:sort FIELD [reverse]` orders the view (remembered per playlist, as ncspot's sort is);
    /// `:sort! FIELD [reverse]` (`save`) saves that order on Spotify.
    case sort(LibraryChange.SortKey, reverse: Bool, save: Bool)
    /// Saves the order the view shows on Spotify (`:sort!` of the view's field).
    case saveOrder
    case export(String)
    case importFile(String)
    case folder(FolderAction)
    // Playback (State/Playback.swift).
    /// `:play`: the entry under the cursor in its playlist's context (as Enter in the tracks
    /// pane), else resumes.
    case play
    /// `c`: pauses or resumes.
    case playPause
    /// `>` / `<`.
    case nextTrack
    case previousTrack
    /// `.` / `,`: seconds forward (+) or back (-) from the progress shown.
    case seek(Int)
    /// `+` / `-`: percent up (+) or down (-).
    case volume(Int)
    /// `D`: the device picker; the picked device gets playback.
    case devices
    /// `e`: the marked entries (or the current one) added to the queue.
    case queue
    /// `O`: the playing entry's playlist opened, the cursor on its row.
    case showPlaying

    /// The first word of every command's text. Each `Command` case has one (`name` switches over
    /// them), and `parse` switches over these, so a command cannot be added without a name.
    public enum Name: String, Sendable, CaseIterable {
        case move, focus, open, filter
        case nextMatch = "next-match"
        case previousMatch = "previous-match"
        case clear, order, search, sync, help, messages, redraw, prompt, quit
        case mark
        case markRange = "mark-range"
        case remove, yank, paste, shift, undo, redo, add
        case addTo = "add-to"
        case copyLink = "copy-link"
        case info, versions, toggle
        case new, rename, delete, dedupe, shuffle, sort
        case saveOrder = "save-order"
        case export
        case importFile = "import"
        case folder
        case play
        case playPause = "play-pause"
        case nextTrack = "next-track"
        case previousTrack = "previous-track"
        case seek, volume, devices, queue
        case showPlaying = "show-playing"
    }

    public var name: Name {
        switch self {
        case .cursor: return .move
        case .focus: return .focus
        case .open: return .open
        case .filter: return .filter
        case .nextMatch: return .nextMatch
        case .previousMatch: return .previousMatch
        case .clear: return .clear
        case .order: return .order
        case .search: return .search
        case .sync: return .sync
        case .help: return .help
        case .messages: return .messages
        case .redraw: return .redraw
        case .prompt: return .prompt
        case .quit: return .quit
        case .mark: return .mark
        case .markRange: return .markRange
        case .remove: return .remove
        case .yank: return .yank
        case .paste: return .paste
        case .shift: return .shift
        case .undo: return .undo
        case .redo: return .redo
        case .add: return .add
        case .addTo: return .addTo
        case .copyLink: return .copyLink
        case .info: return .info
        case .versions: return .versions
        case .toggle: return .toggle
        case .new: return .new
        case .rename: return .rename
        case .delete: return .delete
        case .dedupe: return .dedupe
        case .shuffle: return .shuffle
        case .sort: return .sort
        case .saveOrder: return .saveOrder
        case .export: return .export
        case .importFile: return .importFile
        case .folder: return .folder
        case .play: return .play
        case .playPause: return .playPause
        case .nextTrack: return .nextTrack
        case .previousTrack: return .previousTrack
        case .seek: return .seek
        case .volume: return .volume
        case .devices: return .devices
        case .queue: return .queue
        case .showPlaying: return .showPlaying
        }
    }

    /// What follows the name, if anything.
    private var arguments: String? {
        switch self {
        case .cursor(let motion, let count): return count == 1 ? motion.rawValue : "\(motion.rawValue) \(count)"
        case .focus(let focus): return focus.rawValue
        case .filter(let text), .search(let text), .add(let text), .addTo(let text): return text
        case .order(.set(let field, let order)): return order.map { "\(field.rawValue) \($0.rawValue)" } ?? field.rawValue
        case .order(.nextField): return "next"
        case .order(.reverse): return "reverse"
        case .paste(let place): return place.rawValue
        case .shift(let direction): return direction.rawValue
        case .new(let text), .rename(let text), .export(let text), .importFile(let text): return text
        case .dedupe(let fuzzy): return fuzzy ? "fuzzy" : nil
        case .sort(let key, let reverse, _): return reverse ? "\(key.rawValue) reverse" : key.rawValue
        case .folder(let action):
            switch action {
            case .create(let name): return "create \(name)"
            case .rename(let name): return "rename \(name)"
            case .delete: return "delete"
            case .add(let name): return "add \(name)"
            case .remove: return "remove"
            }
        case .seek(let amount), .volume(let amount): return Self.signed(amount)
        case .open, .nextMatch, .previousMatch, .clear, .sync, .help, .messages, .redraw, .prompt, .quit,
            .mark, .markRange, .remove, .yank, .undo, .redo, .info, .versions, .toggle, .delete, .shuffle, .saveOrder, .copyLink,
            .play, .playPause, .nextTrack, .previousTrack, .devices, .queue, .showPlaying:
            return nil
        }
    }

    public var description: String {
        let word = if case .sort(_, _, save: true) = self { "sort!" } else { name.rawValue }
        return arguments.map { "\(word) \($0)" } ?? word
    }

    public static func parse(_ text: String) throws(CommandError) -> Command {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
        // `name` is the word as typed (errors quote it); `q` is short for `quit`.
        guard let name = parts.first?.lowercased() else { throw .empty }
        // `:sort!` saves what `:sort` only shows.
        let saving = name == "sort!"
        guard let known = name == "q" ? Name.quit : saving ? Name.sort : Name(rawValue: name) ?? cliNames[name] else { throw .unknownCommand(name) }
        var rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        if name == "edit" { rest = try nameOption(rest, command: name) }
        let words = rest.split(separator: " ").map { String($0).lowercased() }

        func noArguments(_ command: Command) throws(CommandError) -> Command {
            guard rest.isEmpty else { throw .unexpectedArgument(command: name, argument: rest) }
            return command
        }
        /// Free text (a name, a file): kept as typed.
        func freeText(_ make: (String) -> Command, what: String) throws(CommandError) -> Command {
            guard !rest.isEmpty else { throw .missingArgument(command: name, expected: [what]) }
            return make(rest)
        }
        func one<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws(CommandError) -> T where T.RawValue == String {
            let expected = T.allCases.map(\.rawValue)
            guard words.count == 1 else {
                throw words.isEmpty ? .missingArgument(command: name, expected: expected) : .unexpectedArgument(command: name, argument: rest)
            }
            guard let value = T(rawValue: words[0]) else { throw .badArgument(command: name, argument: words[0], expected: expected) }
            return value
        }

        switch known {
        case .move: return try moveCommand(name: name, words: words)
        case .focus: return .focus(try one(Focus.self))
        case .paste: return .paste(try one(Place.self))
        case .shift: return .shift(try one(Direction.self))
        case .order: return .order(try orderChange(name: name, words: words, rest: rest))
        case .sort: return try sortCommand(name: name, words: words, rest: rest, save: saving)
        case .saveOrder: return try noArguments(.saveOrder)
        case .dedupe:
            if rest.isEmpty { return .dedupe(fuzzy: false) }
            guard words == ["--fuzzy"] || words == ["fuzzy"] else { throw .badArgument(command: name, argument: rest, expected: ["--fuzzy"]) }
            return .dedupe(fuzzy: true)
        case .folder: return try folderCommand(name: name, words: words, rest: rest)
        case .filter: return .filter(rest.isEmpty ? nil : rest)
        case .search: return .search(rest.isEmpty ? nil : rest)
        case .add: return .add(rest.isEmpty ? nil : rest)
        case .addTo: return .addTo(rest.isEmpty ? nil : rest)
        case .copyLink: return try noArguments(.copyLink)
        case .new: return try freeText({ .new($0) }, what: "NAME")
        case .rename: return try freeText({ .rename($0) }, what: "NAME")
        case .export: return try freeText({ .export($0) }, what: "FILE")
        case .importFile: return try freeText({ .importFile($0) }, what: "FILE")
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
        case .mark: return try noArguments(.mark)
        case .markRange: return try noArguments(.markRange)
        case .remove: return try noArguments(.remove)
        case .yank: return try noArguments(.yank)
        case .undo: return try noArguments(.undo)
        case .redo: return try noArguments(.redo)
        case .info: return try noArguments(.info)
        case .versions: return try noArguments(.versions)
        case .toggle: return try noArguments(.toggle)
        case .delete: return try noArguments(.delete)
        case .shuffle: return try noArguments(.shuffle)
        case .play: return try noArguments(.play)
        case .playPause: return try noArguments(.playPause)
        case .nextTrack: return try noArguments(.nextTrack)
        case .previousTrack: return try noArguments(.previousTrack)
        case .devices: return try noArguments(.devices)
        case .queue: return try noArguments(.queue)
        case .showPlaying: return try noArguments(.showPlaying)
        case .seek: return .seek(try signedArgument(name: name, words: words, rest: rest, examples: ["+10", "-10"], limit: 86_400))
        case .volume: return .volume(try signedArgument(name: name, words: words, rest: rest, examples: ["+5", "-5"], limit: 100))
        }
    }

    /// `+N` or `-N` (the sign required: the change, not a place), N from 1 to `limit`.
    private static func signedArgument(name: String, words: [String], rest: String, examples: [String], limit: Int) throws(CommandError) -> Int {
        guard let word = words.first else { throw .missingArgument(command: name, expected: examples) }
        guard words.count == 1 else { throw .unexpectedArgument(command: name, argument: rest) }
        guard let sign = word.first, sign == "+" || sign == "-", let amount = Int(word.dropFirst()), (1...limit).contains(amount) else {
            throw .badArgument(command: name, argument: word, expected: examples + ["(+ or - and 1 to \(limit))"])
        }
        return sign == "-" ? -amount : amount
    }

    /// `+10`, `-10`: how `seek` and `volume` print their change.
    private static func signed(_ amount: Int) -> String { amount < 0 ? "\(amount)" : "+\(amount)" }

    /// The CLI's `playlist edit --name NAME` (the only detail the interface changes): the NAME.
    private static func nameOption(_ rest: String, command: String) throws(CommandError) -> String {
        guard rest.hasPrefix("--name") else { throw .missingArgument(command: command, expected: ["--name NAME"]) }
        var value = rest.dropFirst("--name".count)
        while value.first == " " || value.first == "=" { value = value.dropFirst() }
        return String(value)
    }

    /// `:move MOTION [N]`: a motion, N times (1 to 10,000).
    private static func moveCommand(name: String, words: [String]) throws(CommandError) -> Command {
        guard let first = words.first else { throw .missingArgument(command: name, expected: Motion.allCases.map(\.rawValue)) }
        guard let motion = Motion(rawValue: first) else { throw .badArgument(command: name, argument: first, expected: Motion.allCases.map(\.rawValue)) }
        var count = 1
        if words.count > 1 {
            guard words.count == 2, let n = Int(words[1]), (1...10_000).contains(n) else {
                throw .badArgument(command: name, argument: words.dropFirst().joined(separator: " "), expected: ["a count from 1 to 10000"])
            }
            count = n
        }
        return .cursor(motion, count: count)
    }

    /// `:sort FIELD [reverse|desc|asc]` orders the view, `:sort!` saves the order; `sort
    /// next|reverse|position …` order the view as `order` does.
    private static func sortCommand(name: String, words: [String], rest: String, save: Bool) throws(CommandError) -> Command {
        if !save, let first = words.first, first == "next" || first == "reverse" || first == "position" {
            return .order(try orderChange(name: name, words: words, rest: rest))
        }
        let keys = LibraryChange.SortKey.allCases.map(\.rawValue)
        guard let first = words.first else { throw .missingArgument(command: name, expected: keys) }
        guard let key = LibraryChange.SortKey(rawValue: first) else {
            throw .badArgument(command: name, argument: first, expected: keys + ["next", "reverse"])
        }
        guard words.count <= 2 else { throw .unexpectedArgument(command: name, argument: rest) }
        if words.count == 2 {
            guard ["reverse", "desc", "asc"].contains(words[1]) else {
                throw .badArgument(command: name, argument: words[1], expected: ["reverse", "asc", "desc"])
            }
            return .sort(key, reverse: words[1] != "asc", save: save)
        }
        return .sort(key, reverse: false, save: save)
    }

    /// `:folder create|rename|add NAME`, `:folder delete|remove`.
    private static func folderCommand(name: String, words: [String], rest: String) throws(CommandError) -> Command {
        guard let verb = words.first else { throw .missingArgument(command: name, expected: FolderAction.usage) }
        let argument = rest.split(separator: " ", maxSplits: 1).dropFirst().first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        func named(_ make: (String) -> FolderAction) throws(CommandError) -> Command {
            guard !argument.isEmpty else { throw .missingArgument(command: "\(name) \(verb)", expected: ["NAME"]) }
            return .folder(make(argument))
        }
        switch verb {
        case "create": return try named { .create($0) }
        case "rename": return try named { .rename($0) }
        case "add": return try named { .add($0) }
        case "delete", "remove":
            guard argument.isEmpty else { throw .unexpectedArgument(command: "\(name) \(verb)", argument: argument) }
            return .folder(verb == "delete" ? .delete : .remove)
        default: throw .badArgument(command: name, argument: verb, expected: FolderAction.usage)
        }
    }

    private static func orderChange(name: String, words: [String], rest: String) throws(CommandError) -> SortChange {
        let expected = ViewOrderKey.allCases.map(\.rawValue) + ["next", "reverse"]
        guard let first = words.first else { throw .missingArgument(command: name, expected: expected) }
        if first == "next" || first == "reverse" {
            guard words.count == 1 else { throw .unexpectedArgument(command: name, argument: rest) }
            return first == "next" ? .nextField : .reverse
        }
        guard let field = ViewOrderKey(rawValue: first) else { throw .badArgument(command: name, argument: first, expected: expected) }
        guard words.count <= 2 else { throw .unexpectedArgument(command: name, argument: rest) }
        if words.count == 2 {
            guard let order = SortOrder(rawValue: words[1]) else { throw .badArgument(command: name, argument: words[1], expected: ["asc", "desc"]) }
            return .set(field, order)
        }
        return .set(field, nil)
    }

    /// The CLI's names for the interface's edit verbs (`timbre playlist create`, `playlist edit
    /// --name`), taken as well as the interface's own (`new`, `rename`).
    static let cliNames: [String: Name] = ["create": .new, "edit": .rename]

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
