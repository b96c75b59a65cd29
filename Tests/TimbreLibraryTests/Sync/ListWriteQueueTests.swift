import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// The hand-over between a sync's playlist tasks and its one cache writer, with a recording
/// writer in place of the cache (the sync tests run it against a real SQLite file).
@Suite struct ListWriteQueueTests {
    static func list(_ name: String, rows: Int) -> ListWrite {
        let items = (0..<rows).map {
            CachedEntry(
                position: $0, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC",
                name: "\(name) \($0)", artists: ["A"], album: nil, durationMS: 1, addedAt: nil)
        }
        let meta = PlaylistMeta(
            id: name, name: name, ownerID: "me", ownerName: nil, snapshotID: "s", total: rows,
            collaborative: false, isPublic: false)
        return ListWrite(meta: meta, trackCount: rows, items: EntryList(EntryRows(items)))
    }

    struct WriteFailed: Error, Equatable {}

    /// Polls `condition` (a state change in another task); a minute is a guard against a hang,
    /// not a bound on speed.
    static func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Permits handed out one at a time: `wait` takes one, waiting until `signal` gives one.
    final class Permits: Sendable {
        private let state = Locked((count: 0, waiters: [CheckedContinuation<Void, Never>]()))
        func signal() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiters.isEmpty {
                    state.count += 1
                    return nil
                }
                return state.waiters.removeFirst()
            }
            waiter?.resume()
        }
        /// Every wait from now on returns at once (so a test that failed still ends).
        func openForGood() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.count = Int.max / 2
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        func wait() async {
            await withCheckedContinuation { waiter in
                let ready = state.withLock { state -> Bool in
                    if state.count > 0 {
                        state.count -= 1
                        return true
                    }
                    state.waiters.append(waiter)
                    return false
                }
                if ready { waiter.resume() }
            }
        }
    }

    @Test func listsAreWrittenSeveralToATransactionInTheOrderTheyCame() async throws {
        let queue = ListWriteQueue(batchLists: 3, batchRows: 1_000)
        let batches = Locked<[[String]]>([])
        async let written = queue.drain { batch in
            batches.withLock { $0.append(batch.map(\.meta.id)) }
            return batch.reduce(0) { $0 + $1.items.count }
        }
        for index in 0..<8 { try await queue.submit(Self.list("p\(index)", rows: index + 1)) }
        queue.close()
        #expect(try await written == (1...8).reduce(0, +))
        let seen = batches.current
        #expect(seen.flatMap { $0 } == (0..<8).map { "p\($0)" })
        // Only what is left at the end goes in a smaller batch.
        #expect(seen.dropLast().allSatisfy { $0.count >= 3 }, "\(seen)")
        #expect(seen.count <= 3, "\(seen)")
    }

    @Test func manyTasksHandingOverAtOnceHaveEveryListWrittenOnce() async throws {
        // Small limits so that batches, holds and hand-overs all happen many times.
        let queue = ListWriteQueue(batchLists: 4, batchRows: 30, maxWaitingRows: 40)
        let seen = Locked<[String]>([])
        async let written = queue.drain { batch in
            seen.withLock { $0 += batch.map(\.meta.id) }
            if batch.count % 2 == 0 { await Task.yield() }
            return batch.reduce(0) { $0 + $1.items.count }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in 0..<25 { try await queue.submit(Self.list("t\(task)-\(index)", rows: 1 + (task + index) % 7)) }
                }
            }
            try await group.waitForAll()
        }
        queue.close()
        let expectedRows = (0..<16).flatMap { task in (0..<25).map { 1 + (task + $0) % 7 } }.reduce(0, +)
        #expect(try await written == expectedRows)
        #expect(seen.current.count == 400 && Set(seen.current).count == 400)
        // Each task's lists are written in the order it handed them over.
        for task in 0..<16 {
            let mine = seen.current.filter { $0.hasPrefix("t\(task)-") }
            #expect(mine == (0..<25).map { "t\(task)-\($0)" })
        }
        #expect(queue.heldCount == 0)
    }

    @Test func aLargeListIsWrittenWithoutWaitingForOthers() async throws {
        let queue = ListWriteQueue(batchLists: 16, batchRows: 100)
        let wrote = AsyncStream<[String]>.makeStream()
        async let written = queue.drain { batch in
            wrote.continuation.yield(batch.map(\.meta.id))
            return batch.count
        }
        try await queue.submit(Self.list("small", rows: 10))
        try await queue.submit(Self.list("large", rows: 150))
        var iterator = wrote.stream.makeAsyncIterator()
        // Written while the queue is still open: 160 rows wait, more than a batch's worth.
        #expect(await iterator.next() == ["small", "large"])
        queue.close()
        #expect(try await written == 2)
    }

    @Test func onceHurriedEachListIsWrittenAsSoonAsTheWriterIsFree() async throws {
        let queue = ListWriteQueue(batchLists: 16, batchRows: 1_000)
        let seen = Locked<[[String]]>([])
        async let written = queue.drain { batch in
            seen.withLock { $0.append(batch.map(\.meta.id)) }
            return batch.count
        }
        try await queue.submit(Self.list("a", rows: 1))
        try await queue.submit(Self.list("b", rows: 1))
        // Two lists wait for a batch of 16 …
        try await Task.sleep(for: .milliseconds(100))
        #expect(seen.current.isEmpty)
        // … until the sync has started its last playlists.
        queue.hurry()
        try await Self.eventually { seen.current == [["a", "b"]] }
        try await queue.submit(Self.list("c", rows: 1))
        try await Self.eventually { seen.current == [["a", "b"], ["c"]] }
        queue.close()
        #expect(try await written == 3)
    }

    @Test func handingOverWaitsWhileTooManyRowsWaitToBeWritten() async throws {
        let queue = ListWriteQueue(batchLists: 100, batchRows: 10, maxWaitingRows: 20)
        let gate = Permits(), started = Permits()
        async let written = queue.drain { batch in
            started.signal()
            await gate.wait()
            return batch.count
        }
        // The first list (15 rows) is a batch: the writer takes it and stays busy.
        try await queue.submit(Self.list("a", rows: 15))
        await started.wait()
        // 15 rows wait: under the limit, so handing over returns at once.
        try await queue.submit(Self.list("b", rows: 15))
        // 30 would wait: this one is held until the writer takes the waiting lists.
        let returned = Locked(false)
        let third = Task {
            try await queue.submit(Self.list("c", rows: 15))
            returned.withLock { $0 = true }
        }
        try await Self.eventually { queue.heldCount == 1 }
        #expect(!returned.current)
        gate.signal()  // the first batch is done; the writer takes b and c
        try await third.value
        #expect(returned.current)
        #expect(queue.heldCount == 0)
        queue.close()
        gate.openForGood()
        #expect(try await written == 3)
    }

    @Test func aFailedWriteStopsTheSyncFromHandingOverMore() async throws {
        let queue = ListWriteQueue(batchLists: 1)
        let drained = Task { try await queue.drain { _ in throw WriteFailed() } }
        try await queue.submit(Self.list("a", rows: 1))
        await #expect(throws: WriteFailed.self) { try await drained.value }
        await #expect(throws: WriteFailed.self) { try await queue.submit(Self.list("b", rows: 1)) }
    }

    @Test func aFailedWriteReleasesHeldSubmittersWithItsError() async throws {
        let queue = ListWriteQueue(batchLists: 100, batchRows: 10, maxWaitingRows: 10)
        let gate = Permits(), started = Permits()
        let drained = Task {
            try await queue.drain { _ in
                started.signal()
                await gate.wait()
                throw WriteFailed()
            }
        }
        try await queue.submit(Self.list("a", rows: 10))
        await started.wait()  // the writer holds "a" and waits at the gate
        let held = Task { try await queue.submit(Self.list("b", rows: 11)) }  // over the limit: held
        try await Self.eventually { queue.heldCount == 1 }
        gate.openForGood()
        await #expect(throws: WriteFailed.self) { try await held.value }
        await #expect(throws: WriteFailed.self) { try await drained.value }
    }

    @Test func closingAnEmptyQueueEndsTheWriter() async throws {
        let queue = ListWriteQueue()
        async let written = queue.drain { _ in
            Issue.record("nothing should be written")
            return 0
        }
        queue.close()
        #expect(try await written == 0)
        await #expect(throws: CancellationError.self) { try await queue.submit(Self.list("late", rows: 1)) }
    }
}
