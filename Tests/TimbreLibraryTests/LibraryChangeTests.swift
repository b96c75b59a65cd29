import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// `LibraryChange`: what it checks before anything is read or sent, and the names it gives.
@Suite struct LibraryChangeTests {
    static let id = SpotifyID("37i9dQZF1DXcBWIGoYBM5M")!

    @Test func aNameIsOneTo1000CharactersForEveryWayOfNamingAPlaylist() throws {
        let long = String(repeating: "n", count: 1_001)
        for change in [LibraryChange.create(PlaylistDetails(name: long)), .details(Self.id, PlaylistDetails(name: long))] {
            #expect(throws: InvalidEdit.self) { try change.validated() }
        }
        #expect(throws: InvalidEdit(message: "a playlist needs a name of 1 to 1,000 characters", hint: nil)) {
            try LibraryChange.create(PlaylistDetails(name: "  \n")).validated()
        }
        #expect(throws: InvalidEdit(message: "a playlist name cannot be empty", hint: nil)) {
            try LibraryChange.details(Self.id, PlaylistDetails(name: " ")).validated()
        }
        #expect(try LibraryChange.create(PlaylistDetails(name: "  Road Trip ")).validated() == .create(PlaylistDetails(name: "Road Trip")))
        let exactly = String(repeating: "n", count: 1_000)
        #expect(try LibraryChange.create(PlaylistDetails(name: exactly)).validated() == .create(PlaylistDetails(name: exactly)))
    }

    @Test func spotifysRulesThatNeedNoRequestAreCheckedFirst() throws {
        #expect(throws: InvalidEdit.self, "collaborative only when private") {
            try LibraryChange.create(PlaylistDetails(name: "Shared", isPublic: true, collaborative: true)).validated()
        }
        _ = try LibraryChange.create(PlaylistDetails(name: "Shared", isPublic: false, collaborative: true)).validated()
        #expect(throws: InvalidEdit.self, "no local file in an add") {
            try LibraryChange.entries(Self.id, .add(uris: ["spotify:track:4uLU6hMCjMI75M1A2tKUQC", "spotify:local:a:b:c:1"], position: nil)).validated()
        }
        #expect(throws: InvalidEdit.self) { try LibraryChange.details(Self.id, PlaylistDetails()).validated() }
        #expect(throws: InvalidEdit.self) { try LibraryChange.like([]).validated() }
        #expect(throws: InvalidEdit.self) { try LibraryChange.delete([]).validated() }
    }

    @Test func eachChangeNamesItsOperation() {
        let cases: [(LibraryChange, String)] = [
            (.entries(Self.id, .add(uris: [], position: nil)), "add"), (.entries(Self.id, .removePositions([1])), "remove"),
            (.entries(Self.id, .removeURIs(["u"])), "remove"), (.entries(Self.id, .move(start: 0, length: 1, to: 2)), "move"),
            (.entries(Self.id, .shuffle), "shuffle"), (.entries(Self.id, .sort(.title, reverse: false)), "sort"),
            (.entries(Self.id, .dedupe(fuzzy: true)), "dedupe"), (.like(["u"]), "like"), (.unlike(["u"]), "unlike"),
            (.follow([Self.id]), "follow"), (.delete([Self.id]), "delete"), (.create(PlaylistDetails(name: "n")), "create"),
            (.details(Self.id, PlaylistDetails(name: "n")), "edit"), (.folder(.create("F")), "folder"), (.undo(), "undo"), (.redo(), "redo"),
        ]
        for (change, name) in cases { #expect(change.operation.rawValue == name) }
    }

    /// A folder change runs on a real user-data file and never builds the editor (no sign-in).
    @Test func aFolderChangeNeedsNoEditor() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-change-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("data/timbre.sqlite").path
        let userData = try UserData(path: path)
        let library = Library(folders: { userData.folders }, editor: { throw InvalidEdit(message: "no editor in this test", hint: nil) })
        _ = try await library.perform(.folder(.add(playlistIDs: ["a"], to: "Road", createMissing: true)))
        await #expect(throws: Folders.Problem.self) { try await library.perform(.folder(.add(playlistIDs: ["b"], to: "Other", createMissing: false))) }
        _ = try await library.perform(.folder(.create("Other")), dryRun: true)
        let folders = try userData.folders.list()
        #expect(folders.map(\.name) == ["Road"] && folders.first?.playlists == ["a"], "a dry run changes nothing")
        await #expect(throws: InvalidEdit.self) { try await library.perform(.undo()) }
    }
}
