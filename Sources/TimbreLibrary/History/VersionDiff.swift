import Foundation
import TimbreCore

/// What changed between two lists of URIs. Copies of one track are matched in order (the first
/// copy before with the first copy after, …); copies left over were removed or added. Of the
/// entries that stayed, those on one longest increasing run of their old positions stayed in
/// place and the others `moved` — the fewest moves that explain the new order, found in
/// O(n log n) as `EntryEdit.reorder` plans a shuffle. Positions are Spotify's 0-based indices;
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

    /// The comparison on any values (the history compares interned ids): indices of the added
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
        for k in EntryEdit.longestIncreasing(kept.map(\.from)) { inPlace[k] = true }
        let moved = kept.indices.filter { !inPlace[$0] }.map { kept[$0] }
        return (added, removed, moved)
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
