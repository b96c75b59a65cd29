import TimbreCore

extension SpotifyID {
    /// A test fixture's playlist id (22 characters, as Spotify's); one that is not stops the test.
    public static func test(_ text: String) -> SpotifyID {
        guard let id = SpotifyID(text) else { preconditionFailure("“\(text)” is not a Spotify id: fixtures use 22 letters and digits") }
        return id
    }
}
