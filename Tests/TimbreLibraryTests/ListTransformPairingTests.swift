import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// `EntryEdit.become(target:pairing:)`: copies of one track matched to the target's as a pairing
/// says (by their added dates, in a restore), so that each copy ends at its own place — the
/// simulated result is the target AND each paired entry is where its pair says; the undo puts
/// each copy back; journals written before the pairing still decode.
@Suite struct ListTransformPairingTests {
    static let (a, b, c, d) = ("spotify:track:a", "spotify:track:b", "spotify:track:c", "spotify:track:d")

    /// Where each entry of `list` (its index) ends after `plan`: the writes applied to the entries
    /// themselves, told apart by index.
    static func follow(_ plan: EntryEdit.Plan) -> [Int?] {
        var tagged = plan.before.indices.map { "\($0)|\(plan.before[$0])" }
        for write in plan.writes {
            switch write {
            case .removeEvery(let uris): tagged.removeAll { uris.contains(String($0.split(separator: "|", maxSplits: 1)[1])) }
            case .add(let uris, let position): tagged.insert(contentsOf: uris.map { "new|\($0)" }, at: position)
            case .replace(let uris): tagged = uris.map { "new|\($0)" }
            case .reorder(let start, let insertBefore, let length):
                if insertBefore >= start && insertBefore <= start + length { continue }
                let block = Array(tagged[start..<start + length])
                tagged.removeSubrange(start..<start + length)
                tagged.insert(contentsOf: block, at: insertBefore > start ? insertBefore - length : insertBefore)
            }
        }
        return tagged.map { Int($0.split(separator: "|")[0]) }
    }

    @Test func theReversedListComesBackWithEachCopyInItsOwnPlace() throws {
        let (a, b, c) = (Self.a, Self.b, Self.c)
        // Version [a(old), b, c, a(new)], reversed from outside: [a(new), c, b, a(old)].
        let list = [a, c, b, a]
        let target = [a, b, c, a]
        let listDates = ["new", "c", "b", "old"], dates = ["old", "b", "c", "new"]
        // Without dates the copies trade places (a longest common subsequence keeps the a's still).
        let unpaired = try EntryEdit.become(target: target).plan(on: list)
        #expect(Self.follow(unpaired) == [0, 2, 1, 3], "today's matching: each a stays, dates swapped")
        let pairing = try #require(ListTransform.pairing(target: target, dates: dates, list: list, listDates: listDates))
        #expect(pairing == [3, nil, nil, 0], "only copies of a track held twice are paired")
        let plan = try EntryEdit.become(target: target, pairing: pairing).plan(on: list)
        #expect(plan.result == target)
        #expect(Self.follow(plan) == [3, 2, 1, 0], "each entry ends where its date was")
        #expect(plan.writes.allSatisfy { if case .reorder = $0 { return true } else { return false } }, "moves only: every date kept")
        // Undo: each copy back where it was.
        let undo = EntryEdit.become(target: target, pairing: pairing).inverse(before: list)
        let back = try undo.plan(on: plan.result)
        #expect(back.result == list)
        #expect(Self.follow(back) == [3, 2, 1, 0])
    }

    @Test func pairedEntriesEndAtTheirPairsInGeneratedLists() throws {
        var rng = SeededGenerator(state: 3_636)
        for round in 0..<400 {
            let list = EntryPlanTests.list(Int.random(in: 1...40, using: &rng), distinct: Int.random(in: 1...8, using: &rng), &rng)
            var target = list.shuffled(using: &rng)
            if Int.random(in: 0..<3, using: &rng) == 0 { target.insert(Self.d, at: Int.random(in: 0...target.count, using: &rng)) }
            // Pair a random share of the copies: each target copy with some unused list copy.
            var free: [String: [Int]] = [:]
            for (index, uri) in list.enumerated() { free[uri, default: []].append(index) }
            for uri in free.keys.sorted() { free[uri]?.shuffle(using: &rng) }
            let pairing: [Int?] = target.map { uri in
                guard Bool.random(using: &rng), var copies = free[uri], !copies.isEmpty else { return nil }
                let index = copies.removeLast()
                free[uri] = copies
                return index
            }
            guard target != list || !ListTransform.keepsPlaces(pairing) else { continue }
            let plan = try EntryEdit.become(target: target, pairing: pairing).plan(on: list)
            #expect(plan.result == target, "round \(round)")
            let ended = Self.follow(plan)
            for (position, paired) in pairing.enumerated() where paired != nil {
                #expect(ended[position] == paired, "round \(round): position \(position) holds \(String(describing: ended[position]))")
            }
            // The undo puts every entry back where it was.
            let back = try EntryEdit.become(target: target, pairing: pairing).inverse(before: list).plan(on: target)
            #expect(back.result == list, "round \(round)")
            let returned = Self.follow(back)
            for (position, paired) in pairing.enumerated() where paired != nil {
                #expect(returned[paired ?? 0] == position, "round \(round): the entry from \(position) went to \(paired ?? 0)")
            }
        }
    }

