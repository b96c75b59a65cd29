import TimbreCore

/// A fetched playlist on its way to the cache: what `LibraryCache.replaceEntries` writes.
struct ListWrite: Sendable {
    var meta: PlaylistMeta
    var trackCount: Int
    var items: EntryList
}

/// The lists a sync has fetched, written by one task several to a transaction.
///
/// A write transaction costs more than its rows: at each commit SQLite appends to the WAL every
/// page the transaction touched, and every playlist's write touches the same few — the item
/// table's last leaf and its parents, the playlist row and its index. With one transaction per
/// playlist those pages were four in ten of a full sync's WAL. Playlist tasks hand their lists
/// over (`submit`) and go on fetching; the writer (`drain`) takes them `batchLists` at a time —
/// sooner once `batchRows` rows wait, and whatever is left at `close` — and writes each batch in
/// one transaction. Once the sync has started its last playlists (`hurry`), the writer takes
/// whatever waits whenever it is free, so the end of a sync does not wait for a last batch to
/// fill up. Each list is still all-or-nothing; the lists of a batch appear together.
final class ListWriteQueue: Sendable {
    /// Lists per transaction.
    let batchLists: Int
    /// A batch is written as soon as this many rows wait, however few lists hold them.
    let batchRows: Int
    /// `submit` waits while more rows than this wait to be written: a writer slower than the
    /// network would otherwise end up holding the whole library in memory.
    let maxWaitingRows: Int

    private struct State {
        var waiting: [ListWrite] = []
        var waitingRows = 0
        var closed = false
        var hurried = false
        var failure: (any Error)?
        /// The writer, asleep until a batch is ready.
        var writer: CheckedContinuation<[ListWrite], Never>?
        /// Submitters held back by `maxWaitingRows`.
        var held: [CheckedContinuation<Void, any Error>] = []

        func ready(_ queue: ListWriteQueue) -> Bool {
            closed || waiting.count >= queue.batchLists || waitingRows >= queue.batchRows || (hurried && !waiting.isEmpty)
        }

        /// Takes the waiting lists, and the submitters that their rows held back.
        mutating func take() -> (batch: [ListWrite], released: [CheckedContinuation<Void, any Error>]) {
            defer {
                waiting = []
                waitingRows = 0
                held = []
            }
            return (waiting, held)
        }

        /// The waiting lists for the writer, when it sleeps and a batch is ready: resume it outside
        /// the lock.
        mutating func handOff(_ queue: ListWriteQueue) -> Handoff? {
            guard ready(queue), let writer else { return nil }
            self.writer = nil
            let (batch, released) = take()
            return Handoff(writer: writer, batch: batch, released: released)
        }
    }

    /// A batch on its way to the writer, and the submitters it frees.
    private struct Handoff {
        let writer: CheckedContinuation<[ListWrite], Never>
        let batch: [ListWrite]
        let released: [CheckedContinuation<Void, any Error>]

        func resume() {
            writer.resume(returning: batch)
            released.forEach { $0.resume() }
        }
    }

    private let state = Locked(State())

    init(batchLists: Int = 16, batchRows: Int = 20_000, maxWaitingRows: Int = 60_000) {
        self.batchLists = max(1, batchLists)
        self.batchRows = max(1, batchRows)
        self.maxWaitingRows = max(self.batchRows, maxWaitingRows)
    }

    /// Hands a list to the writer. Returns at once unless too many rows wait; throws the writer's
    /// error once it has failed, so the sync stops fetching what it could not store.
    func submit(_ list: ListWrite) async throws {
        try await withCheckedThrowingContinuation { (submitter: CheckedContinuation<Void, any Error>) in
            let (refusal, held, handoff) = state.withLock { state -> ((any Error)?, Bool, Handoff?) in
                if let failure = state.failure { return (failure, false, nil) }
                // Only a sync that is ending closes the queue, after its last list.
                if state.closed { return (CancellationError(), false, nil) }
                state.waiting.append(list)
                state.waitingRows += list.items.count
                let held = state.waitingRows > maxWaitingRows
                if held { state.held.append(submitter) }
                return (nil, held, state.handOff(self))
            }
            if let refusal { return submitter.resume(throwing: refusal) }
            // A held submitter is among those the hand-off releases.
            handoff?.resume()
            if !held { submitter.resume() }
        }
    }

    /// The last lists are on their way: from now on the writer takes whatever waits as soon as it
    /// is free instead of waiting for a full batch.
    func hurry() {
        state.withLock { state in
            state.hurried = true
            return state.handOff(self)
        }?.resume()
    }

    /// No more lists: the writer writes what waits, then `drain` returns.
    func close() {
        state.withLock { state in
            state.closed = true
            return state.handOff(self)
        }?.resume()
    }

    /// The writer's loop: every batch through `write` until the queue is closed and empty.
    /// Returns what `write` returned in total; on the first error, fails every submitter with it and
    /// throws it.
    func drain(_ write: ([ListWrite]) async throws -> Int) async throws -> Int {
        var total = 0
        while true {
            let batch = await nextBatch()
            if batch.isEmpty { return total }
            do {
                total += try await write(batch)
            } catch {
                fail(error)
                throw error
            }
        }
    }

    /// The next batch, once one is ready; empty when the queue is closed and nothing waits.
    /// One writer only: `drain` is the only caller.
    private func nextBatch() async -> [ListWrite] {
        await withCheckedContinuation { (writer: CheckedContinuation<[ListWrite], Never>) in
            // The writer goes to sleep, unless a batch is ready for it already.
            state.withLock { state in
                precondition(state.writer == nil, "ListWriteQueue has one writer")
                state.writer = writer
                return state.handOff(self)
            }?.resume()
        }
    }

    /// Submitters held back by `maxWaitingRows` right now (tests wait on it instead of sleeping).
    var heldCount: Int { state.withLock { $0.held.count } }

    private func fail(_ error: any Error) {
        let held = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.failure = error
            state.closed = true
            let (_, released) = state.take()
            return released
        }
        held.forEach { $0.resume(throwing: error) }
    }
}
