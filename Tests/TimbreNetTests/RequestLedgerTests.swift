import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// Issue #42: the stop that ends every request of a process, the request limit, and the profile's
/// ledger (counts by kind over 24 h, the stored wait, `--reset`, another app's wait).
@Suite struct RequestLedgerTests {
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-ledger-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A stop wakes the requests waiting for a slot and those paused by a 429: each throws it,
    /// none is let out.
    @Test func aStopEndsEveryWaitingRequest() async throws {
        let budget = RateBudget(maxConcurrent: 1)
        let held = try await budget.acquire()
        budget.pause(for: .seconds(30))
        let stop = RequestsStopped(.wait(until: Date().addingTimeInterval(50_000), quota: true, given: 50_000, budget: 120))
        let outcomes = Locked<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        try await budget.acquire()
                        outcomes.withLock { $0.append("sent") }
                    } catch let error as RequestsStopped {
                        outcomes.withLock { $0.append(error == stop ? "stopped" : "other stop") }
                    }
                }
            }
            // Let them reach their waits (the pause or the full cap); the stop must find them there.
            while budget.granted < 1 { await Task.yield() }
            try await Task.sleep(for: .milliseconds(50))
            budget.stop(stop)
            try await group.waitForAll()
        }
        _ = held
        #expect(outcomes.current == Array(repeating: "stopped", count: 5))
        #expect(budget.granted == 1)
    }

    @Test func theRequestLimitLetsOutExactlyNThenStops() async throws {
        let budget = RateBudget(maxConcurrent: 4)
        budget.limitRequests(to: 3)
        for _ in 0..<3 {
            try await budget.acquire()
            budget.release(succeeded: true)
        }
        let error = await #expect(throws: RequestsStopped.self) { try await budget.acquire() }
        #expect(error?.reason == .limit(3))
        #expect(error?.exitStatus == .partial)
        #expect(error?.message.contains("stopped at the request limit") == true)
    }

    @Test func countsByKindOverTheLast24HoursFromEveryWriter() throws {
        let directory = try folder()
        let now = Date()
        // Two ledgers on one folder stand for two processes: both write the same files.
        let one = RequestLedger(directory: directory, app: "app"), two = RequestLedger(directory: directory, app: "app")
        for _ in 0..<3 { one.sent(.sync, at: now.addingTimeInterval(-10)) }
        two.sent(.edit, at: now.addingTimeInterval(-5))
        two.sent(.search, at: now.addingTimeInterval(-3_600))
        one.sent(.sync, at: now.addingTimeInterval(-90_000))  // more than 24 h ago: not counted
        let counts = two.counts(now: now)
        #expect(counts == [.sync: 3, .edit: 1, .search: 1, .player: 0, .other: 0])
    }

    @Test func aStoredWaitIsSeenByAnotherLedgerUntilResetAndOnlyForItsApp() async throws {
        let directory = try folder()
        let now = Date()
        let writer = RequestLedger(directory: directory, app: "app")
        let stop = RequestsStopped(.wait(until: now.addingTimeInterval(50_000), quota: true, given: 50_000, budget: 120), at: now)
        await writer.rateLimited(at: now, retryAfter: 50_000, quota: true, stop: stop)
        let reader = RequestLedger(directory: directory, app: "app")
        let seen = try #require(reader.storedStop(now: now.addingTimeInterval(10)))
        #expect(seen.until.map { abs($0.timeIntervalSince(now) - 50_000) < 0.01 } == true)
        #expect(seen.message.hasPrefix("Spotify asks timbre to wait 13 h 53 min, until "), "\(seen.message)")
        #expect(reader.state().last429 == RequestLedger.Last429(at: now.timeIntervalSince1970, retryAfter: 50_000, quota: true))
        #expect(RequestLedger(directory: directory, app: "another app").storedStop(now: now) == nil)
        #expect(reader.storedStop(now: now.addingTimeInterval(50_001)) == nil, "a wait that ended stops nothing")
        try await reader.reset()
        #expect(writer.storedStop(now: now) == nil)
        #expect(writer.state().last429 != nil, "the last 429 stays a fact")
    }

    @Test func theSentenceNamesTheWaitAndTheClock() {
        #expect(RequestsStopped.duration(45) == "45 s")
        #expect(RequestsStopped.duration(1_500) == "25 min")
        #expect(RequestsStopped.duration(50_000) == "13 h 53 min")
        #expect(RequestsStopped.duration(7_200) == "2 h")
        let now = Date()
        #expect(RequestsStopped.clock(now, from: now) == ClockText.localTime(now))
        let later = now.addingTimeInterval(3 * 86_400)
        #expect(RequestsStopped.clock(later, from: now) == ClockText.localDateTime(later))
    }

    @Test func kindsByMethodAndPath() {
        #expect(RequestKind.classify(method: "GET", path: "/v1/search") == .search)
        #expect(RequestKind.classify(method: "PUT", path: "/v1/me/player/play") == .player)
        #expect(RequestKind.classify(method: "GET", path: "/v1/me/player") == .player)
        #expect(RequestKind.classify(method: "POST", path: "/v1/playlists/x/items") == .edit)
        #expect(RequestKind.classify(method: "GET", path: "/v1/me/playlists") == .sync)
        #expect(RequestKind.classify(method: "POST", path: "/api/token") == .other)
    }
}
