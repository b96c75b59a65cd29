import Foundation
import Testing
import TimbreTestSupport

/// CLI commands in a row reuse the stored access token (#43, the demo's token requests): while it
/// is valid none of them sends a token request; once it has expired exactly one does, and the rest
/// take the session it stored. Counted in the sandbox's request log (`/api/token`).
@Suite(.serialized, .tags(.integration), .integrationTier) struct TokenReuseCLITests {
    static let commands: [[String]] = [
        ["devices"], ["now"], ["sync", "--quiet"], ["recent", "--limit", "3"], ["quota", "--json"], ["api", "me"], ["volume", "40"],
    ]

    static func tokenRequests(_ sandbox: SandboxProcess) async throws -> Int {
        try await sandbox.requests().filter { $0.path == "/api/token" }.count
    }

    /// Signs `cli`'s profile in with its refresh token in the profile's file (no keyring), then runs
    /// the commands twice: with the session valid, then after the sandbox expired every access token.
    func runCommands(_ cli: TimbreCLI, on sandbox: SandboxProcess, environment: [String: String]) async throws {
        let minted = try await sandbox.mintRefreshToken()
        let login = try await cli.run(["login", "--with-token", "--insecure-storage"], stdin: minted, environment: environment)
        #expect(login.status == 0, "\(login.stderr)")
        // Something plays on the demo speaker, so `volume` has a device to change.
        let liked = try await sandbox.likedURIs()
        let track = try #require(liked.first(where: { $0.hasPrefix("spotify:track:") }))
        let play = try await cli.run(["play", "--uri", track, "--device", "timbre demo"], environment: environment)
        #expect(play.status == 0, "\(play.stderr)")
        try await sandbox.clearRequests()
        for command in Self.commands {
            let result = try await cli.run(command, environment: environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        #expect(try await Self.tokenRequests(sandbox) == 0, "the stored access token is valid: no command may ask for another")

        try await sandbox.expireAccessTokens()
        try await sandbox.clearRequests()
        for command in Self.commands {
            let result = try await cli.run(command, environment: environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        #expect(try await Self.tokenRequests(sandbox) == 1, "one refresh for the expired token, the others reuse what it stored")
    }

    /// An ordinary profile whose secrets are in its `--insecure-storage` file.
    @Test func aProfileInItsFileReusesTheStoredAccessToken() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        try await withCleanup({ await sandbox.stop() }) {
            let cli = try TimbreCLI()
            defer { cli.remove() }
            try cli.configure(for: sandbox)
            try await runCommands(cli, on: sandbox, environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/timbre-no-keyring"])
        }
    }

    /// The demo's profile (its config as `timbre demo` writes it): its session used to live in one
    /// process's memory, so each `timbre --profile demo …` refreshed the token.
    @Test func theDemoProfileReusesTheStoredAccessToken() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        try await withCleanup({ await sandbox.stop() }) {
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_PROFILE": "demo"])
            defer { cli.remove() }
            try cli.writeConfig(
                sandbox.info.configTOML(
                    top: """
                        # Written by `timbre demo` for its profile (here by a test).
                        client_id = "\(sandbox.info.clientID)"
                        redirect_port = 0
                        """))
            try await runCommands(cli, on: sandbox, environment: [:])
        }
    }
}
