import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// `EntryEdit.become`: a list made equal to a target list (a playlist restored to a version) with
/// Spotify's writes — the simulated result is the target exactly, entries that stay are never
/// removed and added back when that can be avoided, the writes stay few, and the inverse gives
/// the list back.
@Suite struct ListTransformTests {
    static let (a, b, c, d, e) = ("spotify:track:a", "spotify:track:b", "spotify:track:c", "spotify:track:d", "spotify:track:e")
    static let (x, y) = ("spotify:track:x", "spotify:track:y")
    static let local = "spotify:local:Artist:Album:Home+Demo:180"

    /// The writes of `plan` that take out every copy of a track.
    static func removedTracks(_ plan: EntryEdit.Plan) -> [String] {
        plan.writes.flatMap { write -> [String] in
            if case .removeEvery(let uris) = write { return uris }
            return []
        }
    }

    static func addedURIs(_ plan: EntryEdit.Plan) -> Int {
        plan.writes.reduce(0) { sum, write in
            if case .add(let uris, _) = write { return sum + uris.count }
            return sum
        }
    }

    static func reorders(_ plan: EntryEdit.Plan) -> Int {
        plan.writes.filter { if case .reorder = $0 { return true } else { return false } }.count
    }

    @Test func aCopyPutBackIsAddedWhereItBelongsAndNothingElseMoves() throws {
        let (a, x, y) = (Self.a, Self.x, Self.y)
        // The version had a first copy of a that was removed since: one add, no move, no removal
        // (matching the kept a to the first copy of the target would have cost a move too).
        let plan = try EntryEdit.become(target: [a, x, a, y]).plan(on: [x, a, y])
        #expect(plan.writes == [.add(uris: [a], position: 0)])
        #expect(plan.result == [a, x, a, y])
    }

    @Test func movedAddedAndRemovedEntriesTakeOneWriteEach() throws {
        let (a, b, c, d, e) = (Self.a, Self.b, Self.c, Self.d, Self.e)
        let plan = try EntryEdit.become(target: [d, a, b, c, e]).plan(on: [a, b, x(1), c, d])
        #expect(plan.writes == [.removeEvery(uris: [x(1)]), .reorder(start: 3, insertBefore: 0, length: 1), .add(uris: [e], position: 4)])
        let transform = try ListTransform(from: [a, b, x(1), c, d], to: [d, a, b, c, e])
        #expect(transform.removed == 1 && transform.added == 1 && transform.moved == 1 && transform.readded == 0 && transform.kept == 4)
    }

    func x(_ n: Int) -> String { "spotify:track:extra\(n)" }

    @Test func aTrackHeldFewerTimesLosesEveryCopyAndGetsTheTargetsBack() throws {
        let (a, b, c) = (Self.a, Self.b, Self.c)
        // Spotify cannot remove one copy: every a goes, the one the version holds comes back.
        let plan = try EntryEdit.become(target: [a, b, c]).plan(on: [a, b, a, c])
        #expect(plan.writes == [.removeEvery(uris: [a]), .add(uris: [a], position: 0)])
        let transform = try ListTransform(from: [a, b, a, c], to: [a, b, c])
        #expect(transform.removed == 1 && transform.readded == 1 && transform.added == 0 && transform.kept == 2)
        #expect(ListTransform.surplus(in: [a, b, a, c], target: [a, b, c]) == [2], "the dry run names the second a")
    }

    @Test func localFilesAreKeptAndMovedButNeverAddedOrRemoved() throws {
        let (a, b, local) = (Self.a, Self.b, Self.local)
        let moved = try EntryEdit.become(target: [a, b, local]).plan(on: [local, a, b])
        #expect(moved.writes == [.reorder(start: 0, insertBefore: 3, length: 1)], "one move keeps its place in the list")
        #expect(throws: EntryEdit.Invalid.cannotAddBack(local)) { try EntryEdit.become(target: [a]).plan(on: [local, a]) }
        #expect(throws: EntryEdit.Invalid.cannotAddBack(local)) { try EntryEdit.become(target: [a, local]).plan(on: [a]) }
        #expect(throws: EntryEdit.Invalid.cannotAddBack(local)) { try EntryEdit.become(target: [local, a]).plan(on: [local, local, a]) }
        #expect(throws: EntryEdit.Invalid.nothingToDo) { try EntryEdit.become(target: [a, b]).plan(on: [a, b]) }
    }

