import Foundation
import TimbreCore

/// What an edit costs in requests, told before its first write (issue #42: big edits say what
/// they spend of the day's quota before they spend it) and, for a dry run, carried in its
/// `requests`: the requests a real run would send.
extension PlaylistEditor {
    /// Asks the editor to tell `tell` — once an edit is planned, before its first write — the
    /// playlist's name and the requests still to come (its writes, and the reads after them that
    /// bring the cache to Spotify's list when that cannot be derived). nil: tell nobody.
    public func tellingRequests(_ tell: (@Sendable (_ playlist: String, _ toCome: Int) -> Void)?) {
        requestsTold.withLock { $0 = tell }
    }

    /// Tells the requests still to come of the edit under way, if anyone asked.
    func tellRequests(_ playlist: String, toCome: Int) {
        requestsTold.current?(playlist, toCome)
    }

    /// Requests after `writes` that bring the cache to Spotify's list (`derivedEntries`): none when
    /// every added track is in the list before them or elsewhere in the cache; one
    /// `GET /tracks/{id}` per track the cache has never seen when that is cheaper than reading the
    /// list; else the list read (its details twice and ⌈n/50⌉ pages).
    func requestsAfter(_ writes: [EntryWrite], before: [String], resultCount: Int) -> Int {
        var missing = EntryWrite.added(by: writes).subtracting(before)
        if !missing.isEmpty, let found = try? cache.anyEntries(uris: missing) { missing.subtract(found.keys) }
        guard !missing.isEmpty else { return 0 }
        return Self.asksOneByOne(missing, listCount: resultCount) ? missing.count : EntryPages.count(resultCount) + 2
    }

    /// Tracks the cache has never seen are asked one by one (`GET /tracks/{id}`) when that is
    /// cheaper than reading the list again (⌈n/50⌉ + 2 requests); episodes never are.
    static func asksOneByOne(_ missing: Set<String>, listCount: Int) -> Bool {
        missing.count <= listCount / EntryPages.size + 2 && missing.allSatisfy { $0.hasPrefix("spotify:track:") }
    }

    /// A dry run's requests still to come, had it been run: its writes, then what `requestsAfter`
    /// says of the cached list (the list an edit of a current cache plans on).
    func dryRunRequestsToCome(_ outcome: EditOutcome) -> Int {
        guard outcome.ending == .changed else { return 0 }
        if let planned = outcome.requestsToCome { return planned }
        var after = 0
        if case .playlist(let id)? = outcome.playlist, !outcome.writes.isEmpty {
            let before = (try? cache.entries(of: .playlist(id)))?.map(\.uri) ?? []
            let count = (try? cache.playlist(.playlist(id)))?.trackCount ?? before.count
            after = requestsAfter(
                outcome.writes, before: before, resultCount: max(0, count + outcome.counts.added - outcome.counts.removed))
        }
        return outcome.writes.count + outcome.libraryWrites + after
    }

    /// A sync of one playlist the cache does not hold at Spotify's snapshot: its details, then
    /// its pages of 50 (one, empty or not).
    static func syncOfOne(entries: Int) -> Int { 1 + max(1, EntryPages.count(entries)) }
}
