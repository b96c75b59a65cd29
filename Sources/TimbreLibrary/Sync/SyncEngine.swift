import Foundation
import TimbreCore
import TimbreNet

/// Brings the cache up to date with Spotify.
///
/// Only playlists that are new, whose `snapshot_id` changed (or all, with `force`) have their
/// items fetched; Liked Songs only when its first page or total changed. Several playlists and
/// pages are in flight at once; the executor's shared rate budget caps the concurrency and pauses
/// everyone on a 429. Guards make sure nothing good in the cache is replaced by a glitch.
///
/// What the user needs first is read first (`readingOrder`): Liked Songs and the user's own
/// playlists before followed ones. A run that stops part-way (`RequestsStopped`: the daily quota,
/// `--max-requests`) keeps the pages it read of the lists it did not finish (`PartialList`), and
/// the next run reads only the rest of a list whose version has not changed.
public final class SyncEngine: Sendable {
    /// Playlists whose items are fetched at the same time (their pages overlap too), enough to
    /// keep every request slot of the rate budget busy while finished playlists are written.
    static let playlistConcurrency = 16

    private let api: any SpotifyAPI
    private let cache: LibraryCache
    private let options: SyncOptions
    private let progress: @Sendable (SyncProgress) -> Void
    /// Where each playlist the sync changes keeps its versions (nil: nowhere).
    private let versions: PlaylistVersions?

    public init(
        api: any SpotifyAPI, cache: LibraryCache, options: SyncOptions, versions: PlaylistVersions? = nil,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.api = api
        self.cache = cache
        self.options = options
        self.versions = versions
        self.progress = progress
    }

    /// Outcome of one playlist.
    enum Outcome: Sendable {
        case updated(items: Int)
        /// Nothing to store: the cached entries are those of Spotify's current version, or Spotify
        /// does not let this app read them.
        case unchanged
        /// A guard kept the cached entries (counted as unchanged, but the list is still to read).
        case kept
        case failed
        /// Requests stopped before the list was read whole (what was read is kept).
        case stopped(RequestsStopped)
    }

    /// Throws only when the whole run cannot go on: sign-in needed (exit 4), trust failure (exit 5),
    /// requests stopped (`RequestsStopped`), the playlist list unreadable, the cache unwritable.
    public func run() async throws -> SyncReport {
        let report = try await runReportingStop()
        if let stopped = report.stopped { throw stopped }
        return report
    }

    /// `run`, except that a run whose requests stopped once it knew the playlists (the daily
    /// quota, `--max-requests`) returns its report — status `partial`, `stopped` set, `toRead`
    /// naming what is left — for `timbre sync` to print before it says why it stopped.
    public func runReportingStop() async throws -> SyncReport {
        let run = Run(
            api: api, stored: try await cache.storedState(), partials: (try? await cache.partialVersions()) ?? [:],
            wantsLiked: !options.isSelection || options.liked)
        // Liked Songs needs nothing from the playlist list: it runs alongside from the start.
        async let liked = syncLikedSongs(run)
        let listing: Listing, tally: Tally
        do {
            listing = try await listPlaylists(run)
            // Before the new details or entries replace them: the cached state of the changed playlists never recorded.
            let changed = listing.playlists.map(\.meta).filter { meta in run.stored[meta.id].map { $0.snapshotID != meta.snapshotID } ?? false }
            versions?.recordBaselines(changed.map(\.id), from: cache, warn: run.warn)
            try await cache.updateMetadata(listing.playlists)
            tally = try await fetchChangedPlaylists(listing, run)
        } catch {
            _ = try? await liked
            await keepPartialPages(run)
            throw error
        }
        versions?.recordSynced(run.updatedIDs.current, from: cache, warn: run.warn)
        let likedOutcome: Outcome?
        do { likedOutcome = try await liked } catch {
            await keepPartialPages(run)
            throw error
        }
        await keepPartialPages(run)
        return try await finish(run, listing: listing, tally: tally, liked: likedOutcome)
    }

