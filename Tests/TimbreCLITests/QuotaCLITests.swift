import Foundation
import Testing
import TimbreTestSupport

/// Spotify's daily quota (issue #42, items 1, 2 and 4) with the real binary against the sandbox's
/// `--daily-quota`: the first 429 past `rate_limit_budget` (or naming `QUOTA_EXCEEDED`) ends the
/// run at once, the wait is kept for the profile, no later command sends anything until it ends
/// or `timbre quota --reset`; every request is counted, across processes; `sync --max-requests`.
@Suite(.serialized, .tags(.integration), .integrationTier) struct QuotaCLITests {
    /// Requests the rate budget lets out at once (`RateBudget.defaultMaxConcurrent`): what may
    /// already be in flight when the quota's first answer arrives.
    static let inFlight = 32

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    func newCLI(_ sandbox: SandboxProcess) async throws -> TimbreCLI {
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
        try cli.configure(for: sandbox)
        return cli
    }

    /// Web API requests (`/v1`) and token requests the sandbox logged.
    func spotifyRequests(_ sandbox: SandboxProcess) async throws -> [SandboxRequestRecord] {
        try await sandbox.requests().filter { $0.path.hasPrefix("/v1") || $0.path.hasPrefix("/api/token") }
    }

    /// The sandbox's counted and refused API requests of its current day.
    func sandboxSent(_ sandbox: SandboxProcess) async throws -> Int {
        let quota = try await sandbox.quota()
        return (quota["used"] as? Int ?? -1) + (quota["refused"] as? Int ?? -1)
    }

    @Test(arguments: [false, true]) func aQuotaAnswerEndsTheRunIsKeptAndCounted(reason: Bool) async throws {
        let sandbox = try await SandboxProcess.start(
            library: .medium, extraArguments: ["--refresh-rotation", "same", "--daily-quota", "100000"] + (reason ? ["--quota-reason"] : []))
        let calibration = try await newCLI(sandbox)
        let cli = try await newCLI(sandbox)
        do {
            // What one uninterrupted first sync costs here; the quota is then half of it.
            let full = try await calibration.run(["sync", "--quiet"])
            #expect(full.status == 0, "\(full.stderr)")
            let firstSync = try #require(try await sandbox.quota()["used"] as? Int)
            let limit = firstSync / 2
            try await sandbox.control("POST", "quota", json: #"{"limit":\#(limit),"reset":true}"#)
            try await sandbox.clearRequests()

            let cut = try await cli.run(["sync"])
            #expect(cut.status == 3, "\(cut.stderr)")
            #expect(cut.stderr.contains("Spotify asks timbre to wait "), "\(cut.stderr)")
            #expect(cut.stderr.contains(", until "), "\(cut.stderr)")
            #expect(cut.stderr.contains(reason ? "QUOTA_EXCEEDED" : "rate_limit_budget"), "\(cut.stderr)")
            let afterCut = try await sandbox.quota()
            #expect(afterCut["used"] as? Int == limit)
            let refused = try #require(afterCut["refused"] as? Int)
            #expect(refused >= 1 && refused <= Self.inFlight, "only requests already in flight meet the quota after the first: \(refused)")
            let sent = try await sandboxSent(sandbox)
            let logged = try await spotifyRequests(sandbox).count

            // A second sync and an edit send nothing and say why: the wait is the profile's.
            let again = try await cli.run(["sync"])
            #expect(again.status == 3, "\(again.stderr)")
            #expect(again.stderr.contains("Spotify asks timbre to wait "), "\(again.stderr)")
            let playlists = try #require(
                try JSONSerialization.jsonObject(with: Data(try await cli.run(["playlists", "--json"]).stdout.utf8)) as? [[String: Any]])
            let own = try #require(playlists.first { $0["owner_id"] as? String == sandbox.info.userID && $0["id"] as? String != "liked" })
            let edit = try await cli.run(["playlist", "add", own["id"] as? String ?? "", "spotify:track:4uLU6hMCjMI75M1A2tKUQC"])
            #expect(edit.status == 1, "\(edit.stderr)")
            #expect(edit.stderr.contains("Spotify asks timbre to wait "), "\(edit.stderr)")
            #expect(try await sandboxSent(sandbox) == sent)
            #expect(try await spotifyRequests(sandbox).count == logged, "nothing, not even a token request, was sent")
            let history = try JSONSerialization.jsonObject(with: Data(try await cli.run(["history", "--json"]).stdout.utf8)) as? [Any]
            #expect(history?.isEmpty == true, "a refused edit leaves the journal clean")

            // The profile's count matches the sandbox's: every API request (token requests are "other").
            let report = json(try await cli.run(["quota", "--json"]).stdout)
            let kinds = try #require(report["by_kind"] as? [String: Int])
            let counted = try #require(report["last_24h"] as? Int)
            #expect(counted == kinds.values.reduce(0, +))
            #expect(kinds["edit"] == 0 && kinds["search"] == 0 && kinds["player"] == 0)
            // Requests in flight when the run stopped were cancelled: some may not have reached the sandbox.
            #expect(counted >= logged && counted <= logged + Self.inFlight, "timbre counted \(counted), the sandbox logged \(logged)")
            let api = counted - (kinds["other"] ?? 0)
            #expect(api >= sent && api <= sent + Self.inFlight, "API requests: \(kinds), the sandbox's \(sent)")
            #expect(report["blocked_until"] is String)
            let last = try #require(report["last_429"] as? [String: Any])
            #expect(last["quota"] as? Bool == reason)
            #expect((last["retry_after"] as? Int ?? 0) > 0)
            let doctor = try await cli.run(["doctor"])
            #expect(doctor.stdout.contains("requests in the last 24 h"), "\(doctor.stdout)")

            // The next day, after `quota --reset`, the sync finishes.
            let reset = try await cli.run(["quota", "--reset"])
            #expect(reset.status == 0, "\(reset.stderr)")
            #expect(json(try await cli.run(["quota", "--json"]).stdout)["blocked_until"] is NSNull)
            // The sandbox's next day, with room for the rest of the sync.
            let left = try #require(try await sandbox.quota()["seconds_left"] as? Int)
            try await sandbox.advanceClock(milliseconds: (left + 1) * 1000)
            try await sandbox.control("POST", "quota", json: #"{"limit":\#(firstSync * 2)}"#)
            let next = try await cli.run(["sync"])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(try await spotifyRequests(sandbox).count > logged)
        } catch {
            await sandbox.stop()
            calibration.remove()
            cli.remove()
            throw error
        }
        await sandbox.stop()
        calibration.remove()
        cli.remove()
    }

    /// `sync --max-requests N` sends at most N requests, ends with exit 3 and the sentence; a later
    /// sync completes. Two processes of the profile at once are both counted.
    @Test func maxRequestsStopsCleanlyAndEveryProcessIsCounted() async throws {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"])
        let cli = try await newCLI(sandbox)
        do {
            let stopped = try await cli.run(["sync", "--max-requests", "5"])
            #expect(stopped.status == 3, "\(stopped.stderr)")
            #expect(stopped.stderr.contains("stopped at the request limit"), "\(stopped.stderr)")
            #expect(try await spotifyRequests(sandbox).count <= 5)
            let finished = try await cli.run(["sync"])
            #expect(finished.status == 0, "\(finished.stderr)")

            // Two processes at once, a forced sync and a search: the profile's count grows by
            // exactly what the sandbox logged (nothing was cut short here).
            let before = json(try await cli.run(["quota", "--json"]).stdout)["by_kind"] as? [String: Int] ?? [:]
            try await sandbox.clearRequests()
            async let sync = cli.run(["sync", "--force", "--quiet"])
            async let search = cli.run(["search", "love"])
            let (a, b) = try await (sync, search)
            #expect(a.status == 0, "\(a.stderr)")
            #expect(b.status == 0, "\(b.stderr)")
            let logged = try await spotifyRequests(sandbox)
            let report = json(try await cli.run(["quota", "--json"]).stdout)
            let after = try #require(report["by_kind"] as? [String: Int])
            func added(_ kind: String) -> Int { (after[kind] ?? 0) - (before[kind] ?? 0) }
            #expect(
                ["sync", "edit", "search", "player", "other"].map(added).reduce(0, +) == logged.count,
                "\(before) → \(after), the sandbox logged \(logged.count)")
            #expect(added("search") == logged.filter { $0.path.hasPrefix("/v1/search") }.count)
            #expect(added("sync") == logged.filter { $0.path.hasPrefix("/v1") && !$0.path.hasPrefix("/v1/search") }.count)
            #expect(added("other") == logged.filter { $0.path.hasPrefix("/api/token") }.count)
            #expect(report["blocked_until"] is NSNull && report["last_429"] is NSNull)
        } catch {
            await sandbox.stop()
            cli.remove()
            throw error
        }
        await sandbox.stop()
        cli.remove()
    }
}
