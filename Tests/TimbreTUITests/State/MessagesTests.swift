import Foundation
import Testing

@testable import TimbreLibrary
@testable import TimbreTUI

/// Warnings from background work: the status line, `:messages`, and nothing under curses.
@Suite(.serialized) struct MessagesTests {
    @Test func aMessageShowsInTheStatusLineAndTheList() {
        var state = TUIState()
        state.addMessage("Spotify issued a new refresh token\u{1B}[2J")
        #expect(state.messages.map(\.text) == ["Spotify issued a new refresh token^[[2J"], "made inert once, on the way in")
        let status = Screen.statusText(state)
        #expect(status.hasSuffix("⚠ Spotify issued a new refresh token^[[2J"), "whole when it fits: \(status)")
        // An error outranks a warning in the status line; the list keeps both.
        state.status.lastError = "sync failed"
        #expect(!Screen.statusText(state).contains("⚠"))
    }

    /// A warning shows once: the first key after it takes it off the status line, so clearing the
    /// sync's error (`U` starts a sync) does not bring a minutes-old one back; `M` keeps it.
    @Test func aWarningDoesNotComeBackAfterAKey() {
        var state = sampleState()
        state.addMessage("the keyring is locked")
        state.status.lastError = "sync failed"
        #expect(Screen.statusText(state).contains("error: sync failed"))
        _ = state.handle(.character("j"))
        state.status.lastError = nil  // what starting a sync does
        #expect(!Screen.statusText(state).contains("⚠"), "\(Screen.statusText(state))")
        #expect(!Screen.statusText(state).contains("keyring"))
        #expect(state.messages.map(\.text) == ["the keyring is locked"], "M still has it")
        state.addMessage("a new one")
        #expect(Screen.statusText(state).contains("⚠ a new one"), "a new warning shows")
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
        let first = try #require(screen.firstIndex { $0.contains("  first") })
        let second = try #require(screen.firstIndex { $0.contains("  second") })
        #expect(second < first, "newest first")
        state.apply(.messages)
        #expect(state.mode.kind == .normal)
    }

    @Test func theListKeepsTheNewestTwoHundred() {
        var state = TUIState()
        for index in 0..<250 { state.addMessage("m\(index)") }
        #expect(state.messages.count == TUIState.messageLimit)
        #expect(state.messages.first?.text == "m50" && state.messages.last?.text == "m249")
    }

    @Test func aLongMessageIsReadInFullWrappedWithItsTime() throws {
        var state = TUIState()
        let long = (1...40).map { "word\($0)" }.joined(separator: " ") + "\nsecond line: the hint"
        state.addMessage(long, at: Date(timeIntervalSince1970: 0))
        state.addMessage("newer", at: Date(timeIntervalSince1970: 3600))
        let status = Screen.statusText(state, width: 80)
        #expect(status.contains("⚠ newer") && !status.contains("M for more"), "a short one is whole: \(status)")
        state.addMessage(long)
        let cut = Screen.statusText(state, width: 80)
        #expect(cut.contains("⚠ word1 word2") && cut.hasSuffix(" (M for more)") && TextWidth.width(of: cut) <= 80, "\(cut)")
        state.columns = 60
        state.apply(.messages)
        let text = state.messageText(width: 60)
        #expect(text.allSatisfy { TextWidth.width(of: $0) <= 60 })
        #expect(text.first?.hasPrefix("  " + TUIState.clockTime(Date())) == true)
        let words = text.joined(separator: " ").split(separator: " ").filter { $0.hasPrefix("word") }
        #expect(words.count == 80, "every word of both long messages is there")
        #expect(text.contains { $0.hasSuffix("second line: the hint") }, "each line of a message starts a line")
        #expect(text.contains("  \(TUIState.clockTime(Date(timeIntervalSince1970: 3600)))  newer"))
        // Scrolls, and closes with Esc or q only.
        state.pageSize = 4
        _ = state.handle(.character("j"))
        #expect(state.currentOverlay?.top == 1)
        _ = state.handle(.character("G"))
        #expect(state.currentOverlay?.top == text.count - 5)
        _ = state.handle(.character("x"))
        #expect(state.mode.kind == .messages)
        _ = state.handle(.character("q"))
        #expect(state.mode.kind == .normal)
    }

    @Test func everyBadKeyIsAMessageAtStartAndTheCountMatches() {
        let app = TUIApp(source: EmptySource(), sync: nil, status: StatusInfo(), keys: ["C-ä": "quit", "x": "fly away", "y": "sync"], environment: [:])
        let state = app.stateForTests
        #expect(state.messages.count == 2)
        #expect(state.messages.map(\.text).allSatisfy { $0.hasPrefix("[keys]") })
        #expect(state.message?.hasPrefix("2 mistakes in [keys]") == true && state.message?.hasSuffix("M lists them") == true)
        let one = TUIApp(source: EmptySource(), sync: nil, status: StatusInfo(), keys: ["x": "fly away"], environment: [:]).stateForTests
        // Two lines under the list, the second ending with the pointer to M.
        let lines = Screen.render(one, rows: 24, columns: 80).map { $0.map(\.text).joined() }
        #expect(
            lines[21].hasPrefix(" [keys] x: unknown command 'fly'") && lines[22].trimmingCharacters(in: .whitespaces).hasSuffix(" (M for more)"),
            "one mistake: itself, cut: \(lines[21...22])")
        var shown = state
        shown.apply(.messages)
        let screen = Screen.render(shown, rows: 20, columns: 200).map { $0.map(\.text).joined() }
        #expect(screen[0].contains("Messages (2)"))
        #expect(screen.filter { $0.hasPrefix("  ") && $0.contains("[keys]") }.count == 2, "M shows as many as it counts")
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

    @Test func aMessageGoesToTheLogRedactedOnlyWhileFd2PointsThere() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-stderr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("timbre.log").path
        StderrCapture.log("not captured: nowhere")
        #expect(StderrCapture.begin(logPath: log) == log)
        StderrCapture.log("refresh failed\nAuthorization: Bearer abc.def.ghi-secret")
        StderrCapture.end()
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == 1, "one line: \(text)")
        #expect(text.contains(" warning timbre.tui: refresh failed | Authorization: "), "\(text)")
        #expect(!text.contains("abc.def.ghi-secret"), "redacted: \(text)")
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

/// A library with nothing in it (the app's start, without a cache).
struct EmptySource: LibrarySource {
    func playlists() throws -> [PlaylistRow] { [] }
    func tracks(of playlistID: String) throws -> [EntryRow] { [] }
    func search(_ query: String, limit: Int) throws -> [TUIState.SearchHit] { [] }
}
