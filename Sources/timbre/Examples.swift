import Foundation

/// Two or three real examples per command, as gh's help ends with them: appended to `--help`
/// (after the global options) and to each command's description in `--experimental-dump-help`,
/// which the man pages are generated from. One table, so a command's examples are in one place.
enum Examples {
    /// Command path (without `timbre`) → examples, each `command  # what it does`.
    static let table: [String: [String]] = [
        "": [
            "timbre                                   # the interface on the cache",
            "timbre demo                              # try it against the bundled sandbox",
            "timbre --profile work sync               # another account's profile",
        ],
        "demo": [
            "timbre demo", "timbre demo --library small --no-interface", "timbre --profile demo playlists          # in another terminal, while the demo runs",
        ],
        "doctor": ["timbre doctor", "timbre doctor --online", "timbre doctor --json | jq -r '.checks[] | select(.level != \"ok\") | .fix'"],
        "login": ["timbre login", "timbre login --paste                     # over SSH", "timbre login --with-token < refresh-token.txt"],
        "logout": ["timbre logout", "timbre logout --profile work"],
        "auth status": ["timbre auth status", "timbre auth status --json | jq -r .expires_at"],
        "auth token": ["curl -H \"Authorization: Bearer $(timbre auth token)\" https://api.spotify.com/v1/me", "timbre auth token --profile work"],
        "sync": [
            "timbre sync", "timbre sync --playlist \"Road Trip\" --liked", "timbre sync --quiet --json > last-sync.json   # from cron",
            "timbre sync --quiet --max-requests 300       # at most 300 requests (a small daily quota)",
        ],
        "quota": ["timbre quota", "timbre quota --json | jq .last_24h", "timbre quota --reset                     # after changing client_id"],
        "playlists": ["timbre playlists", "timbre playlists --json | jq -r '.[] | \"\\(.id) \\(.name)\"'", "timbre playlists --deleted"],
        "tracks": ["timbre tracks \"road trip\"", "timbre tracks liked --csv > liked.csv", "timbre tracks 37i9dQZF1DXcBWIGoYBM5M --json | jq length"],
        "playlist create": ["timbre playlist create \"Road Trip 2024\"", "timbre playlist create Focus --private --description \"no lyrics\""],
        "playlist edit": ["timbre playlist edit \"Road Trip\" --name \"Road Trip 2025\"", "timbre playlist edit Focus --private --no-collaborative"],
        "playlist add": [
            "timbre playlist add \"Road Trip\" spotify:track:4uLU6hMCjMI75M1A2tKUQC",
            "timbre search \"heart of glass\" --json | jq -r '.[0].uri' | timbre playlist add Focus -",
        ],
        "playlist remove": ["timbre playlist remove \"Road Trip\" --position 3", "timbre playlist remove Focus --uri spotify:track:4uLU6hMCjMI75M1A2tKUQC"],
        "playlist move": ["timbre playlist move \"Road Trip\" --position 5-7 --to 1", "timbre playlist move Focus --position 12 --to 2 --dry-run"],
        "playlist dedupe": ["timbre playlist dedupe \"Road Trip\" --dry-run", "timbre playlist dedupe Focus --fuzzy"],
        "playlist shuffle": ["timbre playlist shuffle \"Road Trip\"", "timbre playlist shuffle Focus --dry-run"],
        "playlist sort": ["timbre playlist sort \"Road Trip\" --by artist", "timbre playlist sort Focus --by added --reverse"],
        "playlist copy": ["timbre playlist copy liked new:\"Liked backup\"", "timbre playlist copy \"Road Trip\" Focus --dedupe"],
        "playlist delete": ["timbre playlist delete \"Road Trip 2023\"", "timbre playlist delete 37i9dQZF1DXcBWIGoYBM5M --yes"],
        "playlist log": ["timbre playlist log \"Road Trip\"", "timbre playlist log 37i9dQZF1DXcBWIGoYBM5M --json | jq '.[0]'"],
        "playlist diff": [
            "timbre playlist diff \"Road Trip\"    # the last change", "timbre playlist diff \"Road Trip\" 3 7 --json",
        ],
        "playlist restore": [
            "timbre playlist restore \"Road Trip\" --to 3 --dry-run", "timbre playlist restore \"Road Trip\" --to 3    # timbre undo takes it back",
        ],
        "folder create": ["timbre folder create Work", "timbre folder create \"Road Trips\""],
        "folder rename": ["timbre folder rename Work Office", "timbre folder rename \"Road Trips\" Travel"],
        "folder delete": ["timbre folder delete Office", "timbre folder delete Travel    # its playlists stay in your library"],
        "folder add": ["timbre folder add Work Focus \"Deep Work\"", "timbre folder add Travel \"road trip\""],
        "folder remove": ["timbre folder remove Work Focus", "timbre folder remove Travel \"Road Trip 2024\""],
        "folder list": ["timbre folder list", "timbre folder list --json"],
        "stats": ["timbre stats \"road trip\"", "timbre stats liked --json"],
        "export": ["timbre export \"Road Trip\" -o road-trip.csv", "timbre export liked > liked.csv"],
        "backup": ["timbre backup                            # timbre-backup-YYYY-MM-DD.json here", "timbre backup -o ~/spotify.json --force"],
        "restore": ["timbre restore spotify.json --dry-run", "timbre --profile new restore spotify.json --json"],
        "import": ["timbre import road-trip.csv --name \"Road Trip (copy)\"", "timbre import exportify.csv --into Focus --dry-run"],
        "duplicates": ["timbre duplicates", "timbre duplicates \"Road Trip\" Focus --json"],
        "search": ["timbre search \"heart of glass\"", "timbre search \"artist:blondie year:1978\" --limit 20", "timbre search parallel lines --type album"],
        "like": ["timbre like spotify:track:4uLU6hMCjMI75M1A2tKUQC", "timbre tracks Focus --json | jq -r '.[].uri' | timbre like -"],
        "unlike": ["timbre unlike spotify:track:4uLU6hMCjMI75M1A2tKUQC", "timbre tracks liked --json | jq -r '.[-1].uri' | timbre unlike -"],
        "undo": ["timbre undo", "timbre undo --force --json"],
        "redo": ["timbre redo", "timbre redo --json"],
        "history": ["timbre history", "timbre history --json --limit 5", "timbre history --abandon 12", "timbre history --prune"],
        "api": ["timbre api me", "timbre api 'me/playlists?limit=50' --paginate", "timbre api -X PUT playlists/ID --input details.json"],
        "pins show": ["timbre pins https://api.spotify.com", "timbre pins chain.pem"],
        "pins update": ["timbre pins update", "timbre pins update --file pins.json --signature pins.json.sig"],
        "pins status": ["timbre pins status", "timbre pins status --json"],
        "paths": ["timbre paths", "timbre --profile work paths --json"],
        "play": [
            "timbre play \"Road Trip\" --track 4 --device kitchen   # entry 4 of the playlist, on \"Kitchen radio\"",
            "timbre play liked --track 10", "timbre play                              # resume",
        ],
        "pause": ["timbre pause", "timbre pause --profile work"],
        "next": ["timbre next", "timbre next && timbre now"],
        "prev": ["timbre prev", "timbre prev && timbre now"],
        "seek": ["timbre seek 1:30", "timbre seek +10                          # 10 s on", "timbre seek -0:15"],
        "volume": ["timbre volume 40", "timbre volume -5"],
        "shuffle": ["timbre shuffle on", "timbre shuffle off"],
        "repeat": ["timbre repeat context", "timbre repeat track", "timbre repeat off"],
        "queue": ["timbre queue spotify:track:4uLU6hMCjMI75M1A2tKUQC", "timbre search \"heart of glass\" --json | jq -r '.[0].uri' | xargs timbre queue"],
        "devices": ["timbre devices", "timbre devices --json | jq -r '.[] | select(.is_active) | .name'"],
        "transfer": ["timbre transfer kitchen", "timbre transfer \"Office\" --play"],
        "now": ["timbre now                               # for a status bar", "timbre now --json --jq .item.name"],
        "recent": ["timbre recent", "timbre recent --json --limit 5 | jq -r '.[].item.name'"],
        "mpris": ["timbre mpris &                           # then: playerctl -p timbre play-pause", "playerctl -p timbre metadata title"],
        "completion": [
            "timbre completion bash > ~/.local/share/bash-completion/completions/timbre",
            "timbre completion zsh > ~/.zfunc/_timbre     # with fpath=(~/.zfunc $fpath) before compinit",
            "timbre completion fish > ~/.config/fish/completions/timbre.fish",
        ],
    ]

