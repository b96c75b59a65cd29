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

    /// Cached playlist names and ids, and `liked`, that start with `prefix` (case-insensitively).
    public static func playlists(words: [String], prefix: String, environment: [String: String]) -> [String] {
        guard let environment = profiled(environment, words: words) else { return [] }
        let invocation = Invocation(console: Console.buffered().0, environment: environment)
        let named = (try? invocation.cachedPlaylistNames()) ?? []
        let candidates = ["liked"] + named.map(\.name) + named.map(\.id.rawValue)
        return matching(candidates, prefix)
    }

    /// The local folders' names that start with `prefix`.
    public static func folders(words: [String], prefix: String, environment: [String: String]) -> [String] {
        guard let environment = profiled(environment, words: words) else { return [] }
        let paths = Paths.resolve(environment: environment)
        guard let folders = (try? UserData.existing(path: paths.data))??.folders else { return [] }
        return matching(((try? folders.list()) ?? []).map(\.name), prefix)
    }

    static func matching(_ candidates: [String], _ prefix: String) -> [String] {
        let wanted = prefix.lowercased()
        var seen = Set<String>()
        return candidates.filter { candidate in
            // A name the shell would show as two words or with escapes is offered as it is; bash
            // and zsh quote it when they insert it.
            !candidate.contains("\n") && candidate.lowercased().hasPrefix(wanted) && seen.insert(candidate).inserted
        }
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
