import Foundation
import TimbreCore
import TimbreNet

/// Edits of a playlist's entries: planned on the playlist as Spotify holds it, priced, journalled, sent.
extension PlaylistEditor {
    /// Runs `what` on `playlist`, as `LibraryChange.entries` asks. `dryRun`: planned and priced,
    /// nothing journalled or sent. `choose`: before a shuffle or sort saves, what the person asked
    /// picks (moves, rewrite, nothing); nil: as `options.rewrite` says. `stop`: asked while a
    /// shuffle or sort runs by range moves, they stop between two writes.
    func apply(
        _ what: LibraryChange.EntryChange, to playlist: SpotifyID, options: LibraryChange.EntryOptions = .init(), dryRun: Bool = false,
        choose: (@Sendable (OrderCost) async -> OrderChoice)? = nil, stop: EditStop? = nil
    ) async throws -> EditOutcome {
        try await operation {
            // The cache's list when its snapshot is Spotify's; whose playlist it is checked first.
            let live = try await planningBase(playlist)
            var duplicates: (removable: [Reordering.Duplicate], skipped: Int)?
            if case .dedupe(let fuzzy) = what { duplicates = Self.duplicates(in: live, fuzzy: fuzzy) }
            var edit: EntryEdit
            let plan: EntryEdit.Plan
            var orderCost: OrderCost?
            do {
                edit = try resolve(what, in: playlist, options: options, on: live, duplicates: duplicates?.removable ?? [])
                if case .reorder(let order) = edit {
                    // A new order: priced both ways, and (not in a dry run) the caller may choose.
                    let cost = Self.orderCost(order, of: what, on: live, secondsPerWrite: measuredRoundTrip.current)
                    orderCost = cost
                    if !dryRun, let choose {
                        switch await choose(cost) {
                        case .moves: break
                        case .rewrite: edit = .permute(order: order)
                        case .cancel: throw OrderCancelled()
                        }
                    } else if options.rewrite {
                        edit = .permute(order: order)
                    }
                }
                if case .insert(let uris, _) = edit, live.uris.count + uris.count > Self.maxEntries {
                    throw InvalidEdit(
                        message:
                            "“\(TerminalText.preview(live.meta.name, limit: 60))” would hold \(live.uris.count + uris.count) entries; Spotify keeps at most \(Self.maxEntries) in a playlist",
                        hint: "nothing was written; split the items over several playlists")
                }
                plan = try Self.plan(edit, on: live.uris)
            } catch is OrderCancelled {
                var outcome = EditOutcome(
                    operation: what.operation, playlist: .playlist(playlist), playlistName: live.meta.name,
                    snapshotID: live.meta.snapshotID, writes: [], dryRun: false)
                outcome.ending = .cancelled
                return outcome
            } catch let nothing as NothingToChange {
                // Already as asked (no duplicates, already in that order): done, with nothing sent.
                var outcome = EditOutcome(
                    operation: what.operation, playlist: .playlist(playlist), playlistName: live.meta.name,
                    snapshotID: live.meta.snapshotID, writes: [], dryRun: dryRun)
                outcome.ending = .unchanged(nothing.message)
                outcome.orderCost =
                    orderCost
                    ?? (what.isOrderChange
                        ? Self.orderCost(Array(live.uris.indices), of: what, on: live, secondsPerWrite: measuredRoundTrip.current) : nil)
                return outcome
            }
            var outcome = EditOutcome(
                operation: what.operation, playlist: .playlist(playlist), playlistName: live.meta.name, snapshotID: live.meta.snapshotID,
                writes: plan.writes, dryRun: dryRun)
            outcome.orderCost = orderCost
            if case .permute = edit {
                if plan.writes.contains(where: { if case .replace = $0 { return true } else { return false } }) { outcome.dates = .rewritten }
            }
            Self.count(edit, plan: plan, into: &outcome)
            outcome.entries = Self.named(edit, duplicates: duplicates?.removable ?? [], in: live)
            if let duplicates {
                outcome.duplicates = duplicates.removable.map { ($0.position, $0.uri, $0.duplicateOf) }
                if duplicates.skipped > 0 {
                    outcome.warnings.append(
                        "\(duplicates.skipped) duplicate(s) involve local files, which Spotify's API cannot add back; they were left as they are")
                }
            }
            if dryRun { return outcome }
            let id = try journal.begin(
                op: what.operation, playlist: .playlist(playlist), summary: Self.describe(edit, in: live.meta.name),
                change: .entries(edit, before: live.uris))
            return try await sendEntries(plan, edit: edit, to: playlist, stop: stop, on: live, journalID: id, outcome: outcome)
        }
    }

    // MARK: Planning

