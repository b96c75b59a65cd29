import Testing

@testable import TimbreCore

/// `PlaylistRef.resolve`: names and prefixes of cached playlists, after ids, URIs, links and `liked`.
@Suite struct PlaylistNameTests {
    static func named(_ name: String, _ id: String) -> NamedPlaylist {
        guard let id = SpotifyID(id) else { preconditionFailure("test id \(id) is not 22 characters") }
        return NamedPlaylist(id: id, name: name)
    }

    let roadTrip = named("Road Trip 2024", "1111111111111111111111")
    let roadhouse = named("Roadhouse Blues", "2222222222222222222222")
    let focus = named("Focus", "3333333333333333333333")
    let focusDeep = named("Focus Deep", "4444444444444444444444")
    var library: [NamedPlaylist] { [roadTrip, roadhouse, focus, focusDeep] }

    @Test func anExactNameInAnyCaseNamesItsPlaylist() throws {
        #expect(try PlaylistRef.resolve("road trip 2024", among: library) == .playlist(roadTrip.id))
        #expect(try PlaylistRef.resolve("ROAD TRIP 2024", among: library) == .playlist(roadTrip.id))
        // "Focus" is also the start of "Focus Deep": the exact name wins.
        #expect(try PlaylistRef.resolve("focus", among: library) == .playlist(focus.id))
    }

    @Test func aUniquePrefixNamesItsPlaylist() throws {
        #expect(try PlaylistRef.resolve("road trip", among: library) == .playlist(roadTrip.id))
        #expect(try PlaylistRef.resolve("roadh", among: library) == .playlist(roadhouse.id))
        #expect(try PlaylistRef.resolve("focus d", among: library) == .playlist(focusDeep.id))
    }

    @Test func anAmbiguousPrefixListsTheCandidatesWithTheirIDs() {
        do {
            _ = try PlaylistRef.resolve("road", among: library)
            Issue.record("'road' fits two playlists")
        } catch let error as AmbiguousPlaylistName {
            #expect(error.exitStatus == .usage)
            #expect(error.candidates == [roadTrip, roadhouse])
            #expect(error.message.contains("  Road Trip 2024  1111111111111111111111"))
            #expect(error.message.contains("  Roadhouse Blues  2222222222222222222222"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func twoPlaylistsWithTheSameNameAreAmbiguous() {
        let twins = [Self.named("Mix", "5555555555555555555555"), Self.named("mix", "6666666666666666666666")]
        #expect(throws: AmbiguousPlaylistName.self) { try PlaylistRef.resolve("Mix", among: twins) }
    }

    @Test func idsURIsLinksAndLikedWinOverNames() throws {
        // A playlist named like another's id, or "liked", does not capture it.
        let tricky = [Self.named("3333333333333333333333", "7777777777777777777777"), Self.named("liked things", "8888888888888888888888")]
        #expect(try PlaylistRef.resolve("3333333333333333333333", among: tricky) == .playlist(focus.id))
        #expect(try PlaylistRef.resolve("liked", among: tricky) == .liked)
        #expect(try PlaylistRef.resolve("Liked Songs", among: tricky) == .liked)
        #expect(try PlaylistRef.resolve("spotify:playlist:1111111111111111111111", among: []) == .playlist(roadTrip.id))
    }

    @Test(arguments: ["nothing like it", "", "   ", "road trip 2024 and more"])
    func noMatchIsAnInvalidReference(_ input: String) {
        #expect(throws: InvalidReference.self) { try PlaylistRef.resolve(input, among: library) }
    }

    @Test func candidatesAreShownInertAndCapped() {
        let many = (0..<25).map { Self.named("Mix \u{1B}[31m\($0)", String(repeating: "\($0 % 10)", count: 22)) }
        do {
            _ = try PlaylistRef.resolve("mix", among: many)
            Issue.record("'mix' fits 25 playlists")
        } catch let error as AmbiguousPlaylistName {
            #expect(!error.message.contains("\u{1B}"))
            #expect(error.message.contains("… and 5 more"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
