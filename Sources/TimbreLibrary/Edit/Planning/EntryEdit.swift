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
    case putBack(entries: [PositionedURI])
    /// A new order of the same entries (shuffle, sort) by a rewrite: the first 100 replace the
    /// list, the rest are added (⌈n/100⌉ writes) — every entry gets a new added date. `order[i]` is
    /// the position, in the list as it stands, of the entry that ends at `i`. (A list with an entry
    /// the API cannot add, a local file, is reordered by moves instead.) What `--rewrite` asks for;
    /// also how every order change before range moves was journalled.
    case permute(order: [Int])
    /// The same new order by range moves (`PUT …/items` with `range_start`, `insert_before`,
    /// `range_length`), which keep every entry's added date: the entries outside a longest
    /// increasing subsequence of `order` move, in runs. The default for shuffle and sort.
    case reorder(order: [Int])
    /// The list made equal to `target` (a playlist restored to one of its versions): the entries
    /// that stay keep their added dates — only the list's extra copies are removed, the kept ones
    /// moved by range moves, the missing ones added (`ListTransform`). `pairing[t]`: the position,
    /// in the list as it stands, of the entry that must end at `t` (nil: no preference) — how the
    /// copies of one track keep their own dates; journals written before it hold none. Its undo is
    /// `become` the list before, each kept entry paired back to where it was.
    case become(target: [String], pairing: [Int?]? = nil)

    /// The journal's keys: `putBack` keeps "restore", its name when journals written before the
    /// rename stored it, so they still read.
    enum CodingKeys: String, CodingKey {
        case insert, remove, move, putBack = "restore", permute, reorder, become
    }

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
        /// A position (0-based) outside `0..<count`.
        case positionOutOfRange(Int, count: Int)
        case nothingToDo
        /// The writes, applied with Spotify's semantics, would not give the result asked for: a
        /// bug in planning, caught before anything is sent.
        case planDisagrees
        /// Removing it would need adding it back (its other copies, or an undo), and the API cannot
        /// add a local file or an entry without a track.
        case cannotAddBack(String)
    }

    /// The writes, in order, that turn `before` into `result`.
    public struct Plan: Equatable, Sendable, Codable {
        public var writes: [EntryWrite]
        public var result: [String]
        /// The list the plan starts from.
        public var before: [String]

        /// The list after each write (`states[0]` = before, `states.last` = result), made on
        /// demand: a plan of 10,000 moves on 10,000 entries would otherwise keep 10⁸ URIs. For
        /// tests and small plans; `lastStep(matching:)` finds where an edit stopped without them.
        public var states: [[String]] {
            var list = before
            var states = [list]
            for write in writes {
                guard write.apply(to: &list) else { break }
                states.append(list)
            }
            return states
        }

        /// The latest step (0 = none applied, `writes.count` = all) after which the list is
        /// `list`: what an interrupted edit is matched against to find where it stopped.
        public func lastStep(matching list: [String]) -> Int? {
            var state = before
            var found = state == list ? 0 : nil
            for (index, write) in writes.enumerated() {
                guard write.apply(to: &state) else { break }
                if state.count == list.count && state == list { found = index + 1 }
            }
            return found
        }
    }

    public func plan(on list: [String]) throws(Invalid) -> Plan {
        let writes: [EntryWrite]
        let expected: [String]
        switch self {
        case .insert(let uris, let position):
            guard (0...list.count).contains(position) else { throw .positionOutOfRange(position, count: list.count + 1) }
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
            let write = EntryWrite.move(start: start, length: length, to: to)
            writes = [write]
            var rest = list
            _ = write.reorder(&rest)
            expected = rest
        case .putBack(let entries):
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
        case .become(let target, let pairing):
            guard target != list || !ListTransform.keepsPlaces(pairing) else { throw .nothingToDo }
            writes = try ListTransform(from: list, to: target, pairing: pairing).writes
            expected = target
        case .permute(let order), .reorder(let order):
            guard order.count == list.count, Set(order).count == order.count, order.allSatisfy({ list.indices.contains($0) }) else {
                throw .positionOutOfRange(order.first { !list.indices.contains($0) } ?? -1, count: list.count)
            }
            guard order != Array(list.indices) else { throw .nothingToDo }
            expected = order.map { list[$0] }
            if case .reorder = self {
                writes = Self.moves(order)
            } else {
                writes = Self.reordering(list, order: order, into: expected)
            }
        }
        // The plan is only good if Spotify's semantics, applied write by write, give the result.
        var state = list
        for write in writes {
            guard write.apply(to: &state) else { throw .planDisagrees }
        }
        guard state == expected else { throw .planDisagrees }
        return Plan(writes: writes, result: expected, before: list)
    }

    /// The edit that takes `result` back to `list` (the journal's undo).
    public func inverse(before list: [String]) -> EntryEdit {
        switch self {
        case .insert(let uris, let position):
            return .remove(positions: Array(position..<position + uris.count))
        case .remove(let positions):
            return .putBack(entries: Set(positions).sorted().map { PositionedURI(position: $0, uri: list[$0]) })
        case .move(let start, let length, let to):
            return .move(start: to, length: length, to: start)
        case .putBack(let entries):
            return .remove(positions: entries.map(\.position))
        case .permute(let order):
            // The entry at i came from order[i]: send it back (the dates a rewrite reset stay reset).
            return .permute(order: Self.inverted(order))
        case .reorder(let order):
            // Moves back: the dates stay what they were before the edit.
            return .reorder(order: Self.inverted(order))
        case .become(let target, let pairing):
            // The entries it removed come back (dated today); the ones it added go; the ones it
            // kept go back to where they were, each copy of a track to its own place.
            return .become(target: list, pairing: ListTransform.inversePairing(list: list, target: target, pairing: pairing))
        }
    }

    static func inverted(_ order: [Int]) -> [Int] {
        var back = Array(repeating: 0, count: order.count)
        for (index, origin) in order.enumerated() { back[origin] = index }
        return back
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

    /// A new order of the same entries by a rewrite: the first 100 replace the list and the rest
    /// are added in chunks (Timor's way: ⌈n/100⌉ writes, every added date reset) — unless an entry
    /// cannot be sent again (a local file, a null track: the API cannot add them), when only moves
    /// keep every entry.
    static func reordering(_ list: [String], order: [Int], into target: [String]) -> [EntryWrite] {
        if !list.contains(where: { !isResendable($0) }) { return rewrite(target) }
        return moves(order)
    }

    /// The rewrite's writes for `target`: ⌈n/100⌉.
    static func rewrite(_ target: [String]) -> [EntryWrite] {
        let first = Array(target.prefix(EntryWrite.maxURIs))
        return [.replace(uris: first)] + chunkedAdds(Array(target.dropFirst(first.count)), at: first.count)
    }

    /// How many writes a rewrite into a list of `count` entries takes.
    public static func rewriteWrites(_ count: Int) -> Int { max(1, (count + EntryWrite.maxURIs - 1) / EntryWrite.maxURIs) }

    /// Range moves that put the list in `order` (`order[i]`: the position now of the entry that
    /// ends at `i`), keeping every entry's added date. The entries of a longest increasing
    /// subsequence of `order` stay where they are relative to each other; every other entry is
    /// placed, in the target's order, right after the entry that precedes it in the target —
    /// several at once when the next ones in the target already follow it in the list (a run). So
    /// at most n − LIS writes, and exactly that when no run forms. Planned on positions, not URIs:
    /// copies of a track are told apart.
    static func moves(_ order: [Int]) -> [EntryWrite] {
        let count = order.count
        var placed = [Bool](repeating: false, count: count)
        for kept in longestIncreasing(order) { placed[order[kept]] = true }
        var current = Array(0..<count)  // entry (its position before the edit) at each index
        var index = Array(0..<count)  // index of each entry in `current`
        var writes: [EntryWrite] = []
        var i = 0
        while i < count {
            let first = order[i]
            guard !placed[first] else {
                i += 1
                continue
            }
            // The run: the next entries of the target that are not placed and already follow in the list.
            var end = i + 1
            while end < count, !placed[order[end]], index[order[end]] == index[order[end - 1]] + 1 { end += 1 }
            let start = index[first], length = end - i
            // Right after the target's previous entry (placed already), or at the top.
            let insertBefore = i == 0 ? 0 : index[order[i - 1]] + 1
            if insertBefore != start {
                let write = EntryWrite.reorder(start: start, insertBefore: insertBefore, length: length)
                writes.append(write)
                _ = write.reorder(&current)
                let target = insertBefore > start ? insertBefore - length : insertBefore
                for k in min(start, target)..<max(start + length, target + length) { index[current[k]] = k }
            }
            for k in i..<end { placed[order[k]] = true }
            i = end
        }
        return writes
    }

    /// The indices into `values` of one longest strictly increasing subsequence (patience sorting,
    /// O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var result: [Int] = []
        var k = tails.last ?? -1
        while k >= 0 {
            result.append(k)
            k = previous[k]
        }
        return result.reversed()
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
