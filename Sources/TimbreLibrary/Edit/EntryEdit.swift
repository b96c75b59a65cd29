/// What a user asks of a playlist's entries, in positions of the list as it stands; `plan(on:)`
/// turns it into the fewest writes Spotify's endpoints allow and says what the list will be.
public enum EntryEdit: Equatable, Sendable, Codable {
    /// Insert `uris` before `position` (the end: `position == count`).
    case insert(uris: [String], position: Int)
    /// Remove exactly the entries at these positions; other copies of the same tracks stay.
    case remove(positions: [Int])
    /// Move `length` entries from `start` so that the first ends at index `to` of the result.
    case move(start: Int, length: Int, to: Int)
    /// Put entries back at the positions they will have in the result (undo of a removal):
    /// `entries` sorted by position.
    case restore(entries: [PositionedURI])
    /// A new order of the same entries (shuffle, sort): `order[i]` is the position, in the list
    /// as it stands, of the entry that ends at `i`.
    case permute(order: [Int])

    public struct PositionedURI: Equatable, Sendable, Codable {
        public var position: Int
        public var uri: String
        public init(position: Int, uri: String) {
            self.position = position
            self.uri = uri
        }
    }

    /// Why an edit cannot be planned on a list.
    public enum Invalid: Error, Equatable, Sendable {
        case positionOutOfRange(Int, count: Int)
        case nothingToDo
        /// The writes, applied with Spotify's semantics, would not give the result asked for: a
        /// bug in planning, caught before anything is sent.
        case planDisagrees
        /// Removing it would need adding it back (its other copies, or an undo), and the API cannot
        /// add a local file or an entry without a track.
        case cannotAddBack(String)
    }

    /// The writes, in order, that turn `list` into `result`.
    public struct Plan: Equatable, Sendable, Codable {
        public var writes: [EntryWrite]
        public var result: [String]
        /// The list after each write (`states[0]` = before, `states.last` = result): what an
        /// interrupted edit is matched against to find where it stopped.
        public var states: [[String]]
    }

    public func plan(on list: [String]) throws(Invalid) -> Plan {
        let writes: [EntryWrite]
        let expected: [String]
        switch self {
        case .insert(let uris, let position):
            guard (0...list.count).contains(position) else { throw .positionOutOfRange(position, count: list.count) }
            guard !uris.isEmpty else { throw .nothingToDo }
            writes = Self.chunkedAdds(uris, at: position)
            expected = Array(list[..<position]) + uris + Array(list[position...])
        case .remove(let positions):
            let targets = Set(positions)
            guard !targets.isEmpty else { throw .nothingToDo }
            if let bad = targets.first(where: { !list.indices.contains($0) }) { throw .positionOutOfRange(bad, count: list.count) }
            // Spotify removes every copy, then the kept ones are added back — and an undo adds the
            // removed ones back: an entry the API cannot add is never removed.
            if let stuck = targets.map({ list[$0] }).first(where: { !Self.isResendable($0) }) { throw .cannotAddBack(stuck) }
            expected = list.enumerated().filter { !targets.contains($0.offset) }.map(\.element)
            writes = Self.removal(of: targets, from: list, result: expected)
        case .move(let start, let length, let to):
            guard length >= 1, start >= 0, start + length <= list.count else { throw .positionOutOfRange(start + max(length, 1) - 1, count: list.count) }
            guard (0...(list.count - length)).contains(to) else { throw .positionOutOfRange(to, count: list.count - length + 1) }
            guard to != start else { throw .nothingToDo }
            writes = [.reorder(start: start, insertBefore: to < start ? to : to + length, length: length)]
            var rest = list
            let range = Array(rest[start..<start + length])
            rest.removeSubrange(start..<start + length)
            rest.insert(contentsOf: range, at: to)
            expected = rest
        case .restore(let entries):
            guard !entries.isEmpty else { throw .nothingToDo }
            var result = list
            for entry in entries.sorted(by: { $0.position < $1.position }) {
                guard (0...result.count).contains(entry.position) else { throw .positionOutOfRange(entry.position, count: result.count) }
                result.insert(entry.uri, at: entry.position)
            }
            expected = result
            writes = Self.runs(of: entries.map(\.position), in: result).flatMap { run in
                Self.chunkedAdds(Array(result[run]), at: run.lowerBound)
            }
        case .permute(let order):
            guard order.count == list.count, Set(order).count == order.count, order.allSatisfy({ list.indices.contains($0) }) else {
                throw .positionOutOfRange(order.first { !list.indices.contains($0) } ?? -1, count: list.count)
            }
            guard order != Array(list.indices) else { throw .nothingToDo }
            expected = order.map { list[$0] }
            writes = Self.reordering(list, into: expected)
        }
        var states = [list]
        for write in writes {
            guard let next = write.applied(to: states[states.count - 1]) else { throw .planDisagrees }
            states.append(next)
        }
        // The plan is only good if Spotify's semantics, applied write by write, give the result.
        guard states.last == expected else { throw .planDisagrees }
        return Plan(writes: writes, result: expected, states: states)
    }

