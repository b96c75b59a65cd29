import Testing
import TimbreCore

@testable import TimbreTUI

/// The interface's edits run one at a time, in the order asked: an edit plans on what the one
/// before it left.
@Suite struct EditQueueTests {
    @Test func jobsRunOneAtATimeInOrder() async {
        let queue = EditQueue()
        let log = Locked<[String]>([])
        let running = Locked(0)
        let maxRunning = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<20 {
                _ = queue.enqueue { _ in
                    let now = running.withLock {
                        $0 += 1
                        return $0
                    }
                    maxRunning.withLock { $0 = max($0, now) }
                    log.withLock { $0.append("start \(index)") }
                    await Task.yield()
                    log.withLock { $0.append("end \(index)") }
                    running.withLock { $0 -= 1 }
                    if index == 19 { done.resume() }
                }
            }
        }
        #expect(log.current == (0..<20).flatMap { ["start \($0)", "end \($0)"] })
        #expect(maxRunning.current == 1)
    }

    @Test func enqueueSaysHowManyWaitAndDrainFinishesTheRunningOneOnly() async {
        let queue = EditQueue()
        let started = Locked(false)
        let release = Locked(false)
        let finished = Locked<[Int]>([])
        #expect(
            queue.enqueue { _ in
                started.withLock { $0 = true }
                while !release.current { await Task.yield() }
                finished.withLock { $0.append(0) }
            } == 0)
        while !started.current { await Task.yield() }
        #expect(queue.enqueue { _ in finished.withLock { $0.append(1) } } == 1)
        #expect(queue.enqueue { _ in finished.withLock { $0.append(2) } } == 2)
        let drained = Task { await queue.drain() }
        while queue.waiting > 0 { await Task.yield() }
        release.withLock { $0 = true }
        await drained.value
        #expect(finished.current == [0], "the running edit ends; the waiting ones are dropped")
    }
}