    /// The pages read of lists this run did not finish, added to those kept — even when the run
    /// was cancelled (the write is not part of the cancelled task).
    private func keepPartialPages(_ run: Run) async {
        let lists = run.kept.current
        guard !lists.isEmpty else { return }
        let cache = self.cache
        do { try await Task { try await cache.keepPartialPages(lists) }.value } catch {
            run.warn("the pages read of unfinished lists could not be kept (\(Self.describe(error))); the next sync reads them again")
        }
    }

    /// What one run shares between its steps.
    struct Run: Sendable {
        let started = Date()
        let clock = ContinuousClock.now
        let sentBefore: Int
        let waitedBefore: Duration
        let reader: PlaylistReader
        let stored: [String: StoredState]
        /// Lists with pages kept by an earlier, stopped run: their version and page size.
        let partials: [String: PartialList]
        /// Pages this run read of lists it did not finish, to keep.
        let kept = Locked<[String: PartialList]>([:])
        /// Opened once Liked Songs is done (or not wanted): followed playlists wait for it.
        let likedDone = Gate()
        /// Opened once the playlists are listed (or the listing failed): the rest of Liked Songs
        /// waits for it, so that a run stopped early still knows — and says — what is left.
        let listed = Gate()
        let wantsLiked: Bool
        let warnings = Locked<[String]>([])
        /// The signed-in user's id, asked for at most once, and only when a playlist turns out unreadable.
        let userID = Locked<String?>(nil)
        /// `GET /me`, sent at most once a run whoever asks first (an unreadable playlist, Liked Songs).
        let profile = OneProfile()
        /// Lists finished and lists to do, for the progress display.
        let done = Locked(0)
        let totalWork = Locked(0)
        /// The playlists whose entries this run stored, for the versions.
        let updatedIDs = Locked<[String]>([])

        init(api: any SpotifyAPI, stored: [String: StoredState], partials: [String: PartialList], wantsLiked: Bool) {
            sentBefore = api.pacing.requestsSent()
            waitedBefore = api.pacing.rateLimitWaited()
            reader = PlaylistReader(api: api, state: Locked(ReaderState()))
            self.stored = stored
            self.partials = partials
            self.wantsLiked = wantsLiked
        }

        func warn(_ text: String) { warnings.withLock { $0.append(text) } }

        /// Keeps what `sink` got of list `id` at `version` (nothing without a version).
        func keep(_ id: String, version: String?, _ sink: PageSink) {
            let (limit, bodies) = sink.current
            guard let version, limit > 0, !bodies.isEmpty else { return }
            kept.withLock { $0[id] = PartialList(version: version, limit: limit, bodies: bodies) }
        }
        func finishedOne() -> Int {
            done.withLock {
                $0 += 1
                return $0
            }
        }
    }

    /// The playlists to look at, each with the order to store it in (nil: keep or append).
    struct Listing: Sendable {
        var playlists: [(meta: PlaylistMeta, sortOrder: Int?)] = []
        /// Selected playlists that could not be read.
        var failed = 0
        /// Cached playlists Spotify no longer lists, removed from the cache.
        var removed = 0
    }

    /// How the playlists whose items were looked at ended.
    struct Tally: Sendable {
        var updated = 0, unchanged = 0, failed = 0, itemsWritten = 0
        /// The playlists whose current version is not stored, in reading order.
        var toRead: [PlaylistMeta] = []
        /// Why requests stopped, when they did.
        var stopped: RequestsStopped?
    }

    /// Step 1, beside the others: Liked Songs (nil when not selected).
    private func syncLikedSongs(_ run: Run) async throws -> Outcome? {
        defer { run.likedDone.open() }
        guard run.wantsLiked else { return nil }
        let outcome = try await syncLiked(stored: run.stored[CachedPlaylist.likedID], run: run)
        progress(SyncProgress(phase: .liked, description: CachedPlaylist.likedName, done: run.finishedOne(), total: run.totalWork.current))
        return outcome
    }

