import TimbreCore

/// A playlist's details as `PUT /playlists/{id}` takes them; nil leaves one as it is.
public struct PlaylistDetails: Equatable, Sendable, Codable {
    public var name: String?
    public var description: String?
    public var isPublic: Bool?
    public var collaborative: Bool?

    public init(name: String? = nil, description: String? = nil, isPublic: Bool? = nil, collaborative: Bool? = nil) {
        self.name = name
        self.description = description
        self.isPublic = isPublic
        self.collaborative = collaborative
    }

    public var isEmpty: Bool { name == nil && description == nil && isPublic == nil && collaborative == nil }
}

/// Changing a playlist's details: the old values of what changes are kept, so an undo puts them
/// back. `PUT` is idempotent: an interrupted one is finished by sending it again.
public struct DetailsEdit: Equatable, Sendable, Codable {
    public var playlist: SpotifyID
    public var old: PlaylistDetails
    public var new: PlaylistDetails

    public init(playlist: SpotifyID, old: PlaylistDetails, new: PlaylistDetails) {
        self.playlist = playlist
        self.old = old
        self.new = new
    }

    public var inverse: DetailsEdit { DetailsEdit(playlist: playlist, old: new, new: old) }
}
