import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// The user data's one owner (`UserData`): one queue with a busy timeout, shared by the journal and
/// the folders, on a real SQLite file.
@Suite struct UserDataTests {
    /// The journal and the folders of one `UserData` share its queue: a folder edit inside the
    /// process opens no connection of its own.
    @Test func theJournalAndTheFoldersShareOneQueue() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-userdata-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let shared = SharedUserData(path: dir.appendingPathComponent("data/timbre.sqlite").path)
        #expect(try shared.existing() == nil, "reading creates nothing")
        let data = try shared.open()
        #expect(try shared.existing() === data)
        try data.folders.create("A")
        #expect(data.journal.path == data.folders.path)
        #expect(try shared.open().folders.list().map(\.name) == ["A"])
    }
}
