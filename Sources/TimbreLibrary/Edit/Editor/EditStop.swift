import TimbreCore

/// A request to stop a running order change between two of its writes: Esc in the interface,
/// Ctrl-C on the command line. Cooperative: the editor looks at it after each confirmed range
/// move of a `.reorder` plan, so the playlist is always a whole permutation of what it was (every
/// entry there, every added date kept), and the journal records the moves actually made as the
/// edit, so an undo puts back exactly the old order. A rewrite (`.permute`) is never stopped
/// part-way: it finishes.
public final class EditStop: Sendable {
    /// What a request to stop found.
    public enum Answer: Sendable, Equatable {
        /// Range moves are running: they stop after the write under way.
        case stopping
        /// A rewrite (or another edit) is running: it cannot stop part-way and finishes.
        case finishes
        /// No edit's writes are running.
        case idle
    }

    private struct State {
        /// nil: no writes running; else whether they can stop between writes.
        var stoppable: Bool?
        var requested = false
    }

    private let state = Locked(State())

    public init() {}

    /// Asks the writes under way to stop (only range moves do).
    @discardableResult
    public func request() -> Answer {
        state.withLock { state in
            guard let stoppable = state.stoppable else { return .idle }
            guard stoppable else { return .finishes }
            state.requested = true
            return .stopping
        }
    }

    /// Whether the writes running now can stop between writes (an order change by range moves).
    public var isStoppable: Bool { state.current.stoppable == true }

    /// Whether a stop was asked for the writes under way.
    public var isRequested: Bool { state.current.requested }

    /// The editor starts sending writes: a request made before now is forgotten.
    func begin(stoppable: Bool) {
        state.withLock { $0 = State(stoppable: stoppable, requested: false) }
    }

    /// The editor's writes ended, stopped or not.
    func end() {
        state.withLock { $0 = State() }
    }

    /// The order `k` writes of a range-move plan leave (`order[i]`: the position before the edit
    /// of the entry at `i`), simulated on indices, so copies of one track are told apart. Nil when
    /// a write is not a range move or would be refused.
    static func order(after writes: ArraySlice<EntryWrite>, count: Int) -> [Int]? {
        var order = Array(0..<count)
        for write in writes {
            guard write.reorder(&order) else { return nil }
        }
        return order
    }
}

/// The writes of a range-move plan were stopped (`EditStop`) after `done` of them.
struct WritesStopped: Error {
    var done: Int
    /// The snapshot the last write's answer gave, if it did.
    var snapshot: String?
}
