/// A refused edit: the Web API status and message to answer with.
public struct EditError: Error, Equatable, Sendable {
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// The library's write operations, as the Web API's write endpoints apply them. Pure value
/// changes: permission and scope checks are the HTTP layer's (SandboxService+Writes).
extension Library {
    /// Spotify's cap on a playlist's length.
    public static let maxEntries = 10_000

    /// The URI an entry stands for (as the dump and the API write it); nil for `item: null`.
    public func uri(of entry: Entry) -> String? {
        let index = Int(entry.ref)
        switch entry.kind {
        case .track: return "spotify:track:" + pool.trackID(index)
        case .malformed: return "spotify:track:" + pool.malformedID(index)
        case .local: return pool.local(index).uri
        case .episode: return "spotify:episode:" + pool.episodeID(index)
        case .foreign: return index < foreign.count ? foreign[index].uri : nil
        case .null: return nil
        }
    }

    /// The entry a playlist-item URI becomes: a pool ref when the pool has it, else a `foreign`
    /// ref (recorded once per URI). nil for URIs a playlist cannot hold.
    mutating func entry(for uri: ItemURI, catalog: Catalog, addedAt: Int64) -> Entry? {
        switch uri {
        case let .track(id):
            if let index = catalog.trackIndex(id: id) { return Entry(kind: .track, ref: index, addedAt: addedAt) }
            return Entry(kind: .foreign, ref: foreignRef(.track(id)), addedAt: addedAt)
        case let .episode(id):
            if let index = catalog.episodeIndex(id: id) { return Entry(kind: .episode, ref: index, addedAt: addedAt) }
            return Entry(kind: .foreign, ref: foreignRef(.episode(id)), addedAt: addedAt)
        case let .local(file):
            if let index = catalog.localIndex(uri: file.uri) { return Entry(kind: .local, ref: index, addedAt: addedAt) }
            return Entry(kind: .foreign, ref: foreignRef(.local(file)), addedAt: addedAt)
        case .playlist, .other:
            return nil
        }
    }

    private mutating func foreignRef(_ item: ForeignItem) -> Int {
        if let ref = foreignRefs[item.uri] { return Int(ref) }
        foreign.append(item)
        foreignRefs[item.uri] = Int32(foreign.count - 1)
        return foreign.count - 1
    }

    // MARK: Playlist entries

    /// Inserts `uris` in order at `position` (nil: the end); 400 "Index out of bounds" outside
    /// 0…count, 400 "Playlist size limit reached" past 10,000 entries.
    mutating func insert(_ uris: [ItemURI], into place: Place, at position: Int?, catalog: Catalog, now: Int64) throws(EditError) {
        let count = self[place].entries.count
        let at = position ?? count
        guard (0...count).contains(at) else { throw EditError(400, "Index out of bounds") }
        guard count + uris.count <= Library.maxEntries else { throw EditError(400, "Playlist size limit reached") }
        let entries = uris.compactMap { entry(for: $0, catalog: catalog, addedAt: now) }
        self[place].entries.insert(contentsOf: entries, at: at)
        self[place].version += 1
    }

    /// Removes every entry whose URI is one of `uris` (Spotify has no positional removal).
    mutating func remove(_ uris: [ItemURI], from place: Place) {
        let doomed = Set(uris.map(\.text))
        let library = self
        self[place].entries.removeAll { entry in library.uri(of: entry).map(doomed.contains) ?? false }
        self[place].version += 1
    }

    /// Moves `rangeLength` entries from `rangeStart` to before `insertBefore`, both counted in
    /// the order before the move.
    mutating func reorder(_ place: Place, rangeStart: Int, insertBefore: Int, rangeLength: Int) throws(EditError) {
        self[place].entries = try Library.moving(self[place].entries, rangeStart: rangeStart, insertBefore: insertBefore, rangeLength: rangeLength)
        self[place].version += 1
    }

