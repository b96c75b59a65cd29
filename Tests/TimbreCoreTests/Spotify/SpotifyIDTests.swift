import Testing

@testable import TimbreCore

@Suite struct SpotifyIDTests {
    @Test(arguments: [
        ("37i9dQZF1DXcBWIGoYBM5M", "37i9dQZF1DXcBWIGoYBM5M"),
        ("spotify:playlist:37i9dQZF1DXcBWIGoYBM5M", "37i9dQZF1DXcBWIGoYBM5M"),
        ("https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M?si=abc123", "37i9dQZF1DXcBWIGoYBM5M"),
        ("https://open.spotify.com/intl-de/playlist/37i9dQZF1DXcBWIGoYBM5M", "37i9dQZF1DXcBWIGoYBM5M"),
        ("liked", "liked"),
    ])
    func acceptsEveryDocumentedForm(_ input: String, _ expected: String) throws {
        #expect(try PlaylistRef.parse(input).description == expected)
    }

    @Test(arguments: [
        "", "37i9dQZF1DXcBWIGoYBM5", "37i9dQZF1DXcBWIGoYBM5MX", "37i9dQZF1DXcBWIGoYBM5-",
        "spotify:track:37i9dQZF1DXcBWIGoYBM5M", "http://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M",
        "https://evil.example/playlist/37i9dQZF1DXcBWIGoYBM5M", "'); DROP TABLE playlists;--",
        "37i9dQZF1DXcBWIGoYBM5Ｍ", "../../etc/passwd", "\u{1B}]0;pwned\u{07}",
    ])
    func rejectsEverythingElse(_ input: String) {
        #expect(throws: InvalidReference.self) { try PlaylistRef.parse(input) }
    }

    @Test func errorIsAUsageErrorWithoutRawEscapes() {
        let error = InvalidReference(input: "\u{1B}]0;x\u{07}")
        #expect(error.exitStatus == .usage)
        #expect(!error.message.contains("\u{1B}"))
    }
}
