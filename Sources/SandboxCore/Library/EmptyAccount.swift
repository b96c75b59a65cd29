/// Who the signed-in user is (`timbre-sandbox serve --account`).
public enum SandboxAccount: String, CaseIterable, Sendable {
    /// The generated library's listener: owns, follows and likes what the generator made.
    case `default`
    /// A second, empty account on the same service: it owns, follows and likes nothing. The
    /// generated playlists belong to the first listener (`sandbox_user`, now users[last]) and stay
    /// readable and followable by id, the catalogue is the same — what a restore into a new account
    /// meets on Spotify (docs/SANDBOX.md).
    case empty
}

extension Library {
    /// The id of the empty account's user unless `--user-id` names another.
    public static let emptyAccountUserID = "sandbox_second_user"

    /// Makes the signed-in user a new one with an empty library: the generated listener becomes an
    /// ordinary other user who owns its playlists (and added their entries); every playlist leaves
    /// `/me/playlists` but stays readable, writable by its owner and followable by id; Liked Songs
    /// and saved episodes are empty.
    public mutating func makeAccountEmpty() {
        let previous = users.count
        users.append(users[0])
        users[0] = User(id: Self.emptyAccountUserID, displayName: "Second Listener")
        func handOver(_ playlist: inout Playlist) {
            if playlist.owner == 0 { playlist.owner = previous }
            for index in playlist.entries.indices where playlist.entries[index].addedBy == 0 {
                playlist.entries[index].addedBy = Int8(truncatingIfNeeded: previous)
            }
        }
        for index in playlists.indices { handOver(&playlists[index]) }
        for index in unfollowed.indices { handOver(&unfollowed[index]) }
        unfollowed = playlists + unfollowed
        playlists = []
        liked = []
        savedEpisodes = []
    }
}