    /// The request in positions of the live playlist. Positional edits are planned on what the
    /// user saw: when the cache's snapshot is not Spotify's, that is a conflict — unless `force`,
    /// which finds the same entries by URI and occurrence.
    /// `dedupe`'s findings: the duplicates that can go, and how many cannot (a local file is never
    /// removed: neither it nor the copy it repeats could be added back).
    static func duplicates(in live: LivePlaylist, fuzzy: Bool) -> (removable: [Reordering.Duplicate], skipped: Int) {
        let all = Reordering.duplicates(Reordering.entries(of: live), uris: live.uris, fuzzy: fuzzy)
        let removable = all.filter { EntryEdit.isResendable($0.uri) && EntryEdit.isResendable(live.uris[$0.duplicateOf]) }
        return (removable, all.count - removable.count)
    }

    /// `duplicates`: for `dedupe`, what `duplicates(in:fuzzy:)` found.
    func resolve(
        _ what: LibraryChange.EntryChange, in playlist: SpotifyID, options: LibraryChange.EntryOptions = .init(), on live: LivePlaylist,
        duplicates: [Reordering.Duplicate] = []
    ) throws -> EntryEdit {
        var map: (Int) throws -> Int = { $0 }
        // The user saw the cached list. The snapshot says whether Spotify's is the same; when the
        // cache does not know its snapshot (an upgraded cache before its next sync), the entries do.
        if what.isPositional, let cached = try cache.playlist(.playlist(playlist)),
            let entries = try cache.entries(of: .playlist(playlist))
        {
            let sameSnapshot = cached.snapshotID.map { $0 == live.meta.snapshotID }
            let sameEntries =
                cached.trackCount == live.uris.count
                && entries.allSatisfy { live.uris.indices.contains($0.position) && live.uris[$0.position] == $0.uri }
            if !(sameSnapshot ?? sameEntries) {
                guard options.force else { throw EditConflict(playlist: live.meta.name, cached: cached.snapshotID, live: live.meta.snapshotID) }
                map = { position in try Self.occurrence(of: position, in: entries, live: live.uris) }
            }
        }
        /// The live positions of the entries the user saw at `positions` (each must name a track).
        func exactly(_ positions: [Int]) throws -> [Int] {
            let mapped = try positions.map(map)
            if let bad = mapped.first(where: { live.uris.indices.contains($0) && LivePlaylist.isUnusable(live.uris[$0]) }) {
                throw InvalidEdit(message: "the entry at position \(bad + 1) has no track Spotify can name, so it cannot be removed", hint: nil)
            }
            return mapped
        }
        /// The live positions of every copy of `uris` (at least one).
        func everyCopy(of uris: [String]) throws -> [Int] {
            let wanted = Set(uris)
            let positions = live.uris.indices.filter { wanted.contains(live.uris[$0]) }
            guard !positions.isEmpty else {
                throw InvalidEdit(
                    message: "none of the given tracks is in “\(TerminalText.preview(live.meta.name, limit: 60))”",
                    hint: "`timbre tracks REF` lists its entries")
            }
            return positions
        }
        switch what {
        case .add(let uris, let position):
            try LibraryChange.checkAddable(uris)
            return .insert(uris: uris, position: position ?? live.uris.count)
        case .removePositions(let positions):
            return .remove(positions: try exactly(positions))
        case .removeMixed(let positions, let uris):
            return .remove(positions: Array(Set(try exactly(positions)).union(try everyCopy(of: uris))).sorted())
        case .removeURIs(let uris):
            return .remove(positions: try everyCopy(of: uris))
        case .shuffle:
            // Planned as moves; `apply` turns it into a rewrite when that is asked for.
            return .reorder(order: Reordering.shuffled(live.uris.count, seed: options.seed))
        case .sort(let key, let reverse):
            return .reorder(order: Reordering.sorted(Reordering.entries(of: live), by: key, reverse: reverse))
        case .become(let target, let dates):
            return try Self.becoming(target, addedAt: dates, on: live)
        case .dedupe:
            guard !duplicates.isEmpty else { throw NothingToChange(message: "“\(TerminalText.preview(live.meta.name, limit: 60))” has no duplicates") }
            return .remove(positions: duplicates.map(\.position))
        case .move(let start, let length, let to):
            let mapped = try (start..<start + length).map(map)
            guard mapped == Array(mapped[0]..<mapped[0] + length) else {
                throw InvalidEdit(
                    message: "the entries to move are no longer next to each other on Spotify", hint: "run `timbre sync` and choose the range again")
            }
            return .move(start: mapped[0], length: length, to: to)
        }
    }

    /// The live position of the entry the cache had at `position`: the same URI, the same
    /// occurrence of it.
    static func occurrence(of position: Int, in cached: [CachedEntry], live: [String]) throws -> Int {
        guard let entry = cached.first(where: { $0.position == position }) else {
            throw InvalidEdit(message: "there is no entry at position \(position + 1) in the cached playlist", hint: "`timbre tracks REF` lists its entries")
        }
        let nth = cached.filter { $0.uri == entry.uri && $0.position < position }.count
        guard let found = follow(entry.uri, occurrence: nth, in: live) else {
            throw InvalidEdit(
                message: "“\(TerminalText.preview(entry.name, limit: 60))” (position \(position + 1)) is no longer in the playlist on Spotify", hint: nil)
        }
        return found
    }

