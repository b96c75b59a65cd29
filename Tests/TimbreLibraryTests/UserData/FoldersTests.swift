import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// Folder names are matched ignoring case, on a real SQLite file.
@Suite struct FoldersTests {
    private func withFolders(_ body: (Folders) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-folders-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try body(try UserData(path: dir.appendingPathComponent("timbre.sqlite").path).folders)
    }

    @Test func addMatchesANameIgnoringCase() throws {
        try withFolders { folders in
            try folders.create("Chill Out")
            try folders.perform(.add(playlistIDs: ["p1"], to: "chill out", createMissing: false))
            try folders.perform(.add(playlistIDs: ["p2"], to: " CHILL OUT ", createMissing: true))
            #expect(try folders.list().map(\.name) == ["Chill Out"], "no second folder made")
            #expect(try folders.list().first?.playlists == ["p1", "p2"])
            #expect(try folders.named("chill OUT") == "Chill Out")
            #expect(try folders.named("Chill") == nil)
        }
    }

    @Test func anExactSpellingWinsAndCreateRefusesACaseTwin() throws {
        try withFolders { folders in
            try folders.create("Road")
            #expect(throws: Folders.Problem.self) { try folders.create("road") }
            try folders.rename("ROAD", to: "road")
            #expect(try folders.list().map(\.name) == ["road"], "a folder may change its own case")
            try folders.delete("Road")
            #expect(try folders.list().isEmpty)
        }
    }

    @Test func aNameThatMatchesNothingSaysSoAndChangesNothing() throws {
        try withFolders { folders in
            try folders.create("Jazz")
            let problem = #expect(throws: Folders.Problem.self) { try folders.add(["p1"], to: "Jaz") }
            #expect(problem?.message.contains("no folder “Jaz”") == true)
            #expect(problem?.hint?.contains("folder create") == true)
            #expect(try folders.list().first?.playlists == [])
        }
    }
}