    /// The EXAMPLES section of a command's help; nil for a command without examples (a group).
    static func section(for path: String) -> String? {
        guard let lines = table[path], !lines.isEmpty else { return nil }
        return "EXAMPLES:\n" + lines.map { "  $ " + $0 }.joined(separator: "\n")
    }

    /// The command path a help text is for, from its `USAGE: timbre playlist add <ref> …` line.
    static func path(ofHelp text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("USAGE: timbre") }) else { return nil }
        let words = line.dropFirst("USAGE: timbre".count).split(separator: " ")
        return words.prefix { word in word.first.map { $0.isLetter } ?? false }.joined(separator: " ")
    }

    /// `--experimental-dump-help`'s JSON with each command's examples added to its discussion, so
    /// the generated man pages carry them; the text unchanged if it is not that JSON.
    static func addingToDump(_ text: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let command = object["command"] as? [String: Any]
        else { return text }
        var dump = object
        dump["command"] = adding(to: command, path: [])
        guard let data = try? JSONSerialization.data(withJSONObject: dump, options: [.sortedKeys]) else { return text }
        return String(decoding: data, as: UTF8.self)
    }

    private static func adding(to command: [String: Any], path: [String]) -> [String: Any] {
        var command = command
        if let lines = table[path.joined(separator: " ")], !lines.isEmpty {
            let examples = "Examples:\n" + lines.map { "  $ " + $0 }.joined(separator: "\n")
            let discussion = (command["discussion"] as? String).map { $0 + "\n\n" } ?? ""
            command["discussion"] = discussion + examples
        }
        if let subcommands = command["subcommands"] as? [[String: Any]] {
            command["subcommands"] = subcommands.map { sub in adding(to: sub, path: path + [(sub["commandName"] as? String) ?? ""]) }
        }
        return command
    }
}