    @Test func emptyListsBothWays() throws {
        let (a, b) = (Self.a, Self.b)
        let filled = try EntryEdit.become(target: [a, b, a]).plan(on: [])
        #expect(filled.writes == [.add(uris: [a, b, a], position: 0)])
        let emptied = try EntryEdit.become(target: []).plan(on: [a, b, a])
        #expect(emptied.writes == [.removeEvery(uris: [a, b])])
        // The undo pairs each kept copy back to its place; nothing kept, nothing paired.
        #expect(EntryEdit.become(target: [a, b, a]).inverse(before: [a, b, a]) == .become(target: [a, b, a], pairing: [0, nil, 2]))
        #expect(EntryEdit.become(target: []).inverse(before: [a, b, a]) == .become(target: [a, b, a]))
    }

    /// The length of a longest common subsequence (the most entries that can stay in place).
    static func lcs(_ p: [String], _ q: [String]) -> Int {
        var row = [Int](repeating: 0, count: q.count + 1)
        for i in p.indices {
            var previous = 0
            for j in q.indices {
                let saved = row[j + 1]
                row[j + 1] = p[i] == q[j] ? previous + 1 : max(row[j + 1], row[j])
                previous = saved
            }
        }
        return row[q.count]
    }

    /// A target the way versions differ: entries removed, added (new tracks and copies), moved.
    static func target(from list: [String], _ rng: inout SeededGenerator) -> [String] {
        var target = list
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0 where !target.isEmpty: target.remove(at: Int.random(in: 0..<target.count, using: &rng))
            case 1: target.insert("spotify:track:n\(Int.random(in: 0..<8, using: &rng))", at: Int.random(in: 0...target.count, using: &rng))
            case 2 where !target.isEmpty:
                target.insert(target[Int.random(in: 0..<target.count, using: &rng)], at: Int.random(in: 0...target.count, using: &rng))
            case 3 where !target.isEmpty:
                let moving = target.remove(at: Int.random(in: 0..<target.count, using: &rng))
                target.insert(moving, at: Int.random(in: 0...target.count, using: &rng))
            default: break
            }
        }
        if Int.random(in: 0..<8, using: &rng) == 0 { target.shuffle(using: &rng) }
        return target
    }

    @Test func everyGeneratedTargetIsReachedExactlyWithFewWritesAndUndone() throws {
        var rng = SeededGenerator(state: 36)
        var planned = 0
        for round in 0..<600 {
            let list = EntryPlanTests.list(Int.random(in: 0...60, using: &rng), distinct: Int.random(in: 1...15, using: &rng), &rng)
            let target = round % 10 == 9 ? EntryPlanTests.list(Int.random(in: 0...60, using: &rng), distinct: 10, &rng) : Self.target(from: list, &rng)
            guard target != list else { continue }
            planned += 1
            let plan = try EntryEdit.become(target: target).plan(on: list)
            // Spotify's semantics, write by write, give the target exactly.
            var state = list
            for write in plan.writes { #expect(write.apply(to: &state), "round \(round)") }
            #expect(state == target && plan.result == target, "round \(round)")
            // A track the target holds at least as many times is never taken out: its entries keep their dates.
            var have: [String: Int] = [:], want: [String: Int] = [:]
            for uri in list { have[uri, default: 0] += 1 }
            for uri in target { want[uri, default: 0] += 1 }
            let removed = Self.removedTracks(plan)
            #expect(removed.allSatisfy { have[$0, default: 0] > want[$0, default: 0] }, "round \(round): a kept track was removed")
            #expect(Set(removed).count == removed.count, "round \(round): each track removed once")
            // Only what the target lacks is added: new entries and the copies of the tracks taken out.
            let keptCount = list.filter { have[$0, default: 0] <= want[$0, default: 0] }.count
            #expect(Self.addedURIs(plan) == target.count - keptCount, "round \(round)")
            // Few moves: no more than the kept entries outside a longest common subsequence.
            let kept = list.filter { have[$0, default: 0] <= want[$0, default: 0] }
            #expect(Self.reorders(plan) <= kept.count - Self.lcs(kept, target), "round \(round)")
            // One add per run of missing target positions (runs are short here: below 100).
            let transform = try ListTransform(from: list, to: target)
            #expect(transform.kept == keptCount && transform.added + transform.readded + transform.kept == target.count)
            #expect(transform.removed + transform.readded + transform.kept == list.count)
            // Undo: the list comes back.
            let undo = try EntryEdit.become(target: target).inverse(before: list).plan(on: target)
            #expect(undo.result == list, "round \(round)")
            // Resumable: from wherever it stopped, the rest of the plan reaches the target.
            for (step, reached) in plan.states.enumerated() {
                guard let found = plan.lastStep(matching: reached) else {
                    Issue.record("round \(round): step \(step) not found")
                    continue
                }
                var rest = reached
                for write in plan.writes[found...] { _ = write.apply(to: &rest) }
                #expect(rest == target, "round \(round): resumed from step \(found) (stopped after \(step))")
            }
        }
        #expect(planned > 500)
    }

    @Test func tenThousandEntriesWithAFewChangesPlanInAFewWrites() throws {
        let list = (0..<10_000).map { "spotify:track:big\($0 % 7_000)" }  // 3,000 tracks held twice
        var target = list
        target.remove(at: 5_000)  // a copy of a doubled track: both go, one comes back
        target.insert("spotify:track:fresh", at: 100)
        let moving = target.remove(at: 9_000)
        target.insert(moving, at: 10)
        let plan = try EntryEdit.become(target: target).plan(on: list)
        #expect(plan.result == target)
        #expect(plan.writes.count <= 4, "\(plan.writes)")
        #expect(plan.lastStep(matching: target) == plan.writes.count)
    }

    @Test func oneTrackThousandsOfTimesFallsBackToMatchingInOrder() throws {
        let list = Array(repeating: Self.a, count: 2_000) + [Self.b]
        let target = [Self.b] + Array(repeating: Self.a, count: 2_001)
        // 2,000 × 2,001 pairs of copies: beyond the pairs a longest common subsequence is sought among.
        let plan = try EntryEdit.become(target: target).plan(on: list)
        #expect(plan.result == target)
        #expect(Self.removedTracks(plan).isEmpty, "every copy stays")
        #expect(plan.writes.count <= 3)
    }

    /// Journals on disk hold the cases before `become`: they still decode, and the new one round-trips.
    @Test func journalRowsOfEveryVersionDecode() throws {
        let old = #"{"insert":{"uris":["spotify:track:a"],"position":0}}"#
        #expect(try JSONDecoder().decode(EntryEdit.self, from: Data(old.utf8)) == .insert(uris: ["spotify:track:a"], position: 0))
        let reorder = #"{"reorder":{"order":[1,0]}}"#
        #expect(try JSONDecoder().decode(EntryEdit.self, from: Data(reorder.utf8)) == .reorder(order: [1, 0]))
        let become = EntryEdit.become(target: [Self.a, Self.b])
        #expect(try JSONDecoder().decode(EntryEdit.self, from: JSONEncoder().encode(become)) == become)
        let library = #"{"uris":["spotify:playlist:37i9dQZF1DXcBWIGoYBM5M"],"save":false}"#
        let decoded = try JSONDecoder().decode(LibraryEdit.self, from: Data(library.utf8))
        #expect(decoded == LibraryEdit(uris: ["spotify:playlist:37i9dQZF1DXcBWIGoYBM5M"], save: false) && decoded.fill == nil)
        let filled = LibraryEdit(uris: [], save: true, fill: [Self.a])
        #expect(try JSONDecoder().decode(LibraryEdit.self, from: JSONEncoder().encode(filled)) == filled)
        #expect(!String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self).contains("fill"), "older rows are written as before")
    }
}
