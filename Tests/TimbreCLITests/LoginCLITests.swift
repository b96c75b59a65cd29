import Foundation
import Testing
import TimbreTestSupport

/// `timbre login`, `auth status`, `auth token` and `logout` against the sandbox, with a scripted
/// browser and a real keyring; in-process (`invoke`) except the first test, which runs the real
/// binary and reads its log file for secrets, and the paste flow, driven through a shell (scripts/test.sh runs the suite inside
/// dbus-run-session with gnome-keyring unlocked).
@Suite(.serialized, .tags(.integration), .integrationTier) struct LoginCLITests {
    static let browser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/browser.sh").path

    private func setUp(_ sandboxArguments: [String] = []) async throws -> (SandboxProcess, TimbreCLI) {
        let sandbox = try await SandboxProcess.start(extraArguments: sandboxArguments)
        do {
            return (sandbox, try client(for: sandbox))
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    private func client(for sandbox: SandboxProcess) throws -> TimbreCLI {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString).log").path
        let cli = try TimbreCLI(extraEnvironment: [
            "BROWSER": Self.browser, "BROWSER_CA": sandbox.info.caFile, "BROWSER_OWNER_HEADER": sandbox.secretHeaderFile, "BROWSER_LOG": log,
            "TIMBRE_PROFILE": "test-\(UUID().uuidString.prefix(8))", "TIMBRE_LOGIN_TIMEOUT": "20",
        ])
        try cli.configure(for: sandbox)
        return cli
    }

    private func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func browserLoginStoresInTheKeyringAndStatusShowsTheUser() async throws {
        let (sandbox, cli) = try await setUp()
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {

            let login = try await cli.run(["login"])
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("Signed in to Spotify as"))
            #expect(login.stdout.isEmpty)

            let status = try await cli.run(["auth", "status", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            let object = json(status.stdout)
            #expect(object["signed_in"] as? Bool == true)
            #expect(object["user_id"] as? String == sandbox.info.userID)
            #expect(object["source"] as? String == "keyring")
            #expect((object["scopes"] as? [String])?.contains("playlist-read-private") == true)
            #expect(object["expires_at"] as? String != nil)

            // The token printed is one the server accepts.
            let token = try await cli.run(["auth", "token"])
            #expect(token.status == 0)
            let accessToken = token.stdout.trimmingCharacters(in: .newlines)
            #expect(token.stdout == accessToken + "\n")
            let me = try await sandbox.curl("/v1/me", bearer: accessToken)
            #expect(me.status == 200)

            // No token in any file timbre wrote (config, cache, log).
            #expect(cli.filesContaining(accessToken).isEmpty, "\(cli.filesContaining(accessToken))")

            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0, "\(logout.stderr)")
            let after = try await cli.run(["auth", "status"])
            #expect(after.status == 4)
            #expect(after.stderr.contains("not signed in"))
        }
    }

    @Test func forgedStateStoresNothing() async throws {
        let (sandbox, cli) = try await setUp()
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            // A callback with another state is answered 404 and the login keeps waiting for its own.
            let login = await cli.invoke(["login"], environment: ["BROWSER_MODE": "forge", "TIMBRE_LOGIN_TIMEOUT": "3"])
            #expect(login.status == 1)
            #expect(login.stderr.contains("no sign-in callback arrived"))
            let browserLog = try String(contentsOfFile: cli.environment["BROWSER_LOG"] ?? "", encoding: .utf8)
            #expect(browserLog.contains("callback 404"))
            #expect(await cli.invoke(["auth", "status"]).status == 4)
            // The code was never exchanged.
            let requests = try await sandbox.requests()
            #expect(requests.allSatisfy { $0.path != "/api/token" })
        }
    }

    @Test func aForgedCallbackDoesNotEndTheLogin() async throws {
        let (sandbox, cli) = try await setUp()
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            let login = await cli.invoke(["login"], environment: ["BROWSER_MODE": "forge-first"])
            #expect(login.status == 0, "\(login.stderr)")
            let browserLog = try String(contentsOfFile: cli.environment["BROWSER_LOG"] ?? "", encoding: .utf8)
            #expect(browserLog.contains("forged 404"))
            #expect(await cli.invoke(["auth", "status"]).status == 0)
        }
    }

    @Test func deniedAccessIsReportedClearly() async throws {
        let (sandbox, cli) = try await setUp()
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            try await sandbox.setAuthorizeMode(approve: false)
            let login = await cli.invoke(["login"])
            #expect(login.status == 4)
            #expect(login.stderr.contains("access was denied"))
            #expect(await cli.invoke(["auth", "status"]).status == 4)
        }
    }

    @Test func pasteFlowReadsTheRedirectFromStdin() async throws {
        let (sandbox, cli) = try await setUp()
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            try cli.configure(for: sandbox, redirectPort: 8974)
            // Start the paste login, read the URL it prints, approve it as a browser would, and paste
            // the address the browser ended on into its stdin.
            let script = """
                set -e
                fifo=$(mktemp -u); mkfifo "$fifo"
                exec 3<>"$fifo"
                "$TIMBRE" login --paste <&3 2> "$ERRFILE" &
                pid=$!
                for i in $(seq 100); do grep -q 'authorize?' "$ERRFILE" 2>/dev/null && break; sleep 0.1; done
                url=$(grep -o 'https://[^ ]*authorize?[^ ]*' "$ERRFILE" | head -1)
                location=$(curl -s -o /dev/null -w '%{redirect_url}' --cacert "$BROWSER_CA" -H @"$BROWSER_OWNER_HEADER" "$url")
                echo "$location" >&3
                wait $pid
                """
            let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let errFile = cli.home.appendingPathComponent("paste.err").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", script]
            process.environment = cli.environment.merging(["TIMBRE": bin, "ERRFILE": errFile]) { $1 }
            try process.run()
            while !process.hasEnded { try await Task.sleep(for: .milliseconds(50)) }
            let stderr = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
            #expect(process.endedStatus == 0, "\(stderr)")
            #expect(stderr.contains("Signed in to Spotify as"))
            #expect(try await cli.run(["auth", "status"]).status == 0)
        }
    }

    @Test func withTokenAcceptsAMintedTokenAndRejectsABadOne() async throws {
        let (sandbox, cli) = try await setUp(["--refresh-rotation", "same"])
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            let bad = await cli.invoke(["login", "--with-token"], stdin: "not-a-real-refresh-token\n")
            #expect(bad.status == 4, "\(bad.stderr)")
            #expect(await cli.invoke(["auth", "status"]).status == 4, "nothing stored after a rejected token")

            let minted = try await sandbox.mintRefreshToken()
            let good = await cli.invoke(["login", "--with-token"], stdin: "{\"refresh_token\": \"\(minted)\", \"token_type\": \"Bearer\"}")
            #expect(good.status == 0, "\(good.stderr)")
            let status = json(await cli.invoke(["auth", "status", "--json"]).stdout)
            #expect(status["user_id"] as? String == sandbox.info.userID)
            #expect(status["source"] as? String == "keyring")
            #expect(cli.filesContaining(minted).isEmpty, "refresh token leaked to \(cli.filesContaining(minted))")
            #expect(!good.stderr.contains(minted) && !good.stdout.contains(minted))
        }
    }

    @Test func withTokenWithoutAKeyringSendsNothingAndLeavesTheTokenUsable() async throws {
        // The sandbox rotates refresh tokens (its default, as Spotify does): a refresh before
        // finding nowhere to store the result would spend the token the user gave.
        let (sandbox, cli) = try await setUp()
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            let minted = try await sandbox.mintRefreshToken()
            let noKeyring = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/timbre-no-keyring"]
            let refused = try await cli.run(["login", "--with-token"], stdin: minted, environment: noKeyring)
            #expect(refused.status == 4, "\(refused.stderr)")
            #expect(refused.stderr.contains("Nothing was sent to Spotify"), "\(refused.stderr)")
            #expect(refused.stderr.contains("timbre login --with-token --insecure-storage"))
            #expect(!refused.stderr.contains(minted) && !refused.stdout.contains(minted))
            // Following the hint works: the token is still the one Spotify knows.
            let stored = try await cli.run(["login", "--with-token", "--insecure-storage"], stdin: minted, environment: noKeyring)
            #expect(stored.status == 0, "\(stored.stderr)")
            #expect(try await cli.run(["auth", "status"], environment: noKeyring).status == 0)
            // `doctor` rates the keyring by what the profile uses: its secrets are in the file, so
            // the unreachable keyring is a warning, not a failure (exit 0).
            let doctor = try await cli.run(["doctor", "--json"], environment: noKeyring)
            let checks = (try? JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: Any]] ?? []
            let keyring = try #require(checks.first { $0["name"] as? String == "keyring" }, "\(doctor.stdout) \(doctor.stderr)")
            #expect(keyring["level"] as? String == "warn", "\(keyring)")
            #expect((keyring["detail"] as? String)?.contains("not used by this profile") == true, "\(keyring)")
            #expect(!checks.contains { $0["level"] as? String == "fail" }, "\(checks)")
            #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
            // The same keyring on a profile that keeps its secrets there is still a failure.
            let other = try await cli.run(["--profile", "keyringonly", "doctor", "--json"], environment: noKeyring)
            #expect(other.status == 1 && other.stdout.contains(#""name":"keyring","level":"fail""#), "\(other.stdout)")
        }
    }

    @Test func insecureStorageWritesA0600FileAndWarns() async throws {
        let (sandbox, cli) = try await setUp(["--refresh-rotation", "same"])
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            let minted = try await sandbox.mintRefreshToken()
            let login = await cli.invoke(["login", "--with-token", "--insecure-storage"], stdin: minted)
            #expect(login.status == 0, "\(login.stderr)")
            // Said once, though the sign-in stores two secrets (the refresh token and the session).
            #expect(login.stderr.components(separatedBy: "plain text").count == 2, "\(login.stderr)")
            // The profile's own credentials file, beside its config.toml.
            let file = cli.configFile.deletingLastPathComponent().appendingPathComponent("credentials.json").path
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(cli.filesContaining(minted) == [file])
            let status = json(await cli.invoke(["auth", "status", "--json"]).stdout)
            #expect(status["source"] as? String == "file")
            #expect(await cli.invoke(["logout"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }

    @Test func environmentTokenIsUsedAndNeverWritten() async throws {
        let (sandbox, cli) = try await setUp(["--refresh-rotation", "same"])
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            let minted = try await sandbox.mintRefreshToken()
            let status = await cli.invoke(["auth", "status", "--json"], environment: ["TIMBRE_REFRESH_TOKEN": minted])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(json(status.stdout)["source"] as? String == "env")
            let token = await cli.invoke(["auth", "token"], environment: ["TIMBRE_REFRESH_TOKEN": minted])
            #expect(token.status == 0)
            #expect(cli.filesContaining(minted).isEmpty)
        }
    }

    @Test func shortLivedTokensRefreshAndRevocationMeansSignInAgain() async throws {
        // Access tokens live 60 s, under the 5-minute margin: every `auth token` refreshes.
        let (sandbox, cli) = try await setUp(["--access-token-ttl", "60"])
        try await withCleanup({
            await sandbox.stop()
            cli.remove()
        }) {
            #expect(await cli.invoke(["login"]).status == 0)
            let first = await cli.invoke(["auth", "token"])
            let second = await cli.invoke(["auth", "token"])
            #expect(first.status == 0 && second.status == 0)
            #expect(first.stdout != second.stdout, "a token with under 5 minutes left is refreshed")
            #expect(try await sandbox.curl("/v1/me", bearer: second.stdout.trimmingCharacters(in: .newlines)).status == 200)

            try await sandbox.revokeRefreshTokens()
            let expired = await cli.invoke(["auth", "token"])
            #expect(expired.status == 4)
            #expect(expired.stdout.isEmpty)
            #expect(expired.stderr.contains("your Spotify session has expired (refresh tokens last 6 months) — run `timbre login`"))
        }
    }

    @Test func missingClientIDExplainsHowToRegister() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let login = await cli.invoke(["login", "--no-browser"])
        #expect(login.status == 2)
        #expect(login.stderr.contains("developer.spotify.com/dashboard"))
        #expect(login.stderr.contains("http://127.0.0.1:8974/callback"))
    }

    @Test func notSignedInExitsFour() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let status = await cli.invoke(["auth", "status", "--json"])
        #expect(status.status == 4)
        #expect(json(status.stdout)["signed_in"] as? Bool == false)
        #expect(await cli.invoke(["auth", "token"]).status == 4)
    }
}
