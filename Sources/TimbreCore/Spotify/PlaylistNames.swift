import Foundation

/// A cached playlist as a REF can name it: its id and its name.
public struct NamedPlaylist: Hashable, Sendable {
    public let id: SpotifyID
    public let name: String

    public init(id: SpotifyID, name: String) {
        self.id = id
        self.name = name
    }
}

extension PlaylistRef {
    /// A REF as a user types it: what `parse` reads (an ID, a URI, a link, `liked`), else
    /// `Liked Songs`, else the exact name of a cached playlist (case-insensitive), else a prefix
    /// of exactly one cached name. Two or more candidates: `AmbiguousPlaylistName` (exit 2,
    /// naming each with its id); none: `InvalidReference`. IDs win over names, so scripts that
    /// pass ids stay exact.
    public static func resolve(_ input: String, among playlists: [NamedPlaylist]) throws -> PlaylistRef {
        do {
            return try parse(input)
        } catch {
            let wanted = fold(input)
            if wanted.isEmpty { throw error }
            if wanted == "liked songs" { return .liked }
            let exact = playlists.filter { fold($0.name) == wanted }
            if exact.count == 1 { return .playlist(exact[0].id) }
            if exact.count > 1 { throw AmbiguousPlaylistName(input: input, candidates: exact) }
            let prefixed = playlists.filter { fold($0.name).hasPrefix(wanted) }
            if prefixed.count == 1 { return .playlist(prefixed[0].id) }
            if prefixed.count > 1 { throw AmbiguousPlaylistName(input: input, candidates: prefixed) }
            throw error
        }
    }

    /// The playlists that `resolve` finds by their whole name as it is: it is not read as an ID,
    /// URI, link or `liked`, is not blank or `Liked Songs`, and no other cached name folds to it.
    /// The rest can only be given by id (shell completion offers those by id).
    public static func resolvableByName(_ playlists: [NamedPlaylist]) -> Set<SpotifyID> {
        var counts: [String: Int] = [:]
        for playlist in playlists { counts[fold(playlist.name), default: 0] += 1 }
        return Set(
            playlists.filter { playlist in
                let folded = fold(playlist.name)
                return !folded.isEmpty && folded != "liked songs" && counts[folded] == 1 && (try? parse(playlist.name)) == nil
            }.map(\.id))
    }

    /// Names compare case-insensitively, with surrounding spaces ignored.
    static func fold(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).lowercased()
    }
}

/// A name or prefix that fits more than one cached playlist.
public struct AmbiguousPlaylistName: UserFacingError, Equatable {
    public let input: String
    public let candidates: [NamedPlaylist]

    public var message: String {
        let lines = candidates.prefix(20).map { "  \(TerminalText.preview($0.name, limit: 60))  \($0.id.rawValue)" }
        let more = candidates.count > 20 ? ["  … and \(candidates.count - 20) more"] : []
        return (["'\(TerminalText.preview(input, limit: 80))' fits \(candidates.count) cached playlists:"] + lines + more)
            .joined(separator: "\n")
    }
    public var hint: String? { "give more of the name, or the id" }
    public var exitStatus: ExitStatus { .usage }
}
