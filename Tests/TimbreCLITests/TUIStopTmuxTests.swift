import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// Esc stops a long sort in the interface between two range moves: the real binary in tmux over
/// the sandbox, with every move's answer delayed so the sort is still running when Esc comes. The
/// SANDBOX's list is then a permutation of what it was with every date added kept, and `u` puts
/// back the original order.
@Suite(.serialized, .tags(.integration), .integrationTier) struct TUIStopTmuxTests {
    static func pairs(_ items: [SandboxEntry]) -> [String] { items.map(\.dated) }

    @Test func escStopsASortPartWayAndUndoPutsTheOrderBack() async throws {
        try await InterfaceSession.withInterface { s in
            let coffee = try await s.id(of: "Morning Coffee")
            let current = try await s.sandbox.entries(of: coffee)
            let tracks = current.filter { $0.hasPrefix("spotify:track:") }
            if current.count < 60, !tracks.isEmpty {
                let more = (0..<(60 - current.count)).map { tracks[($0 * 7) % tracks.count] }
                let added = try await s.cli.run(["playlist", "add", coffee, "-"], stdin: more.joined(separator: "\n"))
                #expect(added.status == 0, "\(added.stderr)")
            }
            let before = try await s.sandbox.playlistInfo(coffee).items
            try await s.open("Morning Coffee")
            try await s.sandbox.clearRequests()
            // Every move answered a second late: the sort (dozens of moves) is under way, not over,
            // when Esc is pressed, however slowly a loaded machine draws and reads the screen.
            var slow = Fault(kind: .latency, pathContains: "/items", count: 1000, ms: 1_000)
            slow.method = "PUT"
            try await s.sandbox.addFaults([slow])
            try await s.command("sort! title")
            _ = try await s.wait("dates kept")
            try await s.tmux.keys("y")
            // The progress line counts on while the sort runs: no settled screen to wait for.
            let running = try await s.wait("writes, ≈ ", settled: false)
            #expect(running.contains("Esc stops"), "progress, time left and the way out:\n\(running)")
            try await s.tmux.keys("Escape")
            let stopped = try await s.wait("moves: the order of")
            try await s.sandbox.clearFaults()

            let after = try await s.sandbox.playlistInfo(coffee).items
            let writes = try await s.sandbox.writeRequests()
            #expect(!writes.isEmpty && writes.allSatisfy { $0.method == "PUT" }, "moves only")
            #expect(after.map(\.uri) != before.map(\.uri), "part of the order was made")
            #expect(Self.pairs(after).sorted() == Self.pairs(before).sorted(), "a permutation: every entry there with its date added")
            // "Sort stopped after 5 of 48 moves": the moves sent are the ones it names, fewer than planned.
            let numbers = try #require(stopped.firstMatch(of: /stopped after (\d+) of (\d+) moves/), "\(stopped)")
            let (done, total) = (Int(numbers.1) ?? -1, Int(numbers.2) ?? -1)
            #expect(done >= 1 && done < total, "stopped part-way: \(done) of \(total)")
            #expect(writes.count == done, "no move sent after the stop")

            try await s.tmux.keys("u")
            _ = try await s.wait("Undid edit")
            let back = try await s.sandbox.playlistInfo(coffee).items
            #expect(Self.pairs(back) == Self.pairs(before), "u puts back the original order, every date kept")
        }
    }
}
