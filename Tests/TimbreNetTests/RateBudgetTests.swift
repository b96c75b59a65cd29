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
                    counts.withLock {
                        $0.now += 1
                        $0.peak = max($0.peak, $0.now)
                    }
                    // Some holders let others run while they hold the slot, as a request does.
                    if index.isMultiple(of: 3) { await Task.yield() }
                    counts.withLock {
                        $0.now -= 1
                        $0.done += 1
                    }
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

/// Rate limits as one budget: episodes, the adaptive cap, the stall it accepts.
@Suite struct RateBudgetEpisodeTests {
    @Test func fourHundredTwentyNinesFromRequestsAlreadyInFlightCountOnce() async throws {
        let budget = RateBudget(maxConcurrent: 16, waitBudget: .seconds(10))
        // Sixteen requests go out before any answer comes back.
        var tickets: [RateBudget.Ticket] = []
        for _ in 0..<16 { tickets.append(try await budget.acquire()) }
        for _ in 0..<16 { budget.release() }
        // All sixteen collect a 429 asking for 1 s: one episode, one second.
        #expect(budget.rateLimited(tickets[0], wait: .seconds(1)) == .paused)
        for ticket in tickets.dropFirst() {
            #expect(budget.rateLimited(ticket, wait: .seconds(1)) == .sameEpisode)
        }
        #expect(budget.episodes == 1)
        #expect(budget.waited == .seconds(1))
        #expect(budget.currentCap == 8, "an episode halves the cap")
    }

    @Test func theCapHalvesPerEpisodeNeverBelowOneAndGrowsBackWithSuccesses() async throws {
        let budget = RateBudget(maxConcurrent: 8, waitBudget: .seconds(100))
        for expected in [4, 2, 1, 1] {
            let ticket = try await budget.acquire()
            budget.release()
            #expect(budget.rateLimited(ticket, wait: .milliseconds(1)) == .paused)
            #expect(budget.currentCap == expected)
        }
        // Successes grow it back one step per run, never past the configured cap.
        for _ in 0..<(RateBudget.successesToGrow * 20) {
            try await budget.acquire()
            budget.release(succeeded: true)
        }
        #expect(budget.currentCap == 8)
        // Failures do not grow it.
        let ticket = try await budget.acquire()
        budget.release()
        _ = budget.rateLimited(ticket, wait: .milliseconds(1))
        for _ in 0..<(RateBudget.successesToGrow * 3) {
            try await budget.acquire()
            budget.release(succeeded: false)
        }
        #expect(budget.currentCap == 4)
    }

    @Test func thePausesAddUpToTheBudgetThenTheNextIsRefused() async throws {
        let budget = RateBudget(maxConcurrent: 4, waitBudget: .milliseconds(30))
        var ticket = try await budget.acquire()
        budget.release()
        #expect(budget.rateLimited(ticket, wait: .milliseconds(20)) == .paused)
        // A request sent after that pause began (a new episode) asks for 20 ms more: past 30 ms in all.
        ticket = try await budget.acquire()
        budget.release()
        let outcome = budget.rateLimited(ticket, wait: .milliseconds(20))
        guard case .overBudget(let waited) = outcome else {
            Issue.record("expected overBudget, got \(outcome)")
            return
        }
        #expect(waited == .milliseconds(20))
        #expect(budget.waited == .milliseconds(20))
        #expect(budget.episodes == 1)
    }

    @Test func aRetryAfterLongerThanTheWholeBudgetIsRefusedAtOnce() async throws {
        let budget = RateBudget(maxConcurrent: 4, waitBudget: .seconds(120))
        let ticket = try await budget.acquire()
        budget.release()
        #expect(budget.rateLimited(ticket, wait: .seconds(121)) == .overBudget(waited: .zero))
        #expect(budget.remainingPause == nil, "nothing was paused")
    }

    @Test func anOverlappingPauseAddsOnlyWhatGoesPastTheOneInForce() async throws {
        let budget = RateBudget(maxConcurrent: 4, waitBudget: .seconds(100))
        var ticket = try await budget.acquire()
        budget.release()
        #expect(budget.rateLimited(ticket, wait: .seconds(10)) == .paused)
        // Another episode (a ticket of the new episode, as a request sent in it would hold)
        // asking for 4 s while 10 s are in force adds nothing to the total.
        ticket = RateBudget.Ticket(episode: 1)
        #expect(budget.rateLimited(ticket, wait: .seconds(4)) == .paused)
        #expect(budget.waited == .seconds(10))
    }

    /// A clock moved by hand: each step of a storm is a known instant, not a wall-clock bet.
    private final class HandClock: Sendable {
        private let instant = Locked(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.current }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    /// "Every 5th request opens a 2 s window": twelve pauses of 2 s, 24 s in all, with a 5 s
    /// budget — each pause is followed by successes, so the run never stalls and never ends.
    @Test func shortPausesWhileTheRunAdvancesNeverEndIt() async throws {
        let clock = HandClock()
        let budget = RateBudget(maxConcurrent: 4, waitBudget: .seconds(5), now: { clock.now })
        for _ in 0..<12 {
            let limited = try await budget.acquire()
            budget.release()
            #expect(budget.rateLimited(limited, wait: .seconds(2)) == .paused)
            #expect(budget.stalled == .seconds(2))
            clock.advance(.seconds(2))
            for _ in 0..<4 {
                try await budget.acquire()
                budget.release(succeeded: true)
            }
            #expect(budget.stalled == .zero, "a successful answer ends the stall")
        }
        #expect(budget.waited == .seconds(24), "the total is still reported")
        #expect(budget.episodes == 12)
    }

    @Test func pausesWithoutASuccessBetweenThemAddUpToTheBudget() async throws {
        let clock = HandClock()
        let budget = RateBudget(maxConcurrent: 4, waitBudget: .seconds(5), now: { clock.now })
        for _ in 0..<2 {
            let ticket = try await budget.acquire()
            // Answers that are not successes (a 429, a 5xx) do not end the stall.
            budget.release(succeeded: false)
            #expect(budget.rateLimited(ticket, wait: .seconds(2)) == .paused)
            clock.advance(.seconds(2))
        }
        let ticket = try await budget.acquire()
        budget.release()
        #expect(budget.rateLimited(ticket, wait: .seconds(2)) == .overBudget(waited: .seconds(4)))
        #expect(budget.stalled == .seconds(4))
    }

    @Test func aRetryAfterLongerThanTheBudgetEndsTheRunEvenRightAfterASuccess() async throws {
        let clock = HandClock()
        let budget = RateBudget(maxConcurrent: 4, waitBudget: .seconds(5), now: { clock.now })
        try await budget.acquire()
        budget.release(succeeded: true)
        let ticket = try await budget.acquire()
        budget.release()
        #expect(budget.rateLimited(ticket, wait: .seconds(6)) == .overBudget(waited: .zero))
        #expect(budget.remainingPause == nil, "nothing was paused")
    }
}
