import Foundation

/// The one table of what the interface's keys and `:` verbs do. It gives the default keymap
/// (`Keymap.defaults`), the help screen (`?`, with the keys as bound now) and README's key table
/// (`markdown`; KeyHelpTests fails when README's copy differs).
public struct KeyHelp: Sendable, Equatable {
    public enum Group: String, Sendable, CaseIterable {
        case move = "Move", select = "Select", edit = "Edit", view = "View", playlists = "Playlists", search = "Search", play = "Play"
        case app = "App"
    }

    public let group: Group
    /// The default keys (none for a verb typed at `:`).
    public let keys: [String]
    /// The command the keys run, or (starting with `:`) the verb as typed at the prompt.
    public let command: String
    public let description: String

    init(_ group: Group, _ keys: [String], _ command: String, _ description: String) {
        self.group = group
        self.keys = keys
        self.command = command
        self.description = description
    }

    /// A verb typed at `:` with no key of its own.
    public var isVerb: Bool { command.hasPrefix(":") }

    public static let table: [KeyHelp] = [
        KeyHelp(.move, ["j", "Down"], "move down", "down one row; a count moves more (5j)"),
        KeyHelp(.move, ["k", "Up"], "move up", "up one row (5k)"),
        KeyHelp(.move, ["g", "Home"], "move top", "first row (gg too); with a count, as G (5g)"),
        KeyHelp(
            .move, ["G", "End"], "move bottom",
            "last row; with a count, vim's line: 1G the first, 42G the entry labelled 42 (a filter's hidden rows are skipped over)"),
        KeyHelp(.move, ["C-d"], "move halfpagedown", "half a page down"),
        KeyHelp(.move, ["C-u"], "move halfpageup", "half a page up"),
        KeyHelp(.move, ["PageDown", "C-f"], "move pagedown", "a page down"),
        KeyHelp(.move, ["PageUp", "C-b"], "move pageup", "a page up"),
        KeyHelp(.move, ["Tab"], "focus next", "the other pane"),
        KeyHelp(.move, ["BackTab"], "focus previous", "the other pane"),
        KeyHelp(.move, ["h", "Left"], "focus playlists", "the playlists pane"),
        KeyHelp(.move, ["l", "Right"], "focus tracks", "the tracks pane"),
        KeyHelp(
            .move, ["Enter"], "open",
            "open the playlist or folder; on an entry, play it in its playlist from there; jump to a search hit; add the picked catalogue results"),
        KeyHelp(.select, ["Space"], "mark", "mark the entry and move down (3 Space marks three)"),
        KeyHelp(.select, ["v"], "mark-range", "mark a range: move to extend it, v again ends it"),
        KeyHelp(.select, ["y"], "yank", "copy the marked entries (or the current one)"),
        KeyHelp(.select, ["x"], "copy-link", "copy the entry's or playlist's open.spotify.com link to the clipboard (OSC 52; tmux: set-clipboard on)"),
        KeyHelp(.select, ["Esc"], "clear", "close what is open; clear the marks, else stop a running shuffle or sort, else clear the filter"),
        KeyHelp(.edit, ["d"], "remove", "remove the marked entries (or the current one) after y/n, yanked too (d then p moves); in Liked Songs, unlike"),
        KeyHelp(.edit, ["p"], "paste after", "paste the yanked entries after the cursor (some there already: y adds all, s skips them, n nothing)"),
        KeyHelp(.edit, ["P"], "paste before", "paste the yanked entries before the cursor"),
        KeyHelp(.edit, ["J"], "shift down", "move the marked run (or the entry) down one place; 10J ten places"),
        KeyHelp(.edit, ["K"], "shift up", "move the marked run (or the entry) up one place; 10K ten places"),
        KeyHelp(.edit, ["u"], "undo", "undo the journal's newest edit (wherever it was made)"),
        KeyHelp(.edit, ["C-r"], "redo", "redo the edit undone last"),
        KeyHelp(.edit, ["a"], "add", "search Spotify's catalogue; Space marks results, Enter adds them"),
        KeyHelp(.edit, ["A"], "add-to", "add the marked entries (or the current one, a search hit, picks) to the end of a playlist picked by name"),
        KeyHelp(.edit, [], ":dedupe [--fuzzy]", "remove duplicate entries, saved on Spotify"),
        KeyHelp(.edit, [], ":shuffle", "shuffle the playlist on Spotify (dates added kept; above 20 moves it asks)"),
        KeyHelp(.edit, [], ":sort! FIELD [reverse]", "sort the playlist on Spotify (title, artist, album, year, duration, added; dates kept)"),
        KeyHelp(.edit, [], ":save-order", "save the order the view shows on Spotify (dates kept; above 20 moves it asks)"),
        KeyHelp(.edit, [], ":import FILE", "add the rows of a CSV or URI list to the open playlist"),
        KeyHelp(.view, ["/"], "filter", "filter as you type (case- and accent-insensitive); a new / starts a new pattern"),
        KeyHelp(
            .view, ["n"], "next-match", "next row of the filtered view; after Esc cleared it, the next row holding the last / pattern (vim's search history)"),
        KeyHelp(.view, ["N"], "previous-match", "previous row of the filtered view, or holding the last / pattern"),
        KeyHelp(.view, ["s"], "order next", "order the view by the next field (the cursor stays on its track)"),
        KeyHelp(.view, ["S"], "order reverse", "reverse the view's order"),
        KeyHelp(.view, ["i"], "info", "statistics of the playlist"),
        KeyHelp(.view, [], ":filter year:1990-1999 duration:<3:00 artist:NAME", "field filters (year, duration, artist, album, title), with /"),
        KeyHelp(.view, [], ":sort FIELD [reverse]", "order the view only, remembered per playlist (:sort! saves it on Spotify)"),
        KeyHelp(.view, [], ":order FIELD [asc|desc]", "order the view (Spotify is not touched)"),
        KeyHelp(.playlists, ["o"], "toggle", "open or close the folder under the cursor"),
        KeyHelp(.playlists, ["H"], "versions", "the versions timbre kept of the playlist: Enter compares one with now, r restores it (one undoable edit)"),
        KeyHelp(.playlists, [], ":create [--public] NAME", "create a playlist, private unless --public (◦ private, ⇄ collaborative in the pane)"),
        KeyHelp(.playlists, [], ":edit --name NAME", "rename the selected playlist"),
        KeyHelp(.playlists, [], ":delete", "delete (unfollow) the selected playlist, after a y/n question"),
        KeyHelp(.playlists, [], ":export FILE", "write the selected playlist as CSV (asks before replacing a file)"),
        KeyHelp(.playlists, [], ":folder create NAME", "create a local folder"),
        KeyHelp(.playlists, [], ":folder add NAME", "put the selected playlist into a folder (any case; asks before making one)"),
        KeyHelp(.playlists, [], ":folder remove", "take the selected playlist out of its folder"),
        KeyHelp(.playlists, [], ":folder rename NAME", "rename the folder under the cursor"),
        KeyHelp(.playlists, [], ":folder delete", "delete the folder under the cursor (its playlists stay)"),
        KeyHelp(.search, ["F"], "search", "search every cached playlist (where is this track?)"),
        KeyHelp(.search, [], ":search TEXT", "the same, typed at the prompt"),
        KeyHelp(.play, ["c"], "play-pause", "pause or resume (nothing known to play: reads the player first)"),
        KeyHelp(.play, [">"], "next-track", "next track"),
        KeyHelp(.play, ["<"], "previous-track", "previous track"),
        KeyHelp(.play, ["."], "seek +10", "forward 10 s (held down: one request; 3. is 30 s)"),
        KeyHelp(.play, [","], "seek -10", "back 10 s"),
        KeyHelp(.play, ["+"], "volume +5", "volume up 5 (held down: one request)"),
        KeyHelp(.play, ["-"], "volume -5", "volume down 5"),
        KeyHelp(.play, ["D"], "devices", "pick a Spotify Connect device and move playback there"),
        KeyHelp(.play, ["e"], "queue", "add the marked entries (or the current one) to the queue"),
        KeyHelp(.play, ["O"], "show-playing", "open the playing entry's playlist, the cursor on its row"),
        KeyHelp(.play, [], ":play", "play the entry under the cursor in its playlist (as Enter), else resume"),
        KeyHelp(
            .app, [":"], "prompt",
            "command prompt: its candidates listed under it (fuzzy: srt finds sort), Tab completes and cycles, Up/Down history, C-w C-u Left Right Home End edit"
        ),
        KeyHelp(.app, ["U"], "sync", "sync now, in the background"),
        KeyHelp(.app, ["M"], "messages", "every warning and error, newest first, with its time"),
        KeyHelp(.app, ["?"], "help", "this help: j k C-d C-u g G scroll, / searches, Esc or q closes"),
        KeyHelp(.app, ["C-l"], "redraw", "redraw the screen"),
        KeyHelp(.app, ["q"], "quit", "quit"),
    ]