    @Test func aPairingThatDoesNotFitIsRefusedAndOneWithoutEffectChangesNothing() throws {
        let (a, b) = (Self.a, Self.b)
        #expect(throws: EntryEdit.Invalid.planDisagrees) { try EntryEdit.become(target: [b, a], pairing: [0]).plan(on: [a, b]) }
        #expect(throws: EntryEdit.Invalid.planDisagrees) { try EntryEdit.become(target: [b, a], pairing: [0, nil]).plan(on: [a, b]) }
        #expect(throws: EntryEdit.Invalid.planDisagrees) { try EntryEdit.become(target: [a, a], pairing: [0, 0]).plan(on: [a, a, b]) }
        #expect(throws: EntryEdit.Invalid.planDisagrees) { try EntryEdit.become(target: [a, b], pairing: [5, nil]).plan(on: [b, a]) }
        #expect(throws: EntryEdit.Invalid.nothingToDo) { try EntryEdit.become(target: [a, b, a], pairing: [0, nil, 2]).plan(on: [a, b, a]) }
        // The same tracks in the same order, the copies in each other's places: moves swap them.
        let swap = try EntryEdit.become(target: [a, b, a], pairing: [2, nil, 0]).plan(on: [a, b, a])
        #expect(swap.result == [a, b, a] && Self.follow(swap) == [2, 1, 0])
        // A pairing to a copy of a track that loses copies (all go, the target's come back) is no preference.
        let fewer = try EntryEdit.become(target: [b, a], pairing: [nil, 2]).plan(on: [a, b, a])
        #expect(fewer.result == [b, a])
    }

    @Test func datesPairFirstCopiesFirstAndLeaveTheRestToThePlan() {
        let (a, b) = (Self.a, Self.b)
        // Two copies added at the same moment pair in order; a copy whose date the list lacks is left free.
        let pairing = ListTransform.pairing(
            target: [a, a, a, b], dates: ["t1", "t1", "t9", "x"], list: [a, b, a, a], listDates: ["t1", "x", "t2", "t1"])
        #expect(pairing == [0, 3, nil, nil])
        #expect(ListTransform.pairing(target: [a, b], dates: ["t1", "x"], list: [b, a], listDates: ["x", "t1"]) == nil, "no track held twice")
        #expect(ListTransform.pairing(target: [a, a], dates: [nil, nil], list: [a, a], listDates: ["t1", "t2"]) == nil, "no date known")
    }

    /// Journals on disk hold `become` without a pairing: they still decode (as no pairing), a
    /// pairing round-trips, and an edit without one is written as before.
    @Test func journalRowsWithAndWithoutAPairingDecode() throws {
        let old = #"{"become":{"target":["spotify:track:a","spotify:track:b"]}}"#
        #expect(try JSONDecoder().decode(EntryEdit.self, from: Data(old.utf8)) == .become(target: [Self.a, Self.b], pairing: nil))
        let paired = EntryEdit.become(target: [Self.a, Self.b, Self.a], pairing: [2, nil, 0])
        #expect(try JSONDecoder().decode(EntryEdit.self, from: JSONEncoder().encode(paired)) == paired)
        let plain = String(decoding: try JSONEncoder().encode(EntryEdit.become(target: [Self.a])), as: UTF8.self)
        #expect(!plain.contains("pairing"), "\(plain)")
    }
}
