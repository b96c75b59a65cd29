import Foundation
import Testing

@testable import TimbreLibrary
@testable import TimbreTUI

/// Warnings from background work: the status line, `:messages`, and nothing under curses.
@Suite(.serialized) struct MessagesTests {
    @Test func aMessageShowsInTheStatusLineAndTheList() {
        var state = TUIState()
        state.addMessage("Spotify issued a new refresh token\u{1B}[2J")
        #expect(state.messages == ["Spotify issued a new refresh token^[[2J"], "made inert once, on the way in")
        let status = Screen.statusText(state)
        #expect(status.contains("⚠ Spotify issued a new refresh token^[[2J (:messages)"))
        // An error outranks a warning in the status line; the list keeps both.
        state.status.lastError = "sync failed"
        #expect(!Screen.statusText(state).contains("⚠"))
    }

    @Test func messagesIsACommandWithAKeyAndAnOverlay() throws {
        #expect(try Command.parse("messages") == .messages)
        #expect(Command.messages.description == "messages")
        #expect(Command.names.contains("messages"))
        var state = TUIState()
        #expect(state.keymap.command(for: try #require(Key("M"))) == .messages)
        #expect(state.keymap.helpLines.contains { $0.command == "messages" }, "? lists it")
        state.addMessage("first")
        state.addMessage("second")
        state.apply(.messages)
        #expect(state.mode.kind == .messages)
        let screen = Screen.render(state, rows: 20, columns: 100).map { $0.map(\.text).joined() }
        #expect(screen[0].contains("Messages (2)"))
        #expect(screen.contains { $0.contains("  first") } && screen.contains { $0.contains("  second") })
        state.apply(.messages)
        #expect(state.mode.kind == .normal)
    }

    @Test func theListKeepsTheNewestTwoHundred() {
        var state = TUIState()
        for index in 0..<250 { state.addMessage("m\(index)") }
        #expect(state.messages.count == TUIState.messageLimit)
        #expect(state.messages.first == "m50" && state.messages.last == "m249")
    }

    @Test func theInboxHandsOverEachMessageOnce() async {
        let inbox = MessageInbox()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 { group.addTask { inbox.post("w\(index)") } }
        }
        #expect(Set(inbox.take()) == Set((0..<100).map { "w\($0)" }))
        #expect(inbox.take().isEmpty)
    }

    @Test func aMalformedPlaylistIDOpensNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-tui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try LibraryCache.open(path: directory.appendingPathComponent("library.sqlite").path, warn: { _ in })
        let source = CacheLibrarySource(cache: cache)
        #expect(try source.tracks(of: "liked") == [])
        let error = #expect(throws: CacheLibrarySource.NotAPlaylistID.self) { try source.tracks(of: "not-an-id\u{1B}[2J") }
        #expect(error?.description == "“not-an-id^[[2J” is not a playlist id; nothing was opened")
    }

    @Test func stderrGoesToTheLogWhileCapturedAndComesBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-stderr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("timbre.log").path
        // What fd 2 is now (the test runner's): compared by device and inode after the capture.
        var before = stat()
        fstat(STDERR_FILENO, &before)
        #expect(StderrCapture.begin(logPath: log) == log)
        let line = "a library wrote this under curses\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        StderrCapture.end()
        var after = stat()
        fstat(STDERR_FILENO, &after)
        #expect(before.st_dev == after.st_dev && before.st_ino == after.st_ino, "fd 2 is the terminal's again")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == line)
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(StderrCapture.saved == -1)
    }

    @Test func aLogThatIsASymlinkIsNotFollowed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-stderr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.appendingPathComponent("victim").path
        _ = FileManager.default.createFile(atPath: victim, contents: Data())
        let log = directory.appendingPathComponent("timbre.log").path
        try FileManager.default.createSymbolicLink(atPath: log, withDestinationPath: victim)
        #expect(StderrCapture.begin(logPath: log) == "/dev/null")
        _ = "x\n".withCString { write(STDERR_FILENO, $0, 2) }
        StderrCapture.end()
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)).isEmpty)
    }
}
