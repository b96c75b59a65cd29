import Foundation
import Testing
import TimbreTestSupport

/// Issue #31, items 6, 7 and 10 (api paths and output, input bounds, `--profile`), against the
/// real binary where only a process shows it. Server answers come from a recording written by the
/// test and replayed (`TIMBRE_REPLAY`): no server, and answers no real server would give.
@Suite(.serialized, .tags(.integration), .integrationTier)
struct ServerTextCLITests {
    private static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }
    }

    /// Writes exchange files as `RecordingTransport` would: (method, URL, status, body).
    static func recording(_ exchanges: [(String, String, Int, String)]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, exchange) in exchanges.enumerated() {
            let object: [String: Any] = [
                "sequence": index + 1, "method": exchange.0, "url": exchange.1, "request_headers": [[String]](),
                "request_body": NSNull(), "status": exchange.2, "response_headers": ["content-type": "application/json"],
                "response_body": exchange.3,
            ]
            let data = try JSONSerialization.data(withJSONObject: object)
            try data.write(to: folder.appendingPathComponent(String(format: "%04d-%@.json", index + 1, exchange.0)))
        }
        return folder
    }

    // MARK: 6. Proxy credentials

    @Test func proxyCredentialsNeverReachStderrTheLogOrDoctor() async throws {
        let cli = try TimbreCLI(extraEnvironment: [
            "TIMBRE_REFRESH_TOKEN": "not-a-real-token", "TIMBRE_PROFILE": "proxy-\(UUID().uuidString.prefix(8).lowercased())",
        ])
        try await withCleanup({ cli.remove() }) {
            try cli.writeConfig("client_id = \"abc\"\n")
            // libcurl refuses these proxy URLs before connecting, quoting them whole.
            for proxy in ["http://TOKENSECRET1:PASSWORDSECRET2@proxy.invalid:99999", "http://TOKENSECRET1@proxy.invalid:99999"] {
                let result = try await cli.run(["api", "me"], environment: ["HTTPS_PROXY": proxy])
                #expect(result.status != 0)
                #expect(result.stderr.contains("proxy"), "\(result.stderr)")
                #expect(result.stderr.contains("***@proxy.invalid:99999"), "\(result.stderr)")
                for secret in ["TOKENSECRET1", "PASSWORDSECRET2"] {
                    #expect(!result.stderr.contains(secret), "\(proxy): \(result.stderr)")
                }
            }
            #expect(cli.filesContaining("TOKENSECRET1").isEmpty, "\(cli.filesContaining("TOKENSECRET1"))")
            #expect(cli.filesContaining("PASSWORDSECRET2").isEmpty)

            let doctor = try await cli.run(["doctor"], environment: ["HTTPS_PROXY": "http://TOKENSECRET1@127.0.0.1:9"])
            #expect(doctor.stdout.contains("http://***@127.0.0.1:9 (from HTTPS_PROXY)"), "\(doctor.stdout)")
            #expect(!(doctor.stdout + doctor.stderr).contains("TOKENSECRET1"), "\(doctor.stdout)")
        }
    }

    // MARK: 7. A server-controlled `next`

    @Test func aNextLinkWithControlBytesReachesNoMessageOrLogRaw() async throws {
        let cli = try TimbreCLI()
        let hostile = "https://api.spotify.com/v1/me/x%1B%5D0;pwned%07y"
        let folder = try Self.recording([
            ("GET", "https://api.spotify.com/v1/me/playlists", 200, #"{"items": [], "next": "\#(hostile)"}"#),
            ("GET", hostile, 404, #"{"error": {"status": 404, "message": "Not found"}}"#),
        ])
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(at: folder)
        }) {
            let result = try await cli.run(["api", "me/playlists", "--paginate"], environment: ["TIMBRE_REPLAY": folder.path])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("Spotify answered 404 for /v1/me/x^[]0;pwned^Gy"), "\(result.stderr.debugDescription)")
            #expect(Self.isInert(result.stderr), "\(result.stderr.debugDescription)")
            let log = (try? String(contentsOfFile: cli.home.appendingPathComponent("state/timbre/timbre.log").path, encoding: .utf8)) ?? ""
            #expect(!log.isEmpty)
            #expect(Self.isInert(log), "\(log.debugDescription)")
        }
    }

    // MARK: 10. `timbre api`: paths that leave api_url, bodies on a terminal

    @Test func apiPathsThatLeaveAPIURLAreRefusedBeforeAnythingIsSent() async throws {
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": "not-a-real-token"])
        try await withCleanup({ cli.remove() }) {
            try cli.writeConfig("client_id = \"abc\"\napi_url = \"https://127.0.0.1:9/v1\"\n")
            for path in ["../x", "/v1/../x", "me/../../x", "me/%2e%2e/%2E%2E/x", "https://127.0.0.1:9/v1evil", "https://127.0.0.1:9/v1/../x"] {
                // 127.0.0.1 has no pin: had anything been sent, the answer would be exit 5.
                let result = try await cli.run(["api", path])
                #expect(result.status == 1, "\(path): \(result.stderr)")
                #expect(
                    result.stderr.contains("is outside api_url (https://127.0.0.1:9/v1); the access token is only sent to api_url"), "\(path): \(result.stderr)"
                )
            }
        }
    }

    @Test func apiBodiesAreInertOnATerminalAndRawWithRawOrInAPipe() async throws {
        let cli = try TimbreCLI()
        let body = "{\"display_name\": \"Eve\u{1B}]0;pwned\u{07}\"}"
        let folder = try Self.recording([
            ("GET", "https://api.spotify.com/v1/me", 200, body), ("GET", "https://api.spotify.com/v1/me", 200, body),
            ("GET", "https://api.spotify.com/v1/me", 200, body),
        ])
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(at: folder)
        }) {
            let terminal = await cli.invoke(["api", "me"], environment: ["TIMBRE_REPLAY": folder.path], tty: true)
            #expect(terminal.status == 0, "\(terminal.stderr)")
            #expect(terminal.stdout == "{\"display_name\": \"Eve^[]0;pwned^G\"}\n", "\(terminal.stdout.debugDescription)")
            let raw = await cli.invoke(["api", "me", "--raw"], environment: ["TIMBRE_REPLAY": folder.path], tty: true)
            #expect(raw.stdout == body + "\n", "\(raw.stdout.debugDescription)")
            let piped = try await cli.run(["api", "me"], environment: ["TIMBRE_REPLAY": folder.path])
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout == body + "\n", "\(piped.stdout.debugDescription)")
        }
    }

    // MARK: 10. Input read no further than its bound

    @Test func importFromStdinStopsReadingAtItsBound() async throws {
        let cli = try TimbreCLI()
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-big-\(UUID().uuidString)").path
        try await withCleanup({
            cli.remove()
            unlink(input)
        }) {
            // 96 MB of nothing (a sparse file): over the 64 MB bound by half.
            let size: off_t = 96 << 20
            #expect(FileManager.default.createFile(atPath: input, contents: nil))
            #expect(truncate(input, size) == 0)
            let handle = try #require(FileHandle(forReadingAtPath: input))
            defer { try? handle.close() }
            let process = Process()
            process.executableURL = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre")
            process.arguments = ["import", "-", "--name", "big"]
            process.environment = cli.environment
            process.standardInput = handle
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            while !process.hasEnded { try await Task.sleep(for: .milliseconds(20)) }
            #expect(process.endedStatus == 2, "\(stderr)")
            #expect(stderr.contains("the input is over 64 MB"), "\(stderr)")
            // The child shared this descriptor's offset: it shows how far timbre read.
            let consumed = lseek(handle.fileDescriptor, 0, SEEK_CUR)
            #expect(consumed > 64 << 20 && consumed < size, "timbre read \(consumed) of \(size) bytes")
        }
    }

    @Test func anOversizedExchangeFileIsRefusedUnread() async throws {
        let cli = try TimbreCLI()
        let folder = try Self.recording([("GET", "https://api.spotify.com/v1/me", 200, "{}")])
        try await withCleanup({
            cli.remove()
            try? FileManager.default.removeItem(at: folder)
        }) {
            let big = folder.appendingPathComponent("0002-GET-v1-me.json").path
            #expect(FileManager.default.createFile(atPath: big, contents: nil))
            #expect(truncate(big, (256 << 20) + 1) == 0)
            let result = try await cli.run(["api", "me"], environment: ["TIMBRE_REPLAY": folder.path])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("0002-GET-v1-me.json is over 256 MB"), "\(result.stderr)")
        }
    }

    // MARK: 10. `--profile` only where an option can stand

    @Test func aProfileInsideAnotherOptionsValueIsThatValue() async throws {
        let cli = try TimbreCLI()
        try await withCleanup({ cli.remove() }) {
            // `--profile=work` is the playlist's description here, not a global option: the run
            // must not take on the profile `work` (its log and folders would appear).
            let result = try await cli.run(["playlist", "create", "Mix", "--description", "--profile=work", "--dry-run"])
            #expect(
                !FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("state/timbre/profiles/work").path),
                "the profile `work` was taken from --description's value: \(result.stderr)")
            // Where an option can stand it still works, before and after the command.
            let paths = try await cli.run(["paths", "--json", "--profile", "work"])
            #expect(paths.stdout.contains("/profiles/work/"), "\(paths.stdout)")
            let before = try await cli.run(["--profile=work", "paths"])
            #expect(before.stdout.contains("/profiles/work/"), "\(before.stdout)")
        }
    }
}
