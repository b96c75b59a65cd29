import Foundation
import Logging
import Testing

@testable import TimbreCore

/// Symlinks planted where timbre writes, and server strings in log metadata.
@Suite struct FileSafetyTests {
    private func tempDir() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aSymlinkedLogIsRefusedNotFollowed() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = dir + "/victim"
        try "untouched\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/timbre.log", withDestinationPath: victim)
        #expect(throws: LogError.self) {
            let sink = try LogSink(path: dir + "/timbre.log")
            sink.write("appended through the link\n")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
    }

    /// Issue #31, item 2: every file timbre writes in place must be the user's own.
    @Test(.enabled(if: getuid() == 0, "needs root: only root can give a file to another uid"))
    func filesOfAnotherUserAreNeitherLoggedToNorWritten() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/timbre.log", database = dir + "/library.sqlite"
        for path in [log, database] {
            try "theirs\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o666)
            #expect(chown(path, 65534, 65534) == 0)
        }
        #expect(throws: LogError.self) { _ = try LogSink(path: log) }
        #expect(throws: UnsafeFileError.self) { try FilePermissions.requireOwnFile(database) }
        FilePermissions.makePrivate(database)
        var info = stat()
        #expect(stat(database, &info) == 0 && info.st_mode & 0o777 == 0o666, "chmod of another user's file")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "theirs\n")
    }

    @Test func logMetadataFromTheServerIsSanitised() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink = try LogSink(path: dir + "/timbre.log")
        let handler = FileLogHandler(label: "test", sink: sink, level: .debug)
        handler.log(
            event: LogEvent(
                level: .info, message: "signed in", metadata: ["user": "evil\u{1B}[2Jname"],
                source: "test", file: #fileID, function: #function, line: #line))
        let text = try String(contentsOfFile: dir + "/timbre.log", encoding: .utf8)
        #expect(!text.unicodeScalars.contains("\u{1B}"))
        #expect(text.contains("user=evil"))
    }

    @Test func aConfigInAFolderOthersCanWriteIsRefused() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.toml"
        try "client_id = \"x\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(dir, 0o700)
        chmod(config, 0o600)
        let paths = Paths(config: config, cache: dir + "/c", log: dir + "/l", credentials: dir + "/cr", data: dir + "/d")
        #expect(try Config.load(paths: paths, environment: [:]).clientID == "x")
        chmod(dir, 0o777)
        do {
            _ = try Config.load(paths: paths, environment: [:])
            Issue.record("a config in a world-writable folder was read")
        } catch {
            #expect(error.exitStatus == .usage)
            #expect(error.message.contains("chmod go-w \(dir)"))
        }
        chmod(dir, 0o700)
    }
}
