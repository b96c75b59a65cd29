import Foundation
import TimbreCore

/// Runs the interface's edits one at a time, in the order they were asked for, off the
/// interface's thread: an edit of a playlist plans on what the previous one left.
final class EditQueue: Sendable {
    typealias Job = @Sendable (_ queued: Int) async -> Void
    private struct State {
        var jobs: [Job] = []
        var worker: Task<Void, Never>?
    }
    private let state = Locked(State())

    /// Adds `job`; returns how many wait before it can start (0: it starts now).
    func enqueue(_ job: @escaping Job) -> Int {
        state.withLock { state in
            state.jobs.append(job)
            let waiting = state.jobs.count - 1 + (state.worker == nil ? 0 : 1)
            if state.worker == nil {
                state.worker = Task.detached { [self] in await work() }
            }
            return waiting
        }
    }

    private func work() async {
        while true {
            let next: (Job, Int)? = state.withLock { state in
                guard !state.jobs.isEmpty else {
                    state.worker = nil
                    return nil
                }
                return (state.jobs.removeFirst(), state.jobs.count)
            }
            guard let (job, left) = next else { return }
            await job(left)
        }
    }

    /// Edits waiting to start.
    var waiting: Int { state.withLock { $0.jobs.count } }

    /// Edits not finished yet: the one under way and those waiting.
    var pending: Int { state.withLock { $0.jobs.count + ($0.worker == nil ? 0 : 1) } }

    /// Drops the edits not started yet; returns how many.
    func dropWaiting() -> Int {
        state.withLock { state in
            defer { state.jobs.removeAll() }
            return state.jobs.count
        }
    }

    /// Waits for the edit under way; the ones not started are dropped.
    func drain() async {
        let worker = state.withLock { state -> Task<Void, Never>? in
            state.jobs.removeAll()
            return state.worker
        }
        await worker?.value
    }
}
