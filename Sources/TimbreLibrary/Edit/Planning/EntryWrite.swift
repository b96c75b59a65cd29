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

    /// The URIs these writes put into a list (adds, and a rewrite's).
    public static func added(by writes: [EntryWrite]) -> Set<String> {
        var added = Set<String>()
        for case .add(let uris, _) in writes { added.formUnion(uris) }
        for case .replace(let uris) in writes { added.formUnion(uris) }
        return added
    }

    /// Spotify's limit on URIs per add or remove request.
    public static let maxURIs = 100

    /// `list` after Spotify applied this write; nil when Spotify would refuse it (out of range).
    public func applied(to list: [String]) -> [String]? {
        var result = list
        return apply(to: &result) ? result : nil
    }

    /// A move as people and `EntryChange.move` say it — `length` entries from `start`, so that
    /// the first ends at index `to` of the result — as Spotify's reorder write.
    public static func move(start: Int, length: Int, to: Int) -> EntryWrite {
        .reorder(start: start, insertBefore: to < start ? to : to + length, length: length)
    }

    /// Applies the write to `list` in place (no copy of a long list per write, which planning
    /// thousands of moves would otherwise make); false, and `list` unchanged, when Spotify would
    /// refuse it (out of range).
    public func apply(to list: inout [String]) -> Bool {
        apply(to: &list, uri: { $0 }, new: { $0 })
    }

    /// The one simulation of Spotify's writes, on any list whose elements name a URI: the
    /// planner's lists of URIs, the cache's rows an edit derives, the interface's rows ahead of
    /// the server. `new` makes the element an add puts in.
    public func apply<Element>(to list: inout [Element], uri: (Element) -> String, new: (String) -> Element) -> Bool {
        switch self {
        case .add(let uris, let position):
            guard (0...list.count).contains(position), uris.count <= Self.maxURIs else { return false }
            list.insert(contentsOf: uris.map(new), at: position)
        case .removeEvery(let uris):
            guard uris.count <= Self.maxURIs else { return false }
            let gone = Set(uris)
            list.removeAll { gone.contains(uri($0)) }
        case .reorder:
            return reorder(&list)
        case .replace(let uris):
            guard uris.count <= Self.maxURIs else { return false }
            list = uris.map(new)
        }
        return true
    }

    /// A reorder on a list of anything (rows, positions, marks) — what Spotify does with the
    /// entries; false, and `list` unchanged, for another write or out of range.
    public func reorder<Element>(_ list: inout [Element]) -> Bool {
        guard case .reorder(let start, let insertBefore, let length) = self, length >= 1, start >= 0, start + length <= list.count,
            (0...list.count).contains(insertBefore)
        else { return false }
        // Inside the range (or at its end) nothing moves.
        if insertBefore >= start && insertBefore <= start + length { return true }
        let range = Array(list[start..<start + length])
        list.removeSubrange(start..<start + length)
        list.insert(contentsOf: range, at: insertBefore > start ? insertBefore - length : insertBefore)
        return true
    }
}