    /// The edit that takes `result` back to `list` (the journal's undo).
    public func inverse(before list: [String]) -> EntryEdit {
        switch self {
        case .insert(let uris, let position):
            return .remove(positions: Array(position..<position + uris.count))
        case .remove(let positions):
            return .restore(entries: Set(positions).sorted().map { PositionedURI(position: $0, uri: list[$0]) })
        case .move(let start, let length, let to):
            return .move(start: to, length: length, to: start)
        case .restore(let entries):
            return .remove(positions: entries.map(\.position))
        case .permute(let order):
            // The entry at i came from order[i]: send it back.
            var back = Array(repeating: 0, count: order.count)
            for (index, origin) in order.enumerated() { back[origin] = index }
            return .permute(order: back)
        }
    }

    // MARK: Planning

    static func chunkedAdds(_ uris: [String], at position: Int) -> [EntryWrite] {
        stride(from: 0, to: uris.count, by: EntryWrite.maxURIs).map { offset in
            .add(uris: Array(uris[offset..<min(offset + EntryWrite.maxURIs, uris.count)]), position: position + offset)
        }
    }

    /// Removing exact positions with an endpoint that removes every copy: remove every copy of
    /// the tracks concerned, then add the copies that stay back where they belong — one add per
    /// contiguous run of them in the result, in ascending order, so each lands on its final index.
    static func removal(of targets: Set<Int>, from list: [String], result: [String]) -> [EntryWrite] {
        var concerned: [String] = []
        var seen = Set<String>()
        for position in targets.sorted() where seen.insert(list[position]).inserted { concerned.append(list[position]) }
        let removals = stride(from: 0, to: concerned.count, by: EntryWrite.maxURIs).map {
            EntryWrite.removeEvery(uris: Array(concerned[$0..<min($0 + EntryWrite.maxURIs, concerned.count)]))
        }
        let kept = result.indices.filter { seen.contains(result[$0]) }
        let readds = runs(of: kept, in: result).flatMap { chunkedAdds(Array(result[$0]), at: $0.lowerBound) }
        return removals + readds
    }

    /// A new order of the same entries in the fewest requests: the first 100 replace the list and
    /// the rest are added in chunks (Timor's way: ceil(n/100) writes) — unless an entry cannot be
    /// sent again (a local file, a null track: the API cannot add them), when only moves keep
    /// every entry: one reorder per entry not yet in place.
    static func reordering(_ list: [String], into target: [String]) -> [EntryWrite] {
        if !list.contains(where: { !isResendable($0) }) {
            let first = Array(target.prefix(EntryWrite.maxURIs))
            return [.replace(uris: first)] + chunkedAdds(Array(target.dropFirst(first.count)), at: first.count)
        }
        var current = list
        var writes: [EntryWrite] = []
        for index in target.indices where current[index] != target[index] {
            // The first copy of the wanted URI at or after `index` (earlier ones are placed already).
            guard let from = current[index...].firstIndex(of: target[index]) else { continue }
            writes.append(.reorder(start: from, insertBefore: index, length: 1))
            current.insert(current.remove(at: from), at: index)
        }
        return writes
    }

    /// Whether the API takes this URI in an add: tracks and episodes, not local files or placeholders.
    public static func isResendable(_ uri: String) -> Bool {
        uri.hasPrefix("spotify:track:") || uri.hasPrefix("spotify:episode:")
    }

    /// Sorted positions grouped into contiguous ranges.
    static func runs(of positions: [Int], in list: [String]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        for position in positions.sorted() {
            if let last = runs.last, last.upperBound == position {
                runs[runs.count - 1] = last.lowerBound..<position + 1
            } else {
                runs.append(position..<position + 1)
            }
        }
        return runs
    }
}
