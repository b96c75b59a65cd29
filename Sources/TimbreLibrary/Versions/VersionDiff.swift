import Foundation
import TimbreCore

/// What changed between two lists of URIs. Copies of one track are matched in order (the first
/// copy before with the first copy after, …); copies left over were removed or added. Of the
/// entries that stayed, those on one longest increasing run of their old positions stayed in
/// place and the others `moved` — the fewest moves that explain the new order, found in
/// O(n log n); of the runs as long, the one keeping the most entries at their own position, and
/// an entry at the position it had is never listed as moved. Positions are Spotify's 0-based indices;
/// what a person reads is `position + 1`.
public struct VersionDiff: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        public var position: Int
        public var uri: String
    }

    public struct Move: Sendable, Equatable {
        public var uri: String
        public var from: Int
        public var to: Int
    }

    /// Positions in the new list, ascending.
    public var added: [Change] = []
    /// Positions in the old list, ascending.
    public var removed: [Change] = []
    /// Ordered by the new position.
    public var moved: [Move] = []

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && moved.isEmpty }

    public init(from old: [String], to new: [String]) {
        let compared = Self.compare(old, new)
        added = compared.added.map { Change(position: $0, uri: new[$0]) }
        removed = compared.removed.map { Change(position: $0, uri: old[$0]) }
        moved = compared.moved.map { Move(uri: new[$0.to], from: $0.from, to: $0.to) }
    }

    /// The comparison on any values (the versions compare interned ids): indices of the added
    /// (in `new`), the removed (in `old`) and the moved.
    static func compare<T: Hashable>(_ old: [T], _ new: [T]) -> (added: [Int], removed: [Int], moved: [(from: Int, to: Int)]) {
        var copies: [T: [Int]] = [:]
        copies.reserveCapacity(old.count)
        for (index, value) in old.enumerated() { copies[value, default: []].append(index) }
        var used: [T: Int] = [:]
        var matched = [Bool](repeating: false, count: old.count)
        var added: [Int] = []
        // The kept entries in new order: (old position, new position).
        var kept: [(from: Int, to: Int)] = []
        kept.reserveCapacity(min(old.count, new.count))
        for (index, value) in new.enumerated() {
            let next = used[value, default: 0]
            if let positions = copies[value], next < positions.count {
                used[value] = next + 1
                matched[positions[next]] = true
                kept.append((positions[next], index))
            } else {
                added.append(index)
            }
        }
        let removed = old.indices.filter { !matched[$0] }
        var inPlace = [Bool](repeating: false, count: kept.count)
        for k in stayingRun(kept, oldCount: old.count) { inPlace[k] = true }
        // An entry off that run but at the position it had (the others around it moved) did
        // not move: "~ #5 → #5" says nothing to a person.
        let moved = kept.indices.filter { !inPlace[$0] && kept[$0].from != kept[$0].to }.map { kept[$0] }
        return (added, removed, moved)
    }

    /// Indices into `kept` of a longest run whose old positions increase — of those, one that
    /// keeps the most entries at the very position they had (a reversal keeps its middle entry,
    /// not an end one that went to the other end). O(n log n): a Fenwick tree over old positions
    /// of the best (length, entries in place, last index) ending below each position.
    static func stayingRun(_ kept: [(from: Int, to: Int)], oldCount: Int) -> [Int] {
        typealias Best = (length: Int, fixed: Int, index: Int)
        func better(_ a: Best, _ b: Best) -> Bool { a.length != b.length ? a.length > b.length : a.fixed > b.fixed }
        var tree = [Best](repeating: (0, 0, -1), count: oldCount + 1)
        var parent = [Int](repeating: -1, count: kept.count)
        var overall: Best = (0, 0, -1)
        for (k, entry) in kept.enumerated() {
            var best: Best = (0, 0, -1)
            var i = entry.from  // the prefix of old positions below entry.from
            while i > 0 {
                if better(tree[i], best) { best = tree[i] }
                i -= i & -i
            }
            let here: Best = (best.length + 1, best.fixed + (entry.from == entry.to ? 1 : 0), k)
            parent[k] = best.index
            // Ties go to the later entry (as a patience sort's tails do): the entry that went
            // further is the one listed as moved.
            if !better(overall, here) { overall = here }
            i = entry.from + 1
            while i <= oldCount {
                if !better(tree[i], here) { tree[i] = here }
                i += i & -i
            }
        }
        var run: [Int] = []
        var k = overall.index
        while k >= 0 {
            run.append(k)
            k = parent[k]
        }
        return run.reversed()
    }

    /// `playlist diff --json`: positions counted from 1.
    public var json: JSONValue {
        func change(_ change: Change) -> JSONValue { .object([("position", .int(change.position + 1)), ("uri", .string(change.uri))]) }
        return .object([
            ("added", .array(added.map(change))),
            ("removed", .array(removed.map(change))),
            ("moved", .array(moved.map { .object([("uri", .string($0.uri)), ("from", .int($0.from + 1)), ("to", .int($0.to + 1))]) })),
        ])
    }
}
