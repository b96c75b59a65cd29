import Foundation
import Testing

@testable import SandboxCore

@Suite struct LibraryTests {
    @Test func sameSeedSameLibrary() {
        let a = Library(size: .medium, seed: 42).canonicalModel()
        let b = Library(size: .medium, seed: 42).canonicalModel()
        #expect(a == b)
        #expect(a.serialized() == b.serialized())
    }

    @Test func differentSeedDifferentLibrary() {
        let a = Library(size: .small, seed: 1)
        let b = Library(size: .small, seed: 2)
        #expect(a.playlists.map(\.id) != b.playlists.map(\.id))
        #expect(a.canonicalModel() != b.canonicalModel())
    }

    @Test(arguments: LibrarySize.allCases)
    func everySizeCarriesEveryQuirk(size: LibrarySize) throws {
        let library = Library(size: size, seed: 42)
        let all = library.playlists.flatMap(\.entries)
        for kind: Entry.Kind in [.null, .local, .episode, .malformed] {
            #expect(all.contains { $0.kind == kind }, "\(size) lacks \(kind)")
        }
        #expect(all.contains { $0.addedAt == nil })
        #expect(library.playlists.contains { $0.entries.isEmpty })
        #expect(library.playlists.contains { $0.collaborative })
        #expect(library.playlists.contains { !$0.readableInDevelopmentMode })
        #expect(library.playlists.contains { !$0.hasImages })
        #expect(library.playlists.contains { $0.description == nil })
        #expect(library.playlists.contains { library.users[$0.owner].displayName == nil })
        let duplicated = library.playlists.contains { playlist in
            let refs = playlist.entries.filter { $0.kind == .track }.map(\.ref)
            return Set(refs).count < refs.count
        }
        #expect(duplicated)

        let names =
            library.playlists.map(\.name)
            + library.playlists.flatMap { $0.entries.filter { $0.kind == .track }.map { library.pool.track(Int($0.ref)).name } }
        for needle in [
            "🎶", "夜", "حبيبي", "שיר", "e\u{301}", "\"", "\n", "\t", "'); DROP TABLE playlists;--",
            "\u{1B}]0;pwned\u{07}", "\u{1B}[31m", "\u{9B}",
        ] {
            #expect(
                names.contains { $0.unicodeScalars.map(String.init).joined().contains(needle) || $0.contains(needle) },
                "\(size) lacks a name with \(needle.debugDescription)")
        }
        #expect(names.contains { $0.count >= 10_000 })
        #expect(library.playlists.allSatisfy { SpotifyID.isValid($0.id) })
    }

    /// How long generation takes is scripts/bench.sh's business (the large library is its input);
    /// here only what it generates.
    @Test func largeLibraryCounts() {
        let library = Library(size: .large, seed: 42)
        let snapshots = library.playlists.map(\.snapshotID)
        #expect(library.playlists.count == 500)
        #expect(library.totalItems == 200_000)
        #expect(library.liked.count == 5_000)
        #expect(library.playlists.contains { $0.entries.count == 10_000 })
        #expect(Set(snapshots).count == snapshots.count)
    }

    @Test func mediumSizesAndReadableStart() {
        let library = Library(size: .medium, seed: 42)
        #expect(library.playlists.count == 60)
        #expect(library.totalItems == 6_000)
        #expect(library.liked.count == 800)
        for playlist in library.playlists.prefix(5) {
            #expect(playlist.name.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
            #expect(playlist.owner == 0)
        }
    }

    @Test func catalogIdsAreValidAndLocalURIsFormEncoded() {
        let library = Library(size: .small, seed: 42)
        for entry in library.playlists.flatMap(\.entries) {
            switch entry.kind {
            case .track: #expect(SpotifyID.isValid(library.pool.track(Int(entry.ref)).id))
            case .malformed: #expect(!SpotifyID.isValid(library.pool.malformedID(Int(entry.ref))))
            case .episode: #expect(SpotifyID.isValid(library.pool.episode(Int(entry.ref)).id))
            case .local: #expect(library.pool.local(Int(entry.ref)).uri.hasPrefix("spotify:local:"))
            case .null, .foreign: break  // a generated library has no foreign entries
            }
        }
        #expect(library.pool.local(0).uri == "spotify:local:Local+Artist:Home+Tapes:My+Song:123")
    }

    /// Writes need both kinds in every size: playlists the user may change (their own, public and
    /// private, with entries; a collaborative one owned by someone else) and ones they only follow.
    @Test(arguments: LibrarySize.allCases)
    func everySizeHasPlaylistsTheUserCanAndCannotEdit(size: LibrarySize) {
        let library = Library(size: size, seed: 42)
        #expect(library.playlists.contains { $0.owner == 0 && $0.isPublic && !$0.entries.isEmpty })
        #expect(library.playlists.contains { $0.owner == 0 && !$0.isPublic && !$0.entries.isEmpty })
        #expect(library.playlists.contains { $0.owner != 0 && $0.collaborative && $0.editable })
        #expect(library.playlists.contains { $0.owner != 0 && !$0.editable && $0.isPublic })
        #expect(library.playlists.filter { !$0.editable }.count >= 2)
    }

    @Test func snapshotsFollowEntriesNotNames() {
        var playlist = Library(size: .small, seed: 42).playlists[0]
        let before = playlist.snapshotID
        playlist.name = "Renamed"
        playlist.isPublic.toggle()
        #expect(playlist.snapshotID == before)
        playlist.version += 1
        #expect(playlist.snapshotID != before)
    }

    @Test func urisParseAndPrintCanonically() {
        let id = "4uLU6hMCjMI75M1A2tKUQC"
        #expect(ItemURI(parsing: "spotify:track:\(id)") == .track(id))
        #expect(ItemURI(parsing: "spotify:episode:\(id)") == .episode(id))
        #expect(ItemURI(parsing: "spotify:playlist:\(id)") == .playlist(id))
        #expect(ItemURI(parsing: "spotify:album:\(id)") == .other(kind: "album", id: id))
        #expect(ItemURI(parsing: "spotify:track:short") == nil)
        #expect(ItemURI(parsing: "spotify:track:\(id):extra") == nil)
        #expect(ItemURI(parsing: "https://open.spotify.com/track/\(id)") == nil)
        #expect(ItemURI(parsing: "spotify:local:a:b:c:x") == nil)
        let local = ItemURI(parsing: "spotify:local:Caf%C3%A9+Band::Song%3A+Two:61")
        #expect(local == .local(Pool.LocalFile(artist: "Café Band", album: "", title: "Song: Two", seconds: 61)))
        #expect(local?.text == "spotify:local:Caf%C3%A9+Band::Song%3A+Two:61")
    }

    @Test func snapshotChangesWithContent() {
        var playlist = Library(size: .small, seed: 42).playlists[0]
        let before = playlist.snapshotID
        #expect(before.count == 32)
        playlist.entries.removeFirst()
        #expect(playlist.snapshotID != before)
    }

    @Test func isoDates() {
        #expect(ISODate.format(0) == "1970-01-01T00:00:00Z")
        #expect(ISODate.format(1_704_067_200) == "2024-01-01T00:00:00Z")
        #expect(ISODate.format(951_782_400 + 3_661) == "2000-02-29T01:01:01Z")
    }
}
