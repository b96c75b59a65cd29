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
///    (Hunt–Szymanski: a longest increasing subsequence over the matching pairs). A `pairing`
///    decides it first for the copies it names: `pairing[t]`, the index in the list of the entry
///    that must end at target position `t` (the same track; each entry named once), so that copies
///    of one track keep their own dates when the list is restored (paired by date where they are
///    known: `pairing(target:dates:list:listDates:)`). Where it names none, or names an entry
///    whose track loses copies (it cannot stay), the longest common subsequence decides.
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
    /// For each target position, the index in the list of the kept entry that ends there (nil:
    /// added or put back): what the inverse pairs back.
    var targetToList: [Int?] = []

    /// Beyond this many (list copy, target copy) pairs of the same track, the kept copies are
    /// matched in order instead of by a longest common subsequence (a list of thousands of copies
    /// of one track would otherwise make millions of pairs).
    static let maxPairs = 2_000_000

    init(from list: [String], to target: [String], pairing: [Int?]? = nil) throws(EntryEdit.Invalid) {
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
        let keptIndices = list.indices.filter { !drop.contains(list[$0]) }
        let keptList = keptIndices.map { list[$0] }
        let fixed = try Self.fixed(pairing, list: list, target: target, kept: keptIndices)
        let targetToKept = Self.match(keptList, in: target, fixed: fixed)
        targetToList = targetToKept.map { $0.map { keptIndices[$0] } }
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
    /// times as `target` does. `fixed[k]`: the target position kept entry `k` must take (its
    /// pairing); the other entries are matched among the positions no pairing claims.
    static func match(_ kept: [String], in target: [String], fixed: [Int?] = []) -> [Int?] {
        var claimed = [Bool](repeating: false, count: target.count)
        for case let position? in fixed { claimed[position] = true }
        var positions: [String: [Int]] = [:]
        for (index, uri) in target.enumerated() where !claimed[index] { positions[uri, default: []].append(index) }
        func candidates(_ index: Int) -> [Int] {
            if fixed.indices.contains(index), let position = fixed[index] { return [position] }
            return positions[kept[index]] ?? []
        }
        var targetToKept = [Int?](repeating: nil, count: target.count)
        var keptMatched = [Bool](repeating: false, count: kept.count)
        let pairs = kept.indices.reduce(0) { $0 + candidates($1).count }
        if pairs <= maxPairs {
            // Hunt–Szymanski: each kept entry's target positions, descending; a strictly increasing
            // subsequence of them pairs kept entries and target positions in the same order.
            var targetIndex: [Int] = [], keptIndex: [Int] = []
            targetIndex.reserveCapacity(pairs)
            keptIndex.reserveCapacity(pairs)
            for index in kept.indices {
                for position in candidates(index).reversed() {
                    targetIndex.append(position)
                    keptIndex.append(index)
                }
            }
            for pair in EntryEdit.longestIncreasing(targetIndex) {
                targetToKept[targetIndex[pair]] = keptIndex[pair]
                keptMatched[keptIndex[pair]] = true
            }
        }
        // Paired entries outside the subsequence: where their pairing says (moved there).
        for index in kept.indices where !keptMatched[index] {
            guard fixed.indices.contains(index), let position = fixed[index] else { continue }
            targetToKept[position] = index
            keptMatched[index] = true
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

    /// `pairing` (target position → list index) as the target position each kept entry must take
    /// (`kept`: the list indices of the kept entries, ascending). A pairing that does not fit the
    /// lists — another length, an index outside the list, another track, an entry named twice —
    /// is a bug or a damaged journal: refused. One naming an entry that cannot stay is no preference.
    static func fixed(_ pairing: [Int?]?, list: [String], target: [String], kept: [Int]) throws(EntryEdit.Invalid) -> [Int?] {
        guard let pairing else { return [] }
        guard pairing.count == target.count else { throw .planDisagrees }
        var keptIndex = [Int?](repeating: nil, count: list.count)
        for (index, position) in kept.enumerated() { keptIndex[position] = index }
        var used = [Bool](repeating: false, count: list.count)
        var fixed = [Int?](repeating: nil, count: kept.count)
        for (position, paired) in pairing.enumerated() {
            guard let paired else { continue }
            guard list.indices.contains(paired), list[paired] == target[position], !used[paired] else { throw .planDisagrees }
            used[paired] = true
            if let index = keptIndex[paired] { fixed[index] = position }
        }
        return fixed
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

extension ListTransform {
    /// The pairing of a restore, from the dates: each target copy of a track the list or the
    /// target holds more than once is paired with the first copy in the list, not paired yet, of
    /// the same track added at the same moment (`dates`: the target's added dates, `listDates`
    /// the list's, one per entry; nil: unknown). Copies without such a twin are left to the plan.
    /// Nil when nothing is paired (no track held twice, or no date in common).
    static func pairing(target: [String], dates: [String?], list: [String], listDates: [String?]) -> [Int?]? {
        struct Copy: Hashable {
            var uri: String
            var addedAt: String
        }
        let copies = Self.repeated(in: list, target)
        var waiting: [Copy: [Int]] = [:]
        for (index, uri) in list.enumerated() where copies.contains(uri) {
            guard listDates.indices.contains(index), let date = listDates[index] else { continue }
            waiting[Copy(uri: uri, addedAt: date), default: []].append(index)
        }
        guard !waiting.isEmpty else { return nil }
        var next: [Copy: Int] = [:]
        var pairing = [Int?](repeating: nil, count: target.count)
        var paired = false
        for (position, uri) in target.enumerated() where copies.contains(uri) {
            guard dates.indices.contains(position), let date = dates[position] else { continue }
            let copy = Copy(uri: uri, addedAt: date)
            let queue = waiting[copy] ?? [], k = next[copy] ?? 0
            guard k < queue.count else { continue }
            pairing[position] = queue[k]
            next[copy] = k + 1
            paired = true
        }
        return paired ? pairing : nil
    }

    /// The pairing of the undo of `become(target, pairing)` planned on `list`: each entry the
    /// forward plan kept goes back to the position it had (for the copies of tracks held more than
    /// once — the only ones a pairing decides). Nil when there is none, or the forward edit cannot
    /// be planned.
    static func inversePairing(list: [String], target: [String], pairing: [Int?]?) -> [Int?]? {
        guard let forward = try? ListTransform(from: list, to: target, pairing: pairing) else { return nil }
        let copies = Self.repeated(in: list, target)
        var back = [Int?](repeating: nil, count: list.count)
        var paired = false
        for (position, index) in forward.targetToList.enumerated() {
            guard let index, copies.contains(list[index]) else { continue }
            back[index] = position
            paired = true
        }
        return paired ? back : nil
    }

    /// Whether `pairing` leaves every entry it names where it is: a list equal to its target by
    /// tracks then has nothing to do (otherwise copies of a track change places, with their dates).
    static func keepsPlaces(_ pairing: [Int?]?) -> Bool {
        (pairing ?? []).enumerated().allSatisfy { $0.element == nil || $0.element == $0.offset }
    }

    /// The tracks either list holds more than once.
    static func repeated(in first: [String], _ second: [String]) -> Set<String> {
        var repeated = Set<String>()
        for list in [first, second] {
            var seen = Set<String>()
            for uri in list where !seen.insert(uri).inserted { repeated.insert(uri) }
        }
        return repeated
    }
}
