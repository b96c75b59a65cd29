/// One write to a playlist's entries, as Spotify's 2026 endpoints take it, and what it does to
/// the list of entry URIs — Spotify's semantics, quirks included.
public enum EntryWrite: Equatable, Sendable, Codable {
    /// `POST /playlists/{id}/items` {uris, position}: inserts `uris` in order before `position`.
    case add(uris: [String], position: Int)
    /// `DELETE /playlists/{id}/items` {items: [{uri}]}: removes EVERY copy of each URI — there is
    /// no positional removal.
    case removeEvery(uris: [String])
    /// `PUT /playlists/{id}/items` {range_start, insert_before, range_length}: `insertBefore`
    /// counts positions before the move.
    case reorder(start: Int, insertBefore: Int, length: Int)
    /// `PUT /playlists/{id}/items` {uris}: the playlist becomes exactly `uris` (at most 100; the
    /// rest follow as adds). Every entry gets a new added date.
    case replace(uris: [String])

    /// Spotify's limit on URIs per add or remove request.
    public static let maxURIs = 100

    /// `list` after Spotify applied this write; nil when Spotify would refuse it (out of range).
    public func applied(to list: [String]) -> [String]? {
        switch self {
        case .add(let uris, let position):
            guard (0...list.count).contains(position), uris.count <= Self.maxURIs else { return nil }
            var result = list
            result.insert(contentsOf: uris, at: position)
            return result
        case .removeEvery(let uris):
            guard uris.count <= Self.maxURIs else { return nil }
            let gone = Set(uris)
            return list.filter { !gone.contains($0) }
        case .reorder(let start, let insertBefore, let length):
            guard length >= 1, start >= 0, start + length <= list.count, (0...list.count).contains(insertBefore) else { return nil }
            // Inside the range (or at its end) nothing moves.
            if insertBefore >= start && insertBefore <= start + length { return list }
            var result = list
            let range = Array(result[start..<start + length])
            result.removeSubrange(start..<start + length)
            let target = insertBefore > start ? insertBefore - length : insertBefore
            result.insert(contentsOf: range, at: target)
            return result
        case .replace(let uris):
            guard uris.count <= Self.maxURIs else { return nil }
            return uris
        }
    }

    /// Whether sending it twice would do something else than sending it once.
    public var isRepeatable: Bool {
        if case .removeEvery = self { return true }
        return false
    }
}
