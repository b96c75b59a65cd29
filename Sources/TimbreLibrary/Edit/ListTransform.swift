/// How `EntryEdit.become` turns a list into a target list (a playlist made equal to one of its
/// versions) with the fewest writes that keep the added date of every entry that stays:
///
/// 1. The list's entries are matched to the target's, copy for copy of the same URI. A track the
///    target holds fewer times than the list (but not zero) loses every copy to Spotify's remove —
///    there is no positional removal — so its copies are all taken out and the target's put back
///    (`readded`: dated today). Every other track of the list keeps each copy it has.
/// 2. One `removeEvery` per 100 tracks to take out.
/// 3. The kept entries put in the target's order by range moves (`EntryEdit.moves`, outside a
///    longest increasing subsequence). Which target copy a kept copy stands for is chosen to keep
///    as many in place as possible: a longest common subsequence of the kept list and the target
///    (Hunt–Szymanski: a longest increasing subsequence over the matching pairs).
/// 4. The target's entries still missing added in contiguous runs, in ascending order, each at its
///    final index (≤ 100 a write).
///
/// Deterministic — no dictionary or set order decides anything — so a plan made again from the
/// journal (resumption, undo) is the same plan.
struct ListTransform: Equatable, Sendable {
    var writes: [EntryWrite]
    /// Entries of the list that the target does not hold (gone for good).
    var removed = 0
    /// Entries of the target that the list did not hold (new, dated today).
    var added = 0
    /// Entries of tracks the target holds fewer times than the list: Spotify's remove took every
    /// copy, the plan put the target's back (dated today).
    var readded = 0
    /// Kept entries moved by range moves (their dates kept).
    var moved = 0
    /// Kept entries, moved or not: their added dates stay.
    var kept = 0

    /// Beyond this many (list copy, target copy) pairs of the same track, the kept copies are
    /// matched in order instead of by a longest common subsequence (a list of thousands of copies
    /// of one track would otherwise make millions of pairs).
    static let maxPairs = 2_000_000

    init(from list: [String], to target: [String]) throws(EntryEdit.Invalid) {
        var have: [String: Int] = [:], want: [String: Int] = [:]
        for uri in list { have[uri, default: 0] += 1 }
        for uri in target { want[uri, default: 0] += 1 }
        // A local file (or an entry without a track) can neither be added nor removed and put back.
        if let stuck = (list + target).first(where: { !EntryEdit.isResendable($0) && have[$0, default: 0] != want[$0, default: 0] }) {
            throw .cannotAddBack(stuck)
        }
        // Tracks that lose copies: every copy goes (in the order they first appear).
        var dropped: [String] = [], drop = Set<String>()
        for uri in list where have[uri, default: 0] > want[uri, default: 0] && drop.insert(uri).inserted { dropped.append(uri) }
        let keptList = list.filter { !drop.contains($0) }
        let targetToKept = Self.match(keptList, in: target)
        // order[k]: the index in the kept list of the entry that ends at the k-th kept target position.
        let order = targetToKept.compactMap { $0 }
        guard order.count == keptList.count else { throw .planDisagrees }
        let removals = stride(from: 0, to: dropped.count, by: EntryWrite.maxURIs).map {
            EntryWrite.removeEvery(uris: Array(dropped[$0..<min($0 + EntryWrite.maxURIs, dropped.count)]))
        }
        let moves = order == Array(order.indices) ? [] : EntryEdit.moves(order)
        let missing = target.indices.filter { targetToKept[$0] == nil }
        let adds = EntryEdit.runs(of: missing, in: target).flatMap { EntryEdit.chunkedAdds(Array(target[$0]), at: $0.lowerBound) }
        writes = removals + moves + adds
        kept = keptList.count
        readded = dropped.reduce(0) { $0 + want[$1, default: 0] }
        removed = list.count - kept - readded
        added = target.count - kept - readded
        moved = moves.reduce(0) { sum, write in
            if case .reorder(_, _, let length) = write { return sum + length }
            return sum
        }
    }

    /// Every entry of `kept` given a target position holding the same track; as many as possible
    /// in the same relative order (they need no move). `kept` holds each track at most as many
    /// times as `target` does.
    static func match(_ kept: [String], in target: [String]) -> [Int?] {
        var positions: [String: [Int]] = [:]
        for (index, uri) in target.enumerated() { positions[uri, default: []].append(index) }
        var targetToKept = [Int?](repeating: nil, count: target.count)
        var keptMatched = [Bool](repeating: false, count: kept.count)
        let pairs = kept.reduce(0) { $0 + (positions[$1]?.count ?? 0) }
        if pairs <= maxPairs {
            // Hunt–Szymanski: each kept entry's target positions, descending; a strictly increasing
            // subsequence of them pairs kept entries and target positions in the same order.
            var targetIndex: [Int] = [], keptIndex: [Int] = []
            targetIndex.reserveCapacity(pairs)
            keptIndex.reserveCapacity(pairs)
            for (index, uri) in kept.enumerated() {
                for position in (positions[uri] ?? []).reversed() {
                    targetIndex.append(position)
                    keptIndex.append(index)
                }
            }
            for pair in EntryEdit.longestIncreasing(targetIndex) {
                targetToKept[targetIndex[pair]] = keptIndex[pair]
                keptMatched[keptIndex[pair]] = true
            }
        }
        // The rest, copy by copy in order, to the target's copies of the same track still free.
        var next: [String: Int] = [:]
        for (index, uri) in kept.enumerated() where !keptMatched[index] {
            let free = positions[uri] ?? []
            var k = next[uri] ?? 0
            while k < free.count, targetToKept[free[k]] != nil { k += 1 }
            guard k < free.count else { continue }  // cannot happen: the caller checked the counts
            targetToKept[free[k]] = index
            keptMatched[index] = true
            next[uri] = k + 1
        }
        return targetToKept
    }
}

extension ListTransform {
    /// The positions in `list` of the entries `target` does not keep: of each track the list
    /// holds more times than the target, the copies after the first ones the target keeps (what a
    /// dry run names as removed).
    static func surplus(in list: [String], target: [String]) -> [Int] {
        var want: [String: Int] = [:], seen: [String: Int] = [:]
        for uri in target { want[uri, default: 0] += 1 }
        return list.indices.filter { index in
            seen[list[index], default: 0] += 1
            return seen[list[index], default: 0] > want[list[index], default: 0]
        }
    }
}
