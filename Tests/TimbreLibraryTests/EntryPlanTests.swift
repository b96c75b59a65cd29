import Testing
import TimbreCore

@testable import TimbreLibrary

/// Planning edits on Spotify's endpoints: every plan, applied write by write with Spotify's
/// semantics (remove takes every copy), gives exactly the list asked for; the inverse gives the
/// original back; and the writes stay within the request budgets.
@Suite struct EntryPlanTests {
    /// Deterministic pseudo-random numbers for generated cases.
    typealias Seeded = SeededGenerator

    /// A playlist of `count` entries drawn from `distinct` tracks: many duplicates.
    static func list(_ count: Int, distinct: Int, _ rng: inout Seeded) -> [String] {
        (0..<count).map { _ in "spotify:track:t\(Int.random(in: 0..<max(1, distinct), using: &rng))" }
    }

    @Test func removingOneCopyKeepsTheOthersWhereTheyAre() throws {
        let (a, b, c) = ("spotify:track:a", "spotify:track:b", "spotify:track:c")
        let list = [a, b, a, c, a, b]
        let plan = try EntryEdit.remove(positions: [2]).plan(on: list)
        #expect(plan.result == [a, b, c, a, b])
        // Every copy of a goes, then the two kept copies come back: at 0, and at 3.
        #expect(plan.writes == [.removeEvery(uris: [a]), .add(uris: [a], position: 0), .add(uris: [a], position: 3)])
        #expect(plan.states[1] == [b, c, b])
        // A local file is never removed: neither its other copies nor an undo could be added back.
        #expect(throws: EntryEdit.Invalid.cannotAddBack("spotify:local:x:y:z:1")) {
            try EntryEdit.remove(positions: [1]).plan(on: [a, "spotify:local:x:y:z:1", a])
        }
    }

    @Test func movesForwardAndBackwardLandWhereAsked() throws {
        let list = ["0", "1", "2", "3", "4", "5"]
        let forward = try EntryEdit.move(start: 1, length: 2, to: 3).plan(on: list)
        #expect(forward.result == ["0", "3", "4", "1", "2", "5"])
        #expect(forward.writes == [.reorder(start: 1, insertBefore: 5, length: 2)])
        let backward = try EntryEdit.move(start: 4, length: 2, to: 0).plan(on: list)
        #expect(backward.result == ["4", "5", "0", "1", "2", "3"])
        #expect(backward.writes == [.reorder(start: 4, insertBefore: 0, length: 2)])
        #expect(throws: EntryEdit.Invalid.self) { try EntryEdit.move(start: 4, length: 2, to: 5).plan(on: list) }
        #expect(throws: EntryEdit.Invalid.self) { try EntryEdit.remove(positions: [6]).plan(on: list) }
    }

    @Test func insertsAreChunkedByAHundred() throws {
        let uris = (0..<250).map { "spotify:track:n\($0)" }
        let plan = try EntryEdit.insert(uris: uris, position: 1).plan(on: ["x", "y"])
        #expect(plan.writes.count == 3, "ceil(250/100) writes")
        #expect(plan.result == ["x"] + uris + ["y"])
    }

    @Test func everyGeneratedEditPlansExactlyAndUndoes() throws {
        var rng = Seeded(state: 42)
        for round in 0..<400 {
            let count = Int.random(in: 1...180, using: &rng)
            let list = Self.list(count, distinct: Int.random(in: 1...12, using: &rng), &rng)
            let edit: EntryEdit
            switch round % 3 {
            case 0:
                let positions = (0..<Int.random(in: 1...min(count, 30), using: &rng)).map { _ in Int.random(in: 0..<count, using: &rng) }
                edit = .remove(positions: positions)
            case 1:
                let uris = Self.list(Int.random(in: 1...230, using: &rng), distinct: 8, &rng)
                edit = .insert(uris: uris, position: Int.random(in: 0...count, using: &rng))
            default:
                let length = Int.random(in: 1...count, using: &rng)
                let start = Int.random(in: 0...(count - length), using: &rng)
                var to = Int.random(in: 0...(count - length), using: &rng)
                if to == start { to = start == 0 ? (count - length > 0 ? 1 : 0) : 0 }
                if to == start { continue }
                edit = .move(start: start, length: length, to: to)
            }
            let plan = try edit.plan(on: list)
            // Spotify's semantics, write by write, give the result (plan() checks; check the states too).
            for (index, write) in plan.writes.enumerated() { #expect(write.applied(to: plan.states[index]) == plan.states[index + 1]) }
            // Nothing lost that was not asked for.
            if case .remove(let positions) = edit {
                let targets = Set(positions)
                #expect(plan.result == list.enumerated().filter { !targets.contains($0.offset) }.map(\.element), "round \(round)")
                // Budget: one remove per 100 distinct tracks concerned, plus one add per contiguous run of kept copies.
                let concerned = Set(targets.map { list[$0] })
                let kept = plan.result.indices.filter { concerned.contains(plan.result[$0]) }
                let runs = EntryEdit.runs(of: kept, in: plan.result).map { ($0.count + 99) / 100 }.reduce(0, +)
                #expect(plan.writes.count == (concerned.count + 99) / 100 + runs, "round \(round)")
            }
            let undo = try edit.inverse(before: list).plan(on: plan.result)
            #expect(undo.result == list, "round \(round): undo of \(edit) restores the original")
        }
    }

    @Test func aNewOrderCostsCeilNOver100AndKeepsEveryEntry() throws {
        var rng = Seeded(state: 7)
        for count in [1, 2, 99, 100, 101, 250, 2_500] {
            let list = Self.list(count, distinct: max(1, count / 3), &rng)
            var order = Array(list.indices)
            order.shuffle(using: &rng)
            if order == Array(list.indices) { continue }
            let plan = try EntryEdit.permute(order: order).plan(on: list)
            #expect(plan.writes.count == (count + 99) / 100, "\(count) entries")
            #expect(plan.result.sorted() == list.sorted(), "the same multiset")
            #expect(plan.result == order.map { list[$0] })
            // Every state on the way holds only entries of the list: a stop anywhere loses nothing the
            // journal cannot put back, and the states tell where it stopped.
            #expect(plan.states.allSatisfy { Set($0).isSubset(of: Set(list)) })
            let undo = try EntryEdit.permute(order: order).inverse(before: list).plan(on: plan.result)
            #expect(undo.result == list)
        }
    }

    /// Range moves (the default for shuffle and sort): the entries outside a longest increasing
    /// subsequence move, so a known permutation costs exactly n − LIS writes when no run forms.
    @Test func aNewOrderByMovesCostsNMinusTheLongestIncreasingSubsequence() throws {
        let list = (0..<50).map { "spotify:track:r\($0)" }
        // Reversed: the LIS is one entry, so 49 moves (no two neighbours of the target follow each other).
        let reversed = Array(list.indices.reversed())
        let back = try EntryEdit.reorder(order: reversed).plan(on: list)
        #expect(back.result == list.reversed())
        #expect(back.writes.count == 49)
        #expect(back.writes.allSatisfy { if case .reorder = $0 { return true } else { return false } }, "nothing removed, replaced or re-added")
        // One entry from the end to the top: LIS = 49, one move.
        let rotated = [49] + Array(0..<49)
        #expect(try EntryEdit.reorder(order: rotated).plan(on: list).writes == [.reorder(start: 49, insertBefore: 0, length: 1)])
        // A known interleaving: 0 2 4 … 48 then 1 3 … 49 — LIS 26 (the evens and 49), so 24 moves.
        let interleaved = Array(stride(from: 0, to: 50, by: 2)) + Array(stride(from: 1, to: 50, by: 2))
        #expect(EntryEdit.longestIncreasing(interleaved).count == 26)
        #expect(try EntryEdit.reorder(order: interleaved).plan(on: list).writes.count == 50 - 26)
        // A run moves in one write: the last ten to the top.
        let block = Array(40..<50) + Array(0..<40)
        #expect(try EntryEdit.reorder(order: block).plan(on: list).writes == [.reorder(start: 40, insertBefore: 0, length: 10)])
    }

    @Test func everyGeneratedOrderByMovesIsExactAtMostNMinusLISAndUndoesByMoves() throws {
        var rng = Seeded(state: 11)
        for round in 0..<150 {
            let count = Int.random(in: 2...250, using: &rng)
            // Many copies of the same tracks: the plan works on positions, so copies are told apart.
            let list = Self.list(count, distinct: Int.random(in: 1...20, using: &rng), &rng)
            var order = Array(list.indices)
            switch round % 3 {
            case 0: order.shuffle(using: &rng)
            case 1:  // nearly sorted: a few entries moved
                for _ in 0..<Int.random(in: 1...5, using: &rng) {
                    order.insert(order.remove(at: Int.random(in: 0..<count, using: &rng)), at: Int.random(in: 0..<count, using: &rng))
                }
            default:  // blocks swapped
                let cut = Int.random(in: 1..<count, using: &rng)
                order = Array(order[cut...]) + Array(order[..<cut])
            }
            if order == Array(list.indices) { continue }
            let plan = try EntryEdit.reorder(order: order).plan(on: list)
            #expect(plan.result == order.map { list[$0] }, "round \(round)")
            #expect(plan.writes.count <= count - EntryEdit.longestIncreasing(order).count, "round \(round): at most n − LIS")
            #expect(plan.writes.allSatisfy { if case .reorder = $0 { return true } else { return false } })
            // Every state on the way is a permutation of the list: a stop anywhere loses nothing.
            #expect(plan.states.allSatisfy { $0.sorted() == list.sorted() })
            let undo = try EntryEdit.reorder(order: order).inverse(before: list).plan(on: plan.result)
            #expect(undo.result == list, "round \(round)")
            #expect(undo.writes.allSatisfy { if case .reorder = $0 { return true } else { return false } }, "undo moves back, dates kept")
        }
    }

    /// An interrupted plan is found where it stopped without keeping every state.
    @Test func lastStepFindsWhereAMoveSequenceStopped() throws {
        let list = (0..<30).map { "spotify:track:s\($0)" }
        var rng = Seeded(state: 3)
        let order = Array(list.indices).shuffled(using: &rng)
        let plan = try EntryEdit.reorder(order: order).plan(on: list)
        let states = plan.states
        #expect(states.count == plan.writes.count + 1 && states.first == list && states.last == plan.result)
        for (step, state) in states.enumerated() { #expect(plan.lastStep(matching: state) == step) }
        #expect(plan.lastStep(matching: Array(list.dropLast())) == nil)
        #expect(plan.before == list)
    }

    /// 10,000 entries shuffled: planned by moves without keeping 10,000 lists of 10,000.
    @Test func tenThousandEntriesPlanByMoves() throws {
        let list = (0..<10_000).map { "spotify:track:big\($0)" }
        var rng = Seeded(state: 99)
        let order = Array(list.indices).shuffled(using: &rng)
        let plan = try EntryEdit.reorder(order: order).plan(on: list)
        #expect(plan.writes.count <= 10_000 - EntryEdit.longestIncreasing(order).count)
        #expect(plan.writes.count > 9_000, "a random order keeps few entries in place")
        #expect(plan.lastStep(matching: plan.result) == plan.writes.count)
    }

    @Test func aPlaylistWithLocalFilesIsReorderedByMovesOnly() throws {
        let list = ["spotify:local:a:b:c:1", "spotify:track:x", "timbre:unusable:2", "spotify:track:y", "spotify:track:x"]
        let order = [4, 3, 2, 1, 0]
        let plan = try EntryEdit.permute(order: order).plan(on: list)
        #expect(plan.result == order.map { list[$0] })
        #expect(plan.writes.allSatisfy { if case .reorder = $0 { return true } else { return false } }, "nothing is removed and re-added")
        #expect(plan.writes.count <= list.count - 1)
    }
}

/// Finding duplicates: keep the first, exact by URI, fuzzy by normalised title, first artist and
/// duration within 2 s.
@Suite struct DuplicateFindingTests {
    static func entry(_ position: Int, _ uri: String, _ name: String, _ artist: String, _ ms: Int) -> CachedEntry {
        CachedEntry(
            position: position, kind: .track, id: uri.split(separator: ":").last.map(String.init), uri: uri, name: name,
            artists: [artist], album: nil, durationMS: ms, addedAt: nil)
    }

    @Test func exactAndFuzzyDuplicatesOfDuplicates() {
        let rows = [
            Self.entry(0, "spotify:track:a", "Heroes", "David Bowie", 371_000),
            Self.entry(1, "spotify:track:b", "Heroes - 2017 Remaster", "David Bowie", 372_500),  // fuzzy copy of 0
            Self.entry(2, "spotify:track:a", "Heroes", "David Bowie", 371_000),  // exact copy of 0
            Self.entry(3, "spotify:track:c", "Héroes (Mono Version)", "david bowie", 370_000),  // fuzzy copy of 0
            Self.entry(4, "spotify:track:b", "Heroes - 2017 Remaster", "David Bowie", 372_500),  // exact copy of 1 (itself a duplicate of 0)
            Self.entry(5, "spotify:track:d", "Heroes", "David Bowie", 300_000),  // 71 s shorter: another recording
            Self.entry(6, "spotify:track:e", "Heroes", "Blondie", 371_000),  // another artist
        ]
        let uris = rows.map(\.uri)
        let exact = Reordering.duplicates(rows, uris: uris, fuzzy: false)
        #expect(exact.map(\.position) == [2, 4])
        #expect(exact.map(\.duplicateOf) == [0, 1])
        let fuzzy = Reordering.duplicates(rows, uris: uris, fuzzy: true)
        #expect(fuzzy.map(\.position) == [1, 2, 3, 4])
        // Each points at the copy that stays: 4 repeats 1, which itself goes, so it names 0.
        #expect(fuzzy.map(\.duplicateOf) == [0, 0, 0, 0])
        #expect(Reordering.normalisedTitle("Heroes - 2017 Remaster") == "heroes")
        #expect(Reordering.normalisedTitle("Héroes (Mono Version)") == "heroes")
    }
}
