import Foundation
import TimbreCore
import TimbreLibrary

extension Invocation {
    /// A playlist REF as the user typed it: an ID, URI, link or `liked` is read as it is (no file
    /// is opened); anything else is a name, or the start of one, of a playlist in this profile's
    /// cache (`PlaylistRef.resolve`).
    public func playlistRef(_ text: String) throws -> PlaylistRef {
        if let reference = try? PlaylistRef.parse(text) { return reference }
        return try PlaylistRef.resolve(text, among: try cachedPlaylistNames())
    }

    /// The cached playlists' ids and names; none when no sync has made a cache.
    func cachedPlaylistNames() throws -> [NamedPlaylist] {
        let path = paths.cache
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let cache = try LibraryCache.open(path: path, verify: false, warn: console.warnings)
        return try cache.playlists().compactMap { playlist in
            SpotifyID(playlist.id).map { NamedPlaylist(id: $0, name: playlist.name) }
        }
    }
}

extension AppContext {
    /// `invocation.playlistRef`: a REF, names of cached playlists included.
    public func playlistRef(_ text: String) throws -> PlaylistRef {
        try invocation.playlistRef(text)
    }
}

/// What the shells' tab completion offers (ArgumentParser's custom completion calls these in a
/// `timbre ---completion …` run): read from the profile's cache and user data, never written,
/// nothing printed; no cache, no candidates.
public enum ShellCompletion {
    /// `playlist sort --by`'s fields.
    public static let sortFields = LibraryChange.SortKey.allCases.map(\.rawValue)

    /// Cached playlist names and ids, and `liked`, that start with `prefix` (case-insensitively),
    /// each written for `shell` (`ShellWords.written`). A name `timbre` would not read back as that
    /// playlist — one with a control character or a newline, one another name folds to, one read
    /// as an ID, URI or option — is offered as its id; a name longer than `ShellWords.longest` as
    /// the start of it that still names only it, else as its id.
    public static func playlists(words: [String], prefix: String, shell: CompletingShell?, environment: [String: String])
        -> [String]
    {
        guard let profiled = profiled(environment, words: words) else { return [] }
        let invocation = Invocation(console: Console.buffered().0, environment: profiled)
        let named = (try? invocation.cachedPlaylistNames()) ?? []
        let byName = PlaylistRef.resolvableByName(named)
        let typed = typedForms(prefix)
        let literal = environment[ShellWords.literalMarker] == ShellWords.literalValue
        var names: [String] = []
        var byID: [String] = []
        for playlist in named {
            let word = byName.contains(playlist.id) ? (playlist.name.count <= ShellWords.longest ? playlist.name : shortened(playlist, among: named)) : nil
            if let word, ShellWords.written(word, for: shell, literal: literal) != nil {
                names.append(word)
            } else if typed.contains(where: { !$0.isEmpty && playlist.name.lowercased().hasPrefix($0) }) {
                // Its name cannot be offered: its id is, when the name starts with what was typed.
                byID.append(playlist.id.rawValue)
            }
        }
        let offered = matching(["liked"] + names + named.map(\.id.rawValue), prefix) + byID
        return written(offered, shell: shell, environment: environment)
    }

    /// The local folders' names that start with `prefix`, written for `shell`.
    public static func folders(words: [String], prefix: String, shell: CompletingShell?, environment: [String: String])
        -> [String]
    {
        guard let profiled = profiled(environment, words: words) else { return [] }
        let paths = Paths.resolve(environment: profiled)
        guard let folders = (try? UserData.existing(path: paths.data))??.folders else { return [] }
        return written(matching(((try? folders.list()) ?? []).map(\.name), prefix), shell: shell, environment: environment)
    }

    /// What the user typed, lowercased: as the shell passed it, and without its quoting (bash,
    /// zsh and fish 4 pass the word as typed; fish 3 passes it unquoted already).
    static func typedForms(_ prefix: String) -> Set<String> {
        [prefix.lowercased(), ShellWords.unquoted(prefix).lowercased()]
    }

    static func matching(_ candidates: [String], _ prefix: String) -> [String] {
        let typed = typedForms(prefix)
        var seen = Set<String>()
        return candidates.filter { candidate in
            let folded = candidate.lowercased()
            return typed.contains { folded.hasPrefix($0) } && seen.insert(candidate).inserted
        }
    }

    /// The candidates as the asking shell must get them; those it cannot get safely left out.
    static func written(_ candidates: [String], shell: CompletingShell?, environment: [String: String]) -> [String] {
        let literal = environment[ShellWords.literalMarker] == ShellWords.literalValue
        var seen = Set<String>()
        return candidates.compactMap { ShellWords.written($0, for: shell, literal: literal) }.filter { seen.insert($0).inserted }
    }

    /// The first `ShellWords.longest` characters of a long name, when they still name only this
    /// playlist (no other name is exactly them or starts with them).
    static func shortened(_ playlist: NamedPlaylist, among playlists: [NamedPlaylist]) -> String? {
        let start = String(playlist.name.prefix(ShellWords.longest))
        let others = playlists.filter { $0.id != playlist.id }
        let key = start.trimmingCharacters(in: .whitespaces).lowercased()
        let named = others.contains { $0.name.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix(key) }
        return named || (try? PlaylistRef.resolve(start, among: [playlist])) != .playlist(playlist.id) ? nil : start
    }

    /// The environment with the `--profile` the command line being completed names, if any; nil
    /// for a profile name timbre would refuse.
    static func profiled(_ environment: [String: String], words: [String]) -> [String: String]? {
        var environment = environment
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            if word == "--profile", words.index(after: index) < words.endIndex {
                environment["TIMBRE_PROFILE"] = words[words.index(after: index)]
            } else if word.hasPrefix("--profile=") {
                environment["TIMBRE_PROFILE"] = String(word.dropFirst("--profile=".count))
            }
            index = words.index(after: index)
        }
        return (try? ProfileName.from(environment: environment)) == nil ? nil : environment
    }
}
