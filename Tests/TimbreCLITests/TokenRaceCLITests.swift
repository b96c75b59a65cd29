import Foundation
import Testing
import TimbreTestSupport

/// Many processes, one profile, a rotating refresh token (issue #40, item 2): the sandbox issues a
/// new refresh token on every refresh and kills the old one, and access tokens live 5 s, so every
/// command refreshes — three real `timbre` processes at once, round after round, with the refresh
/// token in the keyring and in the `--insecure-storage` file. Nobody may be signed out.
///
/// Rounds: `TIMBRE_TOKEN_RACE_ROUNDS` (default 3; the by-hand figure is 15).
@Suite(.serialized, .tags(.integration), .integrationTier) struct TokenRaceCLITests {
    static var rounds: Int {
        guard let text = ProcessInfo.processInfo.environment["TIMBRE_TOKEN_RACE_ROUNDS"], let count = Int(text), count > 0 else { return 3 }
        return count
    }

    enum Store: String, CaseIterable, Sendable {
        case keyring, file
    }

    private func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// What a command must never say while the user is signed in.
    private func expectStillSignedIn(_ result: CLIResult, _ label: String) {
        #expect(result.status == 0, "\(label): exit \(result.status): \(result.stderr)")
        for phrase in ["expired", "not signed in", "timbre login"] {
            #expect(!result.stderr.contains(phrase), "\(label): \(result.stderr)")
        }
    }

    @Test(arguments: Store.allCases)
    func threeProcessesAtOnceNeverSignTheUserOut(store: Store) async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--access-token-ttl", "5", "--refresh-rotation", "rotate"])
        // A profile of its own: the keyring is shared by every test of the run.
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_PROFILE": "race-\(UUID().uuidString.prefix(8))"])
        try await withCleanup({
            _ = try? await cli.run(["logout"])
            await sandbox.stop()
            cli.remove()
        }) {
            try cli.configure(for: sandbox)
            let minted = try await sandbox.mintRefreshToken()
            let login = try await cli.run(["login", "--with-token"] + (store == .file ? ["--insecure-storage"] : []), stdin: minted)
            try #require(login.status == 0, "\(login.stderr)")
            let status = try await cli.run(["auth", "status", "--json"])
            try #require(json(status.stdout)["source"] as? String == store.rawValue, "\(status.stdout)")
            expectStillSignedIn(try await cli.run(["sync", "--quiet"]), "first sync")

            // One of the user's own playlists to add to, another to sync.
            let model = try await sandbox.library(includeItems: false)
            let own = (model["playlists"] as? [[String: Any]] ?? []).filter {
                $0["owner_id"] as? String == sandbox.info.userID && $0["collaborative"] as? Bool == false
            }.compactMap { $0["id"] as? String }
            let target = try #require(own.first)
            let other = try #require(own.dropFirst().first)
            let track = try #require(try await sandbox.entries(of: other).first { !$0.isEmpty })
            let before = try await sandbox.entries(of: target).count

            for round in 1...Self.rounds {
                async let sync = cli.run(["sync", "--playlist", other, "--quiet"], timeout: .seconds(120))
                async let token = cli.run(["auth", "token"], timeout: .seconds(120))
                async let add = cli.run(["playlist", "add", target, track], timeout: .seconds(120))
                let results = try await [("sync", sync), ("auth token", token), ("playlist add", add)]
                for (name, result) in results { expectStillSignedIn(result, "round \(round), \(name)") }
            }

            // Still signed in, with the token where it was, and every add on Spotify.
            let after = try await cli.run(["auth", "status", "--json"])
            #expect(json(after.stdout)["source"] as? String == store.rawValue, "\(after.stdout) \(after.stderr)")
            expectStillSignedIn(try await cli.run(["auth", "token"]), "after the race")
            #expect(try await sandbox.entries(of: target).count == before + Self.rounds)
            let refused = try await sandbox.requests().filter { $0.path == "/api/token" && $0.status == 400 }.count
            #expect(refused == 0, "no process spent a refresh token another had rotated")
        }
    }
}
