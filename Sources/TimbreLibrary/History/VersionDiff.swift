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
        var copies: [String: [Int]] = [:]
        copies.reserveCapacity(old.count)
        for (index, uri) in old.enumerated() { copies[uri, default: []].append(index) }
        var used: [String: Int] = [:]
        var matched = [Bool](repeating: false, count: old.count)
        // The kept entries in new order: (old position, new position).
        var kept: [(from: Int, to: Int)] = []
        kept.reserveCapacity(min(old.count, new.count))
        for (index, uri) in new.enumerated() {
            let next = used[uri, default: 0]
            if let positions = copies[uri], next < positions.count {
                used[uri] = next + 1
                matched[positions[next]] = true
                kept.append((positions[next], index))
            } else {
                added.append(Change(position: index, uri: uri))
            }
        }
        for (index, uri) in old.enumerated() where !matched[index] { removed.append(Change(position: index, uri: uri)) }
        var inPlace = [Bool](repeating: false, count: kept.count)
        for k in EntryEdit.longestIncreasing(kept.map(\.from)) { inPlace[k] = true }
        for (k, pair) in kept.enumerated() where !inPlace[k] { moved.append(Move(uri: new[pair.to], from: pair.from, to: pair.to)) }
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