    /// Spotify's reorder on any list: 400 "Index out of bounds" when the range or the insertion
    /// point falls outside the list, 400 "Invalid range_length" below 1. An insertion point inside
    /// the range leaves the order as it was.
    public static func moving<T>(_ items: [T], rangeStart: Int, insertBefore: Int, rangeLength: Int) throws(EditError) -> [T] {
        guard rangeLength >= 1 else { throw EditError(400, "Invalid range_length") }
        guard rangeStart >= 0, rangeStart <= items.count - rangeLength, (0...items.count).contains(insertBefore) else {
            throw EditError(400, "Index out of bounds")
        }
        let range = rangeStart..<(rangeStart + rangeLength)
        let block = items[range]
        var rest = items
        rest.removeSubrange(range)
        let target: Int
        if insertBefore <= rangeStart {
            target = insertBefore
        } else if insertBefore >= range.upperBound {
            target = insertBefore - rangeLength
        } else {
            target = rangeStart
        }
        rest.insert(contentsOf: block, at: target)
        return rest
    }

    /// Replaces every entry with `uris` (added now); an empty list clears the playlist.
    mutating func replace(_ place: Place, with uris: [ItemURI], catalog: Catalog, now: Int64) {
        self[place].entries = uris.compactMap { entry(for: $0, catalog: catalog, addedAt: now) }
        self[place].version += 1
    }

    // MARK: Playlists

    /// A new empty playlist owned by the user, listed first in `/me/playlists`.
    mutating func createPlaylist(name: String, description: String?, isPublic: Bool, collaborative: Bool) -> Playlist {
        let playlist = Playlist(
            id: nextCreatedID(), name: name, description: description, owner: 0, collaborative: collaborative,
            isPublic: isPublic, hasImages: false, followers: 0, entries: [], version: 0
        )
        playlists.insert(playlist, at: 0)
        return playlist
    }

    /// Deletes a playlist outright, followed or not: afterwards it answers 404 everywhere (the
    /// `delete_playlist` fault; unlike `unfollow`, which keeps it readable by id).
    mutating func delete(_ id: String) {
        playlists.removeAll { $0.id == id }
        unfollowed.removeAll { $0.id == id }
    }

    /// Follows a playlist again (listed first) or keeps it where it is when followed already.
    mutating func follow(_ id: String) {
        guard case let .unfollowed(index)? = place(of: id) else { return }
        var playlist = unfollowed.remove(at: index)
        playlist.followers += 1
        playlists.insert(playlist, at: 0)
    }

    /// Unfollows (for the owner: deletes) a playlist: it leaves `/me/playlists` but stays
    /// readable, editable and followable by id.
    mutating func unfollow(_ id: String) {
        guard case let .followed(index)? = place(of: id) else { return }
        var playlist = playlists.remove(at: index)
        playlist.followers = max(0, playlist.followers - 1)
        unfollowed.insert(playlist, at: 0)
    }

    // MARK: Liked songs and saved episodes

    /// Saves tracks (Liked Songs) and episodes (Your Episodes): new ones go on top, in the order
    /// given, added now; one already saved stays where it is.
    mutating func save(_ uris: [ItemURI], catalog: Catalog, now: Int64) {
        var newTracks: [Entry] = [], newEpisodes: [Entry] = []
        var seen = Set<String>()
        for uri in uris where seen.insert(uri.text).inserted && !isSaved(uri) {
            switch uri {
            case .track: if let entry = entry(for: uri, catalog: catalog, addedAt: now) { newTracks.append(entry) }
            case .episode: if let entry = entry(for: uri, catalog: catalog, addedAt: now) { newEpisodes.append(entry) }
            default: break
            }
        }
        liked.insert(contentsOf: newTracks, at: 0)
        savedEpisodes.insert(contentsOf: newEpisodes, at: 0)
    }

    /// Removes tracks from Liked Songs and episodes from Your Episodes (every copy).
    mutating func unsave(_ uris: [ItemURI]) {
        let doomed = Set(uris.map(\.text))
        let library = self
        liked.removeAll { library.uri(of: $0).map(doomed.contains) ?? false }
        savedEpisodes.removeAll { library.uri(of: $0).map(doomed.contains) ?? false }
    }

    /// Whether a track is liked, an episode saved, a playlist followed.
    public func isSaved(_ uri: ItemURI) -> Bool {
        switch uri {
        case .track: return liked.contains { self.uri(of: $0) == uri.text }
        case .episode: return savedEpisodes.contains { self.uri(of: $0) == uri.text }
        case let .playlist(id): return isFollowed(id)
        case .local, .other: return false
        }
    }
}
