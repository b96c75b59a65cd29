import TimbreCore
import TimbreLibrary

/// `timbre duplicates [REF...]`: offline, the tracks found in more than one of the named (default:
/// every cached) playlists, with where (positions counted from 1, as `timbre tracks` shows them).
public struct DuplicatesCommand: Sendable {
    public var refs: [String]
    public var json: Bool

    public init(refs: [String], json: Bool) {
        self.refs = refs
        self.json = json
    }

    struct Found {
        var entry: CachedEntry
        var places: [(id: String, name: String, positions: [Int])] = []
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let wanted = try refs.map { try invocation.playlistRef($0) }
        let context = try invocation.context()
        guard let cache = try context.existingCache() else {
            if json { context.console.json(.array([])) }
            context.console.warning("the cache is empty — run `timbre sync` first")
            return .success
        }
        let playlists = try cache.playlists().filter { playlist in
            wanted.isEmpty ? playlist.id != CachedPlaylist.likedID : wanted.contains { $0.description == playlist.id }
        }
        var found: [String: Found] = [:]
        var order: [String] = []
        for playlist in playlists {
            let ref: PlaylistRef = playlist.id == CachedPlaylist.likedID ? .liked : (SpotifyID(playlist.id).map(PlaylistRef.playlist) ?? .liked)
            var here: [String: [Int]] = [:]
            var first: [String: CachedEntry] = [:]
            for entry in try cache.entries(of: ref) ?? [] where !entry.uri.isEmpty {
                here[entry.uri, default: []].append(entry.number)
                if first[entry.uri] == nil { first[entry.uri] = entry }
            }
            for (uri, positions) in here.sorted(by: { $0.value[0] < $1.value[0] }) {
                if found[uri] == nil, let entry = first[uri] {
                    found[uri] = Found(entry: entry)
                    order.append(uri)
                }
                found[uri]?.places.append((playlist.id, playlist.name, positions))
            }
        }
        let shared = order.compactMap { found[$0] }.filter { $0.places.count > 1 }
        if json {
            context.console.json(
                .array(
                    shared.map { item in
                        .object([
                            ("uri", .string(item.entry.uri)), ("name", .string(item.entry.name)),
                            ("artists", .array(item.entry.artists.map(JSONValue.string))),
                            (
                                "playlists",
                                .array(
                                    item.places.map { place in
                                        .object([
                                            ("id", .string(place.id)), ("name", .string(place.name)), ("positions", .array(place.positions.map(JSONValue.int))),
                                        ])
                                    })
                            ),
                        ])
                    }))
            return .success
        }
        context.console.lines(
            shared.map { item in
                let places = item.places.map { "\($0.name) (\($0.positions.map(String.init).joined(separator: ", ")))" }.joined(separator: "; ")
                return TerminalText.sanitize("\(item.entry.name) — \(item.entry.artists.joined(separator: ", ")): \(places)")
            })
        return .success
    }
}
