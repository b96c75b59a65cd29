import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// The real binary killed (SIGKILL) at random points of a long edit: the next command that opens
/// the journal finishes it, and the playlist on the server holds exactly what was asked — never
/// an entry missing that the edit did not remove.
extension SyncCLITests {
    @Test func anEditKilledAtAnyPointIsFinishedByTheNextCommand() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            // 2,500 entries, few distinct tracks: removing scattered positions needs many writes.
            let extra = (0..<(2_500 - original.count)).map { original[$0 % min(original.count, 6)] }
            #expect(await s.cli.invoke(["playlist", "add", id, "-"], stdin: extra.joined(separator: "\n")).status == 0)
            try await slowItemWrites(s, playlist: id)
            var generator = SystemRandomNumberGenerator()
            var interrupted = 0
            for round in 0..<8 {
                let before = try await s.sandbox.entries(of: id)
                let positions = stride(from: round % 5, to: before.count, by: 37).map { $0 }
                let targets = Set(positions)
                let removed = before.enumerated().filter { !targets.contains($0.offset) }.map(\.element)

                // Killed once the server has seen k of its writes (k at random below the plan's
                // count; round 0 before any).
                let arguments = positions.flatMap { ["--position", "\($0 + 1)"] }
                let dryRun = await s.cli.invoke(["playlist", "remove", id, "--dry-run"] + arguments)
                // The plan's writes are numbered ("  1. …"); the entries it names start with "#".
                let writes = dryRun.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.dropFirst(2).first?.isNumber == true }.count
                #expect(writes >= 2, "\(dryRun.stdout)")
                let k = round == 0 ? 0 : Int.random(in: 1..<max(2, writes), using: &generator)
                if try await runKilledAfter(s, writes: k, ["playlist", "remove", id] + arguments) { interrupted += 1 }

                // The next edit finishes the interrupted one first, then appends its own entry.
                let tracks = before.filter { $0.hasPrefix("spotify:track:") }
                let marker = tracks[round % tracks.count]
                let next = await s.cli.invoke(["playlist", "add", id, marker])
                #expect(next.status == 0, "round \(round): \(next.stderr)")
                let after = try await s.sandbox.entries(of: id)
                #expect(
                    after == before + [marker] || after == removed + [marker],
                    "round \(round): the playlist is neither untouched nor exactly the edit's result")
                let states = (parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }
                #expect(!states.contains("interrupted") && !states.contains("failed"), "round \(round): \(states)")
                let cached = (parse(await s.cli.invoke(["tracks", id, "--json"]).stdout) as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
                #expect(cached == after, "round \(round): the cache holds what Spotify holds")
            }
            // Kills after k < n writes land mid-edit (a kill before the first write may land before the journal).
            #expect(interrupted >= 6, "\(interrupted) of 8 kills interrupted an edit")
        }
    }
}