    /// The position in `list` of the `nth` (0-based) copy of `uri`, if it has that many.
    static func follow(_ uri: String, occurrence nth: Int, in list: [String]) -> Int? {
        var seen = 0
        for index in list.indices where list[index] == uri {
            if seen == nth { return index }
            seen += 1
        }
        return nil
    }

    static func plan(_ edit: EntryEdit, on list: [String]) throws -> EntryEdit.Plan {
        do {
            return try edit.plan(on: list)
        } catch .positionOutOfRange(let position, let count) {
            throw InvalidEdit(
                message: count > 0
                    ? "position \(position + 1) is outside the playlist (1–\(count))" : "position \(position + 1) is outside the playlist (it is empty)",
                hint: "positions count from 1; `timbre tracks REF` lists its entries with their positions")
        } catch .nothingToDo {
            throw NothingToChange(message: "that edit changes nothing")
        } catch .cannotAddBack(let uri) {
            throw InvalidEdit(
                message: LivePlaylist.isUnusable(uri)
                    ? "an entry without a track cannot be removed through Spotify's API"
                    : "“\(TerminalText.preview(uri, limit: 80))” is a local file: Spotify's API cannot add it back, so timbre removes neither it nor other copies of it (an undo could not restore them)",
                hint: "remove local files in the Spotify app; nothing was written")
        } catch {
            throw InvalidEdit(message: "timbre could not plan that edit safely, so nothing was written", hint: "please report this with the command you ran")
        }
    }

    /// The entries a removal or a move concerns, named as `timbre tracks` shows them.
    static func named(_ edit: EntryEdit, duplicates: [Reordering.Duplicate], in live: LivePlaylist) -> [String] {
        let entries = Reordering.entries(of: live)
        func label(_ position: Int) -> String {
            guard entries.indices.contains(position), let entry = entries[position] else { return "#\(position + 1) (no track Spotify can name)" }
            return entry.label
        }
        if !duplicates.isEmpty { return duplicates.map { "\(label($0.position)) (repeats #\($0.duplicateOf + 1))" } }
        switch edit {
        case .remove(let positions): return Set(positions).sorted().map(label)
        case .move(let start, let length, _): return (start..<start + length).map(label)
        case .become(let target, _): return ListTransform.surplus(in: live.uris, target: target).map(label)
        case .insert, .putBack, .permute, .reorder: return []
        }
    }

    static func count(_ edit: EntryEdit, into outcome: inout EditOutcome) {
        switch edit {
        case .insert(let uris, _): outcome.counts.added = uris.count
        case .remove(let positions):
            outcome.counts.removed = Set(positions).count
            // Spotify removed every copy: the ones kept went back in with the adds.
            outcome.counts.readded = outcome.writes.reduce(0) { sum, write in
                if case .add(let uris, _) = write { return sum + uris.count }
                return sum
            }
        case .move(_, let length, _): outcome.counts.moved = length
        case .putBack(let entries): outcome.counts.added = entries.count
        case .permute(let order), .reorder(let order): outcome.counts.moved = order.enumerated().filter { $0.offset != $0.element }.count
        case .become: break  // counted on its plan: `count(becoming:plan:into:)`
        }
    }

    /// What `order` costs on `live` by moves and by a rewrite.
    static func orderCost(_ order: [Int], of what: LibraryChange.EntryChange, on live: LivePlaylist, secondsPerWrite: Double? = nil) -> OrderCost {
        var key: String?
        if case .sort(let by, let reverse) = what { key = by.rawValue + (reverse ? ", reversed" : "") }
        let moves = order == Array(order.indices) ? 0 : EntryEdit.moves(order).count
        let canRewrite = live.uris.allSatisfy(EntryEdit.isResendable)
        var cost = OrderCost(
            op: what.operation, playlistName: live.meta.name, key: key, entries: order.count, moves: moves,
            rewriteWrites: canRewrite ? (order.count + EntryWrite.maxURIs - 1) / EntryWrite.maxURIs : moves, canRewrite: canRewrite)
        cost.secondsPerWrite = secondsPerWrite
        return cost
    }

    static func describe(_ edit: EntryEdit, in name: String) -> String {
        let name = TerminalText.preview(name, limit: 60)
        switch edit {
        case .insert(let uris, let position): return "added \(uris.count) to “\(name)” at \(position + 1)"
        case .remove(let positions): return "removed \(Set(positions).count) from “\(name)”"
        case .move(let start, let length, let to): return "moved \(length) in “\(name)” from \(start + 1) to \(to + 1)"
        case .putBack(let entries): return "put back \(entries.count) in “\(name)”"
        case .permute(let order): return "rewrote the order of \(order.count) in “\(name)” (every added date reset)"
        case .reorder(let order): return "reordered \(order.count) in “\(name)” (added dates kept)"
        case .become(let target, _): return "restored “\(name)” to a list of \(target.count)"
        }
    }
}