    /// Step 2: the selected playlists, or every playlist of the user — removing from the cache the
    /// ones Spotify no longer lists, unless it lists none at all.
    private func listPlaylists(_ run: Run) async throws -> Listing {
        defer { run.listed.open() }
        progress(SyncProgress(phase: .listing, description: "reading your playlists", done: 0, total: 0))
        var listing = Listing()
        if options.isSelection {
            var seen = Set<SpotifyID>()
            for id in options.playlists where seen.insert(id).inserted {
                do {
                    let object = try await run.reader.playlist(id)
                    if let meta = Self.meta(object, warnings: run.warnings), meta.id == id.rawValue {
                        listing.playlists.append((meta, nil))
                    } else {
                        listing.failed += 1
                        run.warn("playlist \(id) could not be read: Spotify sent an unexpected object")
                    }
                } catch {
                    if Self.isFatal(error) { throw error }
                    listing.failed += 1
                    run.warn("playlist \(id) could not be synced: \(Self.describe(error))")
                }
            }
            return listing
        }
        let list: [API.Playlist]
        do { list = try await run.reader.userPlaylists() } catch {
            if Self.isFatal(error) || error is CacheError { throw error }
            throw SyncError.listUnreadable(Self.describe(error))
        }
        var seen = Set<String>()
        for object in list {
            guard let meta = Self.meta(object, warnings: run.warnings), seen.insert(meta.id).inserted else { continue }
            listing.playlists.append((meta, listing.playlists.count))
        }
        let cachedPlaylists = run.stored.keys.filter { $0 != CachedPlaylist.likedID }
        if listing.playlists.isEmpty, !cachedPlaylists.isEmpty {
            run.warn("Spotify listed no playlists while the cache holds \(cachedPlaylists.count); nothing was removed (run `timbre sync` again later)")
        } else {
            let listed = Set(listing.playlists.map(\.meta.id))
            let gone = cachedPlaylists.filter { !listed.contains($0) }
            versions?.recordDeletions(gone, listed: Array(listed), from: cache, warn: run.warn)
            try await cache.remove(gone)
            listing.removed = gone.count
        }
        return listing
    }

