import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreLibrary

/// An order change stopped between two of its range moves (`EditStop`): the order the first k
/// moves leave, worked out on indices, is a permutation; planned again from the list before, it
/// gives exactly that list, and its inverse gives the list before back.
@Suite struct EditStopTests {
    /// Every prefix of a shuffle's moves, on a list with many copies of few tracks.
    @Test func everyPrefixOfTheMovesIsTheOrderTheJournalKeeps() throws {
        var rng = SeededGenerator(state: 7)
        let list = (0..<60).map { _ in "spotify:track:t\(Int.random(in: 0..<9, using: &rng))" }
        let order = Reordering.shuffled(list.count, seed: 11)
        let plan = try EntryEdit.reorder(order: order).plan(on: list)
        #expect(plan.writes.count > 5)
        var live = list
        for k in 1..<plan.writes.count {
            #expect(plan.writes[k - 1].apply(to: &live))
            let prefix = try #require(EditStop.order(after: plan.writes.prefix(k), count: list.count))
            #expect(prefix.sorted() == Array(list.indices), "a permutation: every entry once")
            #expect(prefix.map { list[$0] } == live, "the order names the list the k moves left")
            let applied = EntryEdit.reorder(order: prefix)
            let replanned = try applied.plan(on: list)
            #expect(replanned.result == live, "the journal's edit, planned from before, is the live list")
            let undo = try applied.inverse(before: list).plan(on: live)
            #expect(undo.result == list, "its undo puts the old order back")
        }
        #expect(EditStop.order(after: plan.writes[...], count: list.count) == order)
    }

    @Test func onlyRangeMovesAreSimulated() {
        #expect(EditStop.order(after: [EntryWrite.replace(uris: ["spotify:track:a"])][...], count: 1) == nil)
        #expect(EditStop.order(after: [EntryWrite.reorder(start: 3, insertBefore: 0, length: 1)][...], count: 2) == nil)
    }

    @Test func aRequestCountsOnlyWhileRangeMovesRun() {
        let stop = EditStop()
        #expect(stop.request() == .idle)
        stop.begin(stoppable: false)
        #expect(stop.request() == .finishes)
        #expect(!stop.isRequested)
        stop.end()
        stop.begin(stoppable: true)
        #expect(stop.isStoppable)
        #expect(stop.request() == .stopping)
        #expect(stop.isRequested)
        stop.end()
        #expect(!stop.isRequested && !stop.isStoppable)
        // A request made before the writes start is forgotten when they start.
        stop.begin(stoppable: true)
        #expect(!stop.isRequested)
    }
}

/// The same against the sandbox over TLS, with a real cache and journal: a shuffle stopped after
/// three moves leaves the SANDBOX's playlist a permutation of what it was with every added date
/// kept, the journal entry done with the moves made, and an undo puts back the old order exactly.
@Suite(.tags(.integration), .integrationTier) struct EditStopSandboxTests {
    static func pairs(_ items: [SandboxEntry]) -> [String] { items.map { "\($0.uri ?? "")|\($0.addedAt ?? "")" }.sorted() }

    @Test func aStoppedShuffleLeavesAPermutationAndAnUndoStep() async throws {
        let h = try await Harness.start(.small)
        try await withCleanup({ await h.stop() }) {
            _ = try await h.sync()
            let data = try UserData(path: h.dir.path("data/timbre.sqlite"))
            let stop = EditStop()
            let stopAfter = 3
            let progress = Locked<[Int]>([])
            let editor = PlaylistEditor(
                api: h.api, cache: h.cache, journal: data.journal,
                progress: { done, _ in
                    progress.withLock { $0.append(done) }
                    if done == stopAfter { stop.request() }
                })
            let library = Door(folders: { data.folders }, editor: { editor })
            let playlist = try await RestoreSandboxTests().ownPlaylist(h)
            let id = try #require(PlaylistID(playlist.id))
            let before = playlist.items
            let change = LibraryChange.entries(id, .shuffle, .init(seed: 42))
            let planned = try #require(try await library.perform(change, dryRun: true).edit)
            #expect(planned.writes.count > stopAfter + 1, "enough moves to stop part-way")

            let outcome = try #require(try await library.perform(change, stop: stop).edit)
            #expect(outcome.ending == .stopped(done: stopAfter, total: planned.writes.count))
            #expect(progress.current.last == stopAfter, "no write after the stop")
            #expect(outcome.writes == Array(planned.writes.prefix(stopAfter)))
            let after = try await h.sandbox.playlistInfo(playlist.id).items
            #expect(after.map { $0.uri ?? "" } != before.map { $0.uri ?? "" }, "part of the order was made")
            #expect(Self.pairs(after) == Self.pairs(before), "a permutation: every entry there, every added date kept")
            let cached = try #require(try h.cache.entries(of: .playlist(id)))
            #expect(cached.sorted { $0.position < $1.position }.map(\.uri) == after.map { $0.uri ?? "" }, "the cache holds what the sandbox holds")

            let journalID = try #require(outcome.journalID)
            // What the words are made of (TimbreAppTests.EditReportTests words them).
            #expect(outcome.ending == .stopped(done: stopAfter, total: planned.writes.count) && outcome.operation == .shuffle)
            let entry = try #require(try data.journal.entry(journalID))
            #expect(entry.state == .done)
            guard case .entries(.reorder(let order), let journalled) = entry.change else {
                Issue.record("the journal holds the moves made as a reorder")
                return
            }
            #expect(journalled == before.map { $0.uri ?? "" })
            #expect(order.map { journalled[$0] } == after.map { $0.uri ?? "" })

            let undone = try #require(try await library.perform(.undo()).edit)
            #expect(undone.journalID == entry.id)
            let back = try await h.sandbox.playlistInfo(playlist.id).items
            #expect(back.map { $0.uri ?? "" } == before.map { $0.uri ?? "" }, "the undo puts back the old order exactly")
            #expect(Self.pairs(back) == Self.pairs(before), "with every date")
            #expect(try data.journal.entry(entry.id)?.state == .undone)
        }
    }
}