    /// The default bindings, key → command text, in the table's order.
    static var defaultBindings: [(String, String)] {
        table.filter { !$0.isVerb }.flatMap { entry in entry.keys.map { ($0, entry.command) } }
    }

    /// The help screen's lines for `keymap`: each group's title, then one line per command with
    /// the keys bound to it now (its description wrapped to `width`); keys bound in config.toml to
    /// a command not in the table last.
    public static func lines(for keymap: Keymap, width: Int = 200) -> [String] {
        var keysByCommand: [String: [Key]] = [:]
        for (key, command) in keymap.bindings { keysByCommand[command.description, default: []].append(key) }
        let defaultOrder = Dictionary(defaultBindings.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { first, _ in first })
        func ordered(_ keys: [Key]) -> [String] {
            keys.sorted { (defaultOrder[$0.name] ?? Int.max, $0.name) < (defaultOrder[$1.name] ?? Int.max, $1.name) }.map(\.name)
        }
        var out: [String] = []
        for group in Group.allCases {
            out.append(group.rawValue)
            for entry in table where entry.group == group {
                let keys = entry.isVerb ? entry.command : ordered(keysByCommand.removeValue(forKey: entry.command) ?? []).joined(separator: " ")
                out += line(keys.isEmpty ? "(no key)" : keys, entry.description, width: width)
            }
        }
        if !keysByCommand.isEmpty {
            out.append("Bound in config.toml")
            for (command, keys) in keysByCommand.sorted(by: { $0.key < $1.key }) {
                out += line(ordered(keys).joined(separator: " "), ":" + command, width: width)
            }
        }
        let sequences = keymap.sequences.map { (keys: $0.key.map(\.name).joined(separator: " "), command: $0.value.description) }
        if !sequences.isEmpty {
            out.append("Key sequences in config.toml")
            for sequence in sequences.sorted(by: { $0.keys < $1.keys }) { out += line(sequence.keys, ":" + sequence.command, width: width) }
        }
        return out
    }

    /// Titles are the lines that do not start with a space.
    public static func isTitle(_ line: String) -> Bool { !line.hasPrefix(" ") }

    /// The keys, then what they do from column 18 (or after the keys when they are longer),
    /// wrapped under that column.
    private static func line(_ keys: String, _ description: String, width: Int) -> [String] {
        let head = keys.count <= 14 ? "  " + keys.padding(toLength: 16, withPad: " ", startingAt: 0) : "  \(keys)  "
        let wrapped = TextWidth.wrap(description, columns: max(20, width - TextWidth.width(of: head)))
        let indent = String(repeating: " ", count: 18)
        return wrapped.enumerated().map { index, text in (index == 0 ? head : indent) + text }
    }

    /// README's key table, as the marked section of README.md holds it.
    public static var markdown: String {
        var out = ["| group | keys | what it does |", "|---|---|---|"]
        for entry in table {
            let keys = entry.isVerb ? "`\(entry.command)`" : entry.keys.map { "`\($0)`" }.joined(separator: " ")
            out.append("| \(entry.group.rawValue) | \(escaped(keys)) | \(escaped(entry.description)) |")
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func escaped(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