    /// Step 3: the entries of every playlist whose snapshot changed (all, with `force`), several
    /// playlists at once, in `readingOrder`: followed playlists only once Liked Songs and every
    /// own playlist are done, so a run cut short has stored those first. Fetched lists go to one
    /// writer task, several to a transaction (`ListWriteQueue`); a playlist counts as updated only
    /// once the writer stored its list. When requests stop, no playlist is started any more, those
    /// under way end with what their requests already out bring, and the tally says so.
    private func fetchChangedPlaylists(_ listing: Listing, _ run: Run) async throws -> Tally {
        // Unavailable playlists that may become readable — the user's own (a 404 in the middle of
        // a sync), collaborative ones — are asked again every time, snapshot or not. Other users'
        // playlists answer 403 to development-mode apps by Spotify's rule: asking again each time
        // would only waste requests, so they are asked again when they change.
        // Who the user is: Liked Songs' owner, recorded by an earlier sync (`GET /me`), read once.
        let likedOwner = (try? cache.playlist(.liked))??.ownerID
        var userID = likedOwner?.isEmpty == false ? likedOwner : nil
        // Not recorded yet (a first sync): Liked Songs, not stored either, asks `GET /me` anyway
        // once it is read (`OneProfile` sends it once); asked now, it tells the own playlists
        // from the followed ones before any is read.
        if userID == nil, run.wantsLiked, !listing.playlists.isEmpty { userID = try? await run.profile.get(api).id }
        run.userID.withLock { $0 = $0 ?? userID }
        // `--force` too leaves out a playlist already known unreadable by that rule (another
        // user's, not collaborative, or Spotify's own) whose snapshot has not changed.
        let toFetch = listing.playlists.map(\.meta).filter {
            let stored = run.stored[$0.id]
            let mayBecomeReadable = $0.collaborative || userID == nil || $0.ownerID == userID
            let knownUnreadable = stored?.unavailable == true && stored?.snapshotID == $0.snapshotID && $0.snapshotID != nil && !mayBecomeReadable
            return (options.force && !knownUnreadable) || stored?.snapshotID != $0.snapshotID || $0.snapshotID == nil
                || (stored?.unavailable == true && mayBecomeReadable)
        }
        let ordered = Self.readingOrder(toFetch, userID: userID, stored: run.stored)
        var tally = Tally(unchanged: listing.playlists.count - toFetch.count)
        let total = toFetch.count + (run.wantsLiked ? 1 : 0)
        run.totalWork.withLock { $0 = total }
        progress(SyncProgress(phase: .items, description: "fetching \(toFetch.count) changed playlists", done: 0, total: total))
        let lists = ListWriteQueue()
        async let listsWritten = lists.drain { try await self.cache.replaceEntries($0) }
        var done = Set<String>()
        do {
            try await withThrowingTaskGroup(of: (id: String, first: Bool, outcome: Outcome).self) { group in
                var pending = ordered[...]
                var running = 0, runningFirst = 0
                var likedWaited = false
                while true {
                    // Start what may start: not after a stop; a followed playlist only once no
                    // own one is under way and Liked Songs is done.
                    while tally.stopped == nil, running < Self.playlistConcurrency, let next = pending.first {
                        let first = Self.readFirst(next, userID: userID)
                        if !first {
                            if runningFirst > 0 { break }
                            if !likedWaited {
                                await run.likedDone.wait()
                                likedWaited = true
                            }
                        }
                        pending.removeFirst()
                        running += 1
                        if first { runningFirst += 1 }
                        group.addTask {
                            let outcome = try await self.syncPlaylist(next, stored: run.stored[next.id], run: run, lists: lists)
                            if case .updated = outcome { run.updatedIDs.withLock { $0.append(next.id) } }
                            if case .stopped = outcome {
                            } else {
                                self.progress(SyncProgress(phase: .items, description: next.name, done: run.finishedOne(), total: total))
                            }
                            return (next.id, first, outcome)
                        }
                    }
                    // Every playlist has started (or none will): write each list as it comes rather than in batches.
                    if pending.isEmpty || tally.stopped != nil { lists.hurry() }
                    guard let result = try await group.next() else { break }
                    let (id, first, outcome) = result
                    running -= 1
                    if first { runningFirst -= 1 }
                    switch outcome {
                    case .updated(let items):
                        tally.updated += 1
                        tally.itemsWritten += items
                        done.insert(id)
                    case .unchanged:
                        tally.unchanged += 1
                        done.insert(id)
                    case .kept: tally.unchanged += 1
                    case .failed: tally.failed += 1
                    case .stopped(let stop): tally.stopped = tally.stopped ?? stop
                    }
                }
            }
        } catch {
            // The lists already fetched are still written (unless the run was cancelled); the run
            // ends with the first error.
            lists.close()
            _ = try? await listsWritten
            throw error
        }
        lists.close()
        _ = try await listsWritten
        tally.toRead = ordered.filter { !done.contains($0.id) }
        return tally
    }

    /// Whether `meta` is among the playlists read first: the user's own (all of them while the
    /// user is not known).
    static func readFirst(_ meta: PlaylistMeta, userID: String?) -> Bool {
        userID == nil || meta.ownerID == userID
    }

