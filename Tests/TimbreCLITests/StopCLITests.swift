import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Ctrl-C (SIGINT) to the real binary during `playlist sort`: the range moves stop between two
/// writes, exit 3, and the SERVER's list is a permutation of what it was with every date added
/// kept; `timbre undo` puts the old order back exactly.
extension SyncCLITests {
    @Test func ctrlCStopsASortBetweenTwoMovesAndUndoPutsTheOrderBack() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
            let (id, original) = try await ownPlaylist(s)
            let tracks = original.filter { $0.hasPrefix("spotify:track:") }
            let extra = (0..<max(0, 60 - original.count)).map { tracks[($0 * 7) % tracks.count] }
            if !extra.isEmpty { #expect(await s.cli.invoke(["playlist", "add", id, "-"], stdin: extra.joined(separator: "\n")).status == 0) }
            let before = try await s.sandbox.playlistInfo(id).items
            func pairs(_ items: [SandboxEntry]) -> [String] { items.map(\.dated) }
            // Every move answered late, so SIGINT lands while the sort is under way.
            var slow = Fault(kind: .latency, pathContains: "/v1/playlists/\(id)/items", count: 1_000_000, ms: 100)
            slow.method = "PUT"
            try await s.sandbox.addFaults([slow])
            try await s.sandbox.clearRequests()

            let process = Process()
            process.executableURL = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre")
            process.arguments = ["playlist", "sort", id, "--by", "title", "--yes"]
            process.environment = s.cli.environment
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            while !process.hasEnded, try await s.sandbox.writeRequests().count < 2 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(!process.hasEnded, "the sort was still running when Ctrl-C came")
            kill(process.processIdentifier, SIGINT)
            while !process.hasEnded { try await Task.sleep(for: .milliseconds(10)) }
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try await s.sandbox.clearFaults()

            #expect(process.endedStatus == 3, "partial: \(stdout)")
            #expect(stdout.contains("Sort stopped after"), "\(stdout)")
            let after = try await s.sandbox.playlistInfo(id).items
            #expect(after.map(\.uri) != before.map(\.uri), "part of the order was made")
            #expect(pairs(after).sorted() == pairs(before).sorted(), "a permutation: every entry there with its date added")
            let history = parse(await s.cli.invoke(["history", "--json"]).stdout) as? [[String: Any]] ?? []
            #expect(history.first?["state"] as? String == "done", "\(history.first ?? [:])")

            let undo = await s.cli.invoke(["undo"])
            #expect(undo.status == 0, "\(undo.stderr)")
            #expect(pairs(try await s.sandbox.playlistInfo(id).items) == pairs(before), "the old order back, every date kept")
        }
    }
}
