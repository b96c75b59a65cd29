import Foundation
import Testing
import TimbreCore
@testable import TimbreNet

/// The budget on its own: the cap on requests in flight, hand-over of freed slots, and the pause.
@Suite struct RateBudgetTests {
    @Test func neverMoreInFlightThanTheCapAndEveryWaiterGetsItsTurn() async throws {
        let budget = RateBudget(maxConcurrent: 3)
        let counts = Locked((now: 0, peak: 0, done: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await budget.acquire()
                    counts.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                    // Some holders let others run while they hold the slot, as a request does.
                    if index.isMultiple(of: 3) { await Task.yield() }
                    counts.withLock { $0.now -= 1; $0.done += 1 }
                    budget.release()
                }
            }
            try await group.waitForAll()
        }
        let final = counts.current
        #expect(final.done == 200)
        #expect(final.peak <= 3)
        #expect(final.peak >= 1)
    }

    @Test func aReleasedSlotWakesAWaiter() async throws {
        let budget = RateBudget(maxConcurrent: 1)
        try await budget.acquire()
        let acquired = Locked(false)
        let waiter = Task {
            try await budget.acquire()
            acquired.withLock { $0 = true }
            budget.release()
        }
        // The waiter cannot get the only slot while it is held.
        for _ in 0..<20 { await Task.yield() }
        #expect(acquired.current == false)
        budget.release()
        try await waiter.value
        #expect(acquired.current)
    }

    @Test func aPauseHoldsNewRequestsBackAndIsReported() async throws {
        let budget = RateBudget(maxConcurrent: 4)
        #expect(budget.remainingPause == nil)
        budget.pause(for: .seconds(1))
        let left = try #require(budget.remainingPause)
        #expect(left > .zero && left <= .seconds(1))
        // A shorter pause does not cut a longer one short (the margin is ~990 ms, not a timing bet).
        budget.pause(for: .milliseconds(10))
        let clock = ContinuousClock()
        let start = clock.now
        let remaining = try #require(budget.remainingPause)
        #expect(remaining > .milliseconds(10))

        try await budget.acquire()
        #expect(clock.now - start >= remaining, "acquire returned during the pause")
        #expect(budget.remainingPause == nil)
        budget.release()
    }

    @Test func theCapIsAtLeastOne() async throws {
        let budget = RateBudget(maxConcurrent: 0)
        #expect(budget.maxConcurrent == 1)
        try await budget.acquire()
        budget.release()
    }
}
