import Foundation
import Testing
import TimbreTestSupport

/// Issue #31, items 1, 2, 4 and 5, against the real binary: what timbre reads through a link is
/// checked where the link leads, what it writes is never a link or someone else's file, and the
/// recording folder is the user's alone. "Another user" is a file `chown`ed to uid 65534, which
/// only root can do: those tests run as root (as CI does) and are skipped elsewhere.
@Suite(.serialized, .tags(.integration), .integrationTier)
struct FileSafetyCLITests {
    static let isRoot = getuid() == 0
    static let otherUID: uid_t = 65534

    private func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// A folder outside the test's home, removed afterwards.
    private func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-other-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A refresh token, and a profile of its own: no access token another test left in the
    /// keyring can spare the token request these tests expect.
    static var signedIn: [String: String] {
        ["TIMBRE_REFRESH_TOKEN": "not-a-real-token", "TIMBRE_PROFILE": "sec-\(UUID().uuidString.prefix(8).lowercased())"]
    }

    /// Config that needs no server: the requests these tests provoke are refused before any is sent.
    static let offlineConfig = """
        client_id = "abc"
        accounts_url = "https://127.0.0.1:9"
        api_url = "https://127.0.0.1:9/v1"
        """

    // MARK: 1. config.toml through a link

    @Test func aConfigLinkedToAFileOthersCanWriteIsRefusedLikeTheFileItself() async throws {
        let cli = try TimbreCLI()
        let other = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: other)
        }) {
            let target = other + "/config.toml"
            try Data("client_id = \"abc\"\n".utf8).write(to: URL(fileURLWithPath: target))
            chmod(target, 0o666)
            try FileManager.default.createSymbolicLink(atPath: cli.configFile.path, withDestinationPath: target)
            let linked = try await cli.run(["auth", "status"])
            #expect(linked.status == 2, "\(linked.stderr)")
            #expect(linked.stderr.contains("a link to \(target)"), "\(linked.stderr)")
            #expect(linked.stderr.contains("chmod go-w \(target)"), "\(linked.stderr)")
        }
    }

    @Test func aConfigFolderLinkedToAWorldWritableFolderIsRefused() async throws {
        let cli = try TimbreCLI()
        let other = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: other)
        }) {
            let folder = other + "/shared"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            chmod(folder, 0o777)
            try Data("client_id = \"abc\"\n".utf8).write(to: URL(fileURLWithPath: folder + "/config.toml"))
            chmod(folder + "/config.toml", 0o600)
            let configFolder = cli.configFile.deletingLastPathComponent().path
            try FileManager.default.removeItem(atPath: configFolder)
            try FileManager.default.createSymbolicLink(atPath: configFolder, withDestinationPath: folder)
            let result = try await cli.run(["auth", "status"])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("chmod go-w \(folder)"), "\(result.stderr)")

            // The folder holding the link counts too: whoever can write it can replace the link.
            chmod(folder, 0o700)
            let holder = (configFolder as NSString).deletingLastPathComponent
            chmod(holder, 0o777)
            let outer = try await cli.run(["auth", "status"])
            chmod(holder, 0o755)
            #expect(outer.status == 2, "\(outer.stderr)")
            #expect(outer.stderr.contains("chmod go-w \(holder)"), "\(outer.stderr)")
            let fixed = try await cli.run(["auth", "status"])
            #expect(fixed.status == 4, "read once every folder on the way is safe: \(fixed.stderr)")
        }
    }

    @Test(.enabled(if: isRoot, "needs root: only root can give a file to another uid"))
    func aConfigLinkedToAnotherUsersFileIsRefused() async throws {
        let cli = try TimbreCLI()
        let other = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: other)
        }) {
            let target = other + "/config.toml"
            try Data("client_id = \"abc\"\n".utf8).write(to: URL(fileURLWithPath: target))
            chmod(target, 0o644)
            #expect(chown(target, Self.otherUID, Self.otherUID) == 0)
            try FileManager.default.createSymbolicLink(atPath: cli.configFile.path, withDestinationPath: target)
            let result = try await cli.run(["auth", "status"])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("belongs to another user (uid \(Self.otherUID))"), "\(result.stderr)")
            #expect(result.stderr.contains("chown"), "\(result.stderr)")
        }
    }

    // MARK: 2. The databases through links

    @Test func aCacheLinkedToAnotherDatabaseIsRefusedAndThatFileLeftAlone() async throws {
        let cli = try TimbreCLI()
        let other = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: other)
        }) {
            // An empty file is an empty SQLite database: without the check timbre writes its
            // tables into it and makes it 0600.
            let target = other + "/someone.sqlite"
            #expect(FileManager.default.createFile(atPath: target, contents: Data()))
            chmod(target, 0o644)
            let cache = cli.home.appendingPathComponent("cache/timbre/library.sqlite").path
            try FileManager.default.createDirectory(atPath: (cache as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: cache, withDestinationPath: target)
            let result = try await cli.run(["playlists"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("timbre will not open \(cache): it is a symbolic link"), "\(result.stderr)")
            #expect(result.stderr.contains("rm \(cache)"), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)).isEmpty, "timbre wrote into the linked file")
            #expect(mode(target) == 0o644)
            #expect(!FileManager.default.fileExists(atPath: target + "-wal"))
        }
    }

    /// An offline profile whose timbre.log is a symbolic link to another file (`target`, mode 0644,
    /// holding "theirs\n"): `body` gets the CLI, the log's path and the target's.
    func withLinkedLog(_ body: (TimbreCLI, _ log: String, _ target: String) async throws -> Void) async throws {
        let cli = try TimbreCLI()
        let other = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: other)
        }) {
            try cli.writeConfig(Self.offlineConfig)
            let target = other + "/elsewhere.txt"
            #expect(FileManager.default.createFile(atPath: target, contents: Data("theirs\n".utf8)))
            chmod(target, 0o644)
            let log = cli.home.appendingPathComponent("state/timbre/timbre.log").path
            try FileManager.default.createDirectory(atPath: (log as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: log, withDestinationPath: target)
            try await body(cli, log, target)
        }
    }

    /// README: nothing timbre writes is opened through a link — the log included. A linked
    /// timbre.log was once skipped in silence (exit 0, nothing logged): now the run says so and stops.
    @Test(arguments: [["playlists"], ["paths"], ["sync"]])
    func aLinkedLogIsRefusedNamingTheFileAndTheFix(_ arguments: [String]) async throws {
        try await withLinkedLog { cli, log, target in
            let result = try await cli.run(arguments, environment: ["TIMBRE_REFRESH_TOKEN": "not-a-real-token"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("timbre will not open \(log): it is a symbolic link"), "\(result.stderr)")
            #expect(result.stderr.contains("rm \(log)"), "\(result.stderr)")
            #expect(result.stdout.isEmpty, "the command did not run")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "theirs\n", "timbre wrote through the link")
            #expect(mode(target) == 0o644)
            // Once the link is gone, the run makes its own log.
            try FileManager.default.removeItem(atPath: log)
            let again = try await cli.run(["paths"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(mode(log) == 0o600)
        }
    }

    /// While the link is there, `--help` and `--version` still answer, and `doctor` runs and
    /// names it as a failed check (exit 1) instead of refusing to run.
    @Test func aLinkedLogLeavesHelpVersionAndDoctorWorking() async throws {
        try await withLinkedLog { cli, log, target in
            let help = try await cli.run(["--help"])
            #expect(help.status == 0, "\(help.stderr)")
            #expect(help.stdout.contains("USAGE:"))
            let version = try await cli.run(["--version"])
            #expect(version.status == 0, "\(version.stderr)")
            #expect(!version.stdout.isEmpty)
            let subcommandHelp = try await cli.run(["sync", "--help"])
            #expect(subcommandHelp.status == 0, "\(subcommandHelp.stderr)")
            let doctor = try await cli.run(["doctor"])
            #expect(doctor.status == 1, "\(doctor.stderr)")
            let line = doctor.stdout.split(separator: "\n").first { $0.hasPrefix("fail") && $0.contains(" log ") }
            #expect(line?.contains("timbre will not open \(log): it is a symbolic link") == true, "\(doctor.stdout)")
            #expect(line?.contains("rm \(log)") == true, "\(doctor.stdout)")
            #expect(doctor.stdout.contains("config"), "the other checks ran too")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "theirs\n", "timbre wrote through the link")
            // Once the link is gone, doctor's log check passes.
            try FileManager.default.removeItem(atPath: log)
            let again = try await cli.run(["doctor"])
            #expect(again.stdout.split(separator: "\n").contains { $0.hasPrefix("ok") && $0.contains(" log ") }, "\(again.stdout)")
        }
    }

    @Test func aJournalLinkedToAnotherDatabaseIsRefusedAndThatFileLeftAlone() async throws {
        let cli = try TimbreCLI()
        let other = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: other)
        }) {
            let target = other + "/someone.sqlite"
            #expect(FileManager.default.createFile(atPath: target, contents: Data()))
            chmod(target, 0o644)
            let data = cli.home.appendingPathComponent("data/timbre/timbre.sqlite").path
            try FileManager.default.createDirectory(atPath: (data as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: data, withDestinationPath: target)
            for arguments in [["history"], ["folder", "list"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("timbre will not open \(data): it is a symbolic link"), "\(arguments): \(result.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)).isEmpty, "timbre wrote into the linked file")
            #expect(mode(target) == 0o644)

            // A link in place of a side file (-wal) is refused the same way.
            try FileManager.default.removeItem(atPath: data)
            #expect(FileManager.default.createFile(atPath: data, contents: Data()))
            try FileManager.default.createSymbolicLink(atPath: data + "-wal", withDestinationPath: target)
            let side = try await cli.run(["history"])
            #expect(side.status == 1, "\(side.stderr)")
            #expect(side.stderr.contains("timbre will not open \(data)-wal: it is a symbolic link"), "\(side.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)).isEmpty)
        }
    }

    @Test(.enabled(if: isRoot, "needs root: only root can give a file to another uid"))
    func aCacheOwnedByAnotherUserIsRefused() async throws {
        let cli = try TimbreCLI()
        try await withCleanup({ cli.remove() }) {
            let cache = cli.home.appendingPathComponent("cache/timbre/library.sqlite").path
            try FileManager.default.createDirectory(atPath: (cache as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: cache, contents: Data()))
            chmod(cache, 0o644)
            #expect(chown(cache, Self.otherUID, Self.otherUID) == 0)
            let result = try await cli.run(["playlists"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("it belongs to another user (uid \(Self.otherUID))"), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: cache)).isEmpty)
            #expect(mode(cache) == 0o644)
        }
    }

    // MARK: 4. The recording folder

    @Test func aRecordingFolderOthersCanWriteIsRefusedBeforeAnythingIsSent() async throws {
        let cli = try TimbreCLI(extraEnvironment: Self.signedIn)
        let folder = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: folder)
        }) {
            try cli.writeConfig(Self.offlineConfig)
            chmod(folder, 0o1777)
            let result = try await cli.run(["api", "me"], environment: ["TIMBRE_RECORD": folder])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("cannot write the recording to \(folder): other users can write it (mode 1777)"), "\(result.stderr)")
            #expect(result.stderr.contains("nothing was sent"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "an exchange was recorded")
        }
    }

    @Test(.enabled(if: isRoot, "needs root: only root can give a folder to another uid"))
    func aRecordingFolderOfAnotherUserIsRefused() async throws {
        let cli = try TimbreCLI(extraEnvironment: Self.signedIn)
        let folder = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: folder)
        }) {
            try cli.writeConfig(Self.offlineConfig)
            chmod(folder, 0o700)
            #expect(chown(folder, Self.otherUID, Self.otherUID) == 0)
            let result = try await cli.run(["api", "me"], environment: ["TIMBRE_RECORD": folder])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("it belongs to another user (uid \(Self.otherUID))"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    // MARK: 5. A file name that would overflow the next number

    @Test func aHugeNumberInTheRecordingFolderIsIgnoredNotACrash() async throws {
        let cli = try TimbreCLI(extraEnvironment: Self.signedIn)
        let folder = try scratch()
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(atPath: folder)
        }) {
            try cli.writeConfig(Self.offlineConfig)
            chmod(folder, 0o700)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/9223372036854775807-x.json"))
            let result = try await cli.run(["api", "me"], environment: ["TIMBRE_RECORD": folder])
            // 127.0.0.1 has no pin: refused (exit 5) — and that refusal recorded as exchange 1.
            #expect(result.status == 5, "status \(result.status) (a death by SIGILL, 4, is the overflow trap): \(result.stderr.prefix(300))")
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(names.contains { $0.hasPrefix("0001-") }, "\(names)")
        }
    }
}