    /// The order playlists are read in, so that a run cut short (the daily quota) has stored what
    /// the user most likely needs: the user's own playlists before followed ones; in each, first
    /// those read before whose snapshot changed since (Spotify's answers carry no date of a
    /// playlist's last change — the snapshot id is opaque —, so a changed snapshot is the one
    /// sign of a recent change there is), then those never read; each group in the order of
    /// `/me/playlists`, which is the user's library as Spotify's apps show it, the playlists
    /// created or followed last at the top.
    static func readingOrder(_ metas: [PlaylistMeta], userID: String?, stored: [String: StoredState]) -> [PlaylistMeta] {
        metas.enumerated().sorted { a, b in
            func rank(_ meta: PlaylistMeta) -> (Int, Int) {
                (readFirst(meta, userID: userID) ? 0 : 1, stored[meta.id]?.snapshotID != nil ? 0 : 1)
            }
            let (ra, rb) = (rank(a.element), rank(b.element))
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    /// Step 4: the report, recorded in the cache.
    private func finish(_ run: Run, listing: Listing, tally: Tally, liked: Outcome?) async throws -> SyncReport {
        var itemsWritten = tally.itemsWritten
        var likedUpdated = false, likedFailed = false
        switch liked {
        case .updated(let items):
            likedUpdated = true
            itemsWritten += items
        case .unchanged, .kept, nil: break
        case .failed: likedFailed = true
        case .stopped: break
        }
        var stopped = tally.stopped
        if case .stopped(let stop) = liked { stopped = stopped ?? stop }
        let failed = listing.failed + tally.failed
        let succeeded = tally.updated + tally.unchanged > 0 || (run.wantsLiked && !likedFailed)
        var status: SyncReport.Status = failed == 0 && !likedFailed ? .ok : (succeeded ? .partial : .failed)
        // Stopped with lists left to read: what was read is stored, the next sync goes on.
        if stopped != nil, status == .ok { status = .partial }
        var toRead: [SyncReport.ListRef] = []
        switch liked {
        case .updated, .unchanged, nil: break
        case .kept, .failed, .stopped: toRead.append(SyncReport.ListRef(id: CachedPlaylist.likedID, name: CachedPlaylist.likedName))
        }
        toRead += tally.toRead.map { SyncReport.ListRef(id: $0.id, name: $0.name) }
        var report = SyncReport(
            status: status, checked: listing.playlists.count + listing.failed, updated: tally.updated,
            unchanged: tally.unchanged, failed: failed, removed: listing.removed, likedUpdated: likedUpdated,
            likedCount: (try? cache.playlist(.liked))?.trackCount ?? 0, itemsWritten: itemsWritten,
            requests: api.pacing.requestsSent() - run.sentBefore, warnings: run.warnings.current,
            durationMS: Self.milliseconds(ContinuousClock.now - run.clock),
            rateLimitedMS: Self.milliseconds(api.pacing.rateLimitWaited() - run.waitedBefore))
        report.toRead = toRead
        report.stopped = stopped
        try await cache.recordRun(startedAt: run.started, report: report)
        let total = run.totalWork.current
        progress(SyncProgress(phase: .finished, description: "done", done: total, total: total))
        return report
    }

    // MARK: One playlist

    private func syncPlaylist(_ meta: PlaylistMeta, stored: StoredState?, run: Run, lists: ListWriteQueue) async throws -> Outcome {
        let reader = run.reader, warnings = run.warnings
        let label = "“\(TerminalText.preview(meta.name, limit: 60))”"
        var attempt = 0
        while true {
            attempt += 1
            let fetched: FetchedList
            // The pages an earlier, stopped run read of this snapshot (not on a second attempt,
            // which reads everything again, nor with `--force`).
            var known: [Int: EntryPage] = [:]
            var knownLimit: Int?
            if attempt == 1, !options.force, let snapshot = meta.snapshotID, let partial = run.partials[meta.id], partial.version == snapshot {
                known = await keptPages(meta.id, partial)
                knownLimit = known.isEmpty ? nil : partial.limit
            }
            let sink = PageSink()
            do {
                fetched = try await reader.playlistEntries(meta.id, legacy: meta.legacyShape, known: known, knownLimit: knownLimit, sink: sink)
            } catch let stop as RequestsStopped {
                run.keep(meta.id, version: meta.snapshotID, sink)
                return .stopped(stop)
            } catch let error as SpotifyError where error.status == 403 || error.status == 404 {
                // The answer for this playlist alone (Spotify's own playlists answer 404 to apps; one
                // deleted meanwhile too): it is kept, marked unavailable, and the others go on.
                try await cache.markUnavailable(meta)
                if await isUsers(meta, run) {
                    // The user's own playlist stored without its entries: the run is not `ok`.
                    warnings.withLock {
                        $0.append(
                            "\(label), a playlist of yours, could not be read (Spotify answered \(error.status)); it is marked unavailable until a sync can read it"
                        )
                    }
                    return .failed
                }
                let reason = CachedPlaylist.unavailableReason(ownerID: meta.ownerID)
                warnings.withLock { $0.append("\(label) is unavailable: \(reason)") }
                return .unchanged
            } catch {
                // Whatever ended the read, the pages it brought are kept for the next run.
                run.keep(meta.id, version: meta.snapshotID, sink)
                if Self.isFatal(error) { throw error }
                warnings.withLock { $0.append("\(label) could not be synced: \(Self.describe(error))") }
                return .failed
            }

            // An empty answer for a playlist Spotify itself lists with items is a glitch.
            let suspiciousEmpty = fetched.count == 0 && meta.total > 0
            if !fetched.consistent || suspiciousEmpty {
                if attempt < 2 { continue }
                warnings.withLock {
                    $0.append(
                        "\(label): Spotify reported \(fetched.total) items but sent \(fetched.count); "
                            + (stored == nil ? "it was not stored" : "the cached copy was kept"))
                }
                return stored == nil ? .failed : .kept
            }

            let (items, malformed) = Self.rows(of: fetched.pages)
            if let stored, stored.itemCount > 0, items.isEmpty,
                !(fetched.total == 0 && meta.total == 0 && stored.snapshotID != meta.snapshotID)
            {
                warnings.withLock { $0.append("\(label): Spotify sent an empty list; the \(stored.itemCount) cached items were kept") }
                return .kept
            }
            if !malformed.isEmpty {
                warnings.withLock { $0.append("\(label): skipped \(malformed.count) item(s) with a malformed id") }
            }
            // Checked here: in the writer's batch a refused row would fail the other lists too.
            if let position = ItemKey.firstUnkeyable(items) {
                warnings.withLock { $0.append("\(label) could not be stored: \(CacheError.positionOutOfRange(position).message)") }
                return .failed
            }
            try await lists.submit(ListWrite(meta: meta, trackCount: fetched.total, items: items))
            return .updated(items: items.count)
        }
    }

    /// Whether the signed-in user owns `meta` (Spotify's own playlists never; `GET /me` at most
    /// once a run, and only on this path).
    private func isUsers(_ meta: PlaylistMeta, _ run: Run) async -> Bool {
        guard meta.ownerID != CachedPlaylist.spotifyOwnerID else { return false }
        if let id = run.userID.current { return id == meta.ownerID }
        guard let me = try? await run.profile.get(api) else { return false }
        run.userID.withLock { $0 = me.id }
        return me.id == meta.ownerID
    }

    /// The kept pages of a list, decoded; none when one of them does not decode (then the list
    /// is read whole again).
    private func keptPages(_ id: String, _ partial: PartialList) async -> [Int: EntryPage] {
        guard let bodies = try? await cache.partialPages(of: id, version: partial.version, limit: partial.limit) else { return [:] }
        var pages: [Int: EntryPage] = [:]
        for (offset, body) in bodies {
            guard let page = try? EntryPage.decode(body) else { return [:] }
            pages[offset] = page
        }
        return pages
    }

    // MARK: Liked Songs

    private func syncLiked(stored: StoredState?, run: Run) async throws -> Outcome {
        let reader = run.reader, warnings = run.warnings, profile = run.profile
        let likedID = CachedPlaylist.likedID
        do {
            var attempt = 0
            while true {
                attempt += 1
                let first = try await reader.likedFirstPage()
                let total = first.total ?? first.entries
                let fingerprint = first.fingerprint
                if !options.force, attempt == 1, let stored, stored.fingerprint == fingerprint, stored.trackCount == total {
                    return .unchanged
                }
                // The first page is read every time (its fingerprint is Liked Songs' version):
                // the other pages an earlier, stopped run read of this version are not.
                var known: [Int: EntryPage] = [:]
                if attempt == 1, !options.force, let fingerprint, let partial = run.partials[likedID], partial.version == fingerprint, partial.limit == 50 {
                    known = await keptPages(likedID, partial)
                }
                let sink = PageSink()
                let fetched: FetchedList
                await run.listed.wait()
                do { fetched = try await reader.likedRest(first: first, known: known, sink: sink) } catch {
                    run.keep(likedID, version: fingerprint, sink)
                    throw error
                }
                if !fetched.consistent {
                    if attempt < 2 { continue }
                    warnings.withLock { $0.append("Liked Songs: Spotify reported \(fetched.total) songs but sent \(fetched.count); the cached copy was kept") }
                    return stored == nil ? .failed : .kept
                }
                let (items, malformed) = Self.rows(of: fetched.pages)
                if let stored, stored.itemCount > 0, items.isEmpty, !(fetched.total == 0 && stored.fingerprint != fingerprint) {
                    warnings.withLock { $0.append("Liked Songs: Spotify sent an empty list; the \(stored.itemCount) cached songs were kept") }
                    return .kept
                }
                if !malformed.isEmpty {
                    warnings.withLock { $0.append("Liked Songs: skipped \(malformed.count) item(s) with a malformed id") }
                }
                // Asked only when Liked Songs changed, so a no-change resync stays within
                // ceil(playlists/50) + 2 requests even when it has to refresh the token first.
                let me: UserProfile
                do { me = try await profile.get(api) } catch {
                    // Every page was read: kept, so the next run reads only the first one again.
                    run.keep(likedID, version: fingerprint, sink)
                    throw error
                }
                let meta = PlaylistMeta(
                    id: CachedPlaylist.likedID, name: CachedPlaylist.likedName, ownerID: me.id, ownerName: me.displayName,
                    snapshotID: nil, total: fetched.total, collaborative: false, isPublic: false)
                let written = try await cache.replaceEntries(of: meta, trackCount: fetched.total, items: items, fingerprint: fingerprint, sortOrder: -1)
                return .updated(items: written)
            }
        } catch let stop as RequestsStopped {
            return .stopped(stop)
        } catch CacheError.positionOutOfRange(let position) {
            warnings.withLock { $0.append("Liked Songs could not be stored: \(CacheError.positionOutOfRange(position).message)") }
            return .failed
        } catch {
            if Self.isFatal(error) || error is CacheError { throw error }
            warnings.withLock { $0.append("Liked Songs could not be synced: \(Self.describe(error))") }
            return .failed
        }
    }

    // MARK: Helpers

    /// The cache rows of a list's pages; positions count across pages.
    static func rows(of pages: [EntryPage]) -> (items: EntryList, malformed: [String]) {
        var list = EntryList()
        var malformed: [String] = []
        var entries = 0
        for page in pages {
            list.append(page.rows, positionOffset: entries)
            entries += page.entries
            malformed += page.malformed
        }
        return (list, malformed)
    }

    static func meta(_ object: API.Playlist, warnings: Locked<[String]>) -> PlaylistMeta? {
        guard let id = object.id, SpotifyID(id) != nil else {
            warnings.withLock { $0.append("skipped a playlist with a malformed id \(TerminalText.preview(object.id ?? "(none)", limit: 40))") }
            return nil
        }
        return PlaylistMeta(
            id: id, name: object.name ?? "", ownerID: object.owner?.id ?? "", ownerName: object.owner?.displayName,
            snapshotID: object.snapshotID, total: max(0, object.total ?? 0), collaborative: object.collaborative ?? false,
            isPublic: object.isPublic ?? false, legacyShape: object.legacyShape)
    }

    /// Errors that end the run: the user must sign in again, the connection is not trusted, or we
    /// were cancelled.
    public static func isFatal(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        // Spotify asked for a wait past the budget (or the request limit was reached): nothing more is sent.
        if error is RequestsStopped { return true }
        if let error = error as? any UserFacingError {
            return error.exitStatus == .authenticationRequired || error.exitStatus == .trustFailure
        }
        return false
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? any UserFacingError { return error.message }
        return TerminalText.preview(String(describing: error))
    }
}

/// The signed-in user's profile, asked of Spotify once however many tasks of a run want it.
actor OneProfile {
    private var task: Task<UserProfile, any Error>?

    func get(_ api: any SpotifyAPI) async throws -> UserProfile {
        if let task { return try await task.value }
        let started = Task { try await api.me() }
        task = started
        return try await started.value
    }
}

/// Shut until `open`, then open for good: what waits on it goes on.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }
}
