import Foundation
import Testing
import TimbreTestSupport

/// `timbre api`: raw calls through the signed-in, pinned transport.
extension SyncCLITests {
    @Test func apiPrintsSpotifysAnswerAndFollowsPages() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let me = await s.cli.invoke(["api", "/v1/me"])
            #expect(me.status == 0, "\(me.stderr)")
            #expect((parse(me.stdout) as? [String: Any])?["id"] as? String == s.sandbox.info.userID)

            // Three pages of 5 playlists each are three lines, each a page as Spotify sent it.
            let pages = await s.cli.invoke(["api", "me/playlists?limit=5", "--paginate"])
            #expect(pages.status == 0, "\(pages.stderr)")
            let lines = pages.stdout.split(separator: "\n").map { parse(String($0)) as? [String: Any] ?? [:] }
            let total = lines.first?["total"] as? Int ?? 0
            #expect(lines.count == (total + 4) / 5)
            #expect(lines.flatMap { $0["items"] as? [[String: Any]] ?? [] }.count == total)

            // Errors are Spotify's, with timbre's exit code; bad input never leaves.
            let missing = await s.cli.invoke(["api", "playlists/0000000000000000000000"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("404") || missing.stderr.lowercased().contains("not found"), "\(missing.stderr)")
            #expect(await s.cli.invoke(["api", "-X", "PATCH", "me"]).status == 2)
            #expect(await s.cli.invoke(["api", "-X", "POST", "me/playlists", "--input", "-"], stdin: "not json").status == 2)
            let foreign = await s.cli.invoke(["api", "https://evil.example/v1/me"])
            #expect(foreign.status == 1)
            #expect(foreign.stderr.contains("only sent to api_url"), "\(foreign.stderr)")
        }
    }
}
