import Foundation
import TimbreCore
import TimbreNet

/// Brings the cache up to date with Spotify.
///
/// Only playlists that are new, whose `snapshot_id` changed (or all, with `force`) have their
/// items fetched; Liked Songs only when its first page or total changed. Several playlists and
/// pages are in flight at once; the executor's shared rate budget caps the concurrency and pauses
/// everyone on a 429. Guards make sure nothing good in the cache is replaced by a glitch.
public final class SyncEngine: Sendable {
    /// Playlists whose items are fetched at the same time (their pages overlap too), enough to
    /// keep every request slot of the rate budget busy while finished playlists are written.
    static let playlistConcurrency = 16

    private let api: any SpotifyAPI
    private let cache: LibraryCache
    private let options: SyncOptions
    private let progress: @Sendable (SyncProgress) -> Void
    /// Where each playlist the sync changes keeps its versions (nil: nowhere).
    private let history: PlaylistHistory?

    public init(
        api: any SpotifyAPI, cache: LibraryCache, options: SyncOptions, history: PlaylistHistory? = nil,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.api = api
        self.cache = cache
        self.options = options
        self.history = history
        self.progress = progress
    }

    /// Outcome of one playlist.
    enum Outcome: Sendable {
        case updated(items: Int)
        case unchanged
        case failed
    }

    /// Throws only when the whole run cannot go on: sign-in needed (exit 4), trust failure (exit 5),
    /// the playlist list unreadable, the cache unwritable.
    public func run() async throws -> SyncReport {
        let run = Run(api: api, stored: try await cache.storedState(), wantsLiked: !options.isSelection || options.liked)
        // Liked Songs needs nothing from the playlist list: it runs alongside from the start.
        async let liked = syncLikedSongs(run)
        let listing = try await listPlaylists(run)
        // Before the new details or entries replace them: the cached state of the changed playlists never recorded.
        let changed = listing.playlists.map(\.meta).filter { meta in run.stored[meta.id].map { $0.snapshotID != meta.snapshotID } ?? false }
        history?.recordBaselines(changed.map(\.id), from: cache, warn: run.warn)
        try await cache.updateMetadata(listing.playlists)
        let tally = try await fetchChangedPlaylists(listing, run)
        history?.recordSynced(run.updatedIDs.current, from: cache, warn: run.warn)
        return try await finish(run, listing: listing, tally: tally, liked: try await liked)
    }

    /// What one run shares between its steps.
    struct Run: Sendable {
        let started = Date()
        let clock = ContinuousClock.now
        let sentBefore: Int
        let waitedBefore: Duration
        let fetcher: PlaylistReader
        let stored: [String: StoredState]
        let wantsLiked: Bool
        let warnings = Locked<[String]>([])
        /// The signed-in user's id, asked for at most once, and only when a playlist turns out unreadable.
        let userID = Locked<String?>(nil)
        /// `GET /me`, sent at most once a run whoever asks first (an unreadable playlist, Liked Songs).
        let profile = OneProfile()
        /// Lists finished and lists to do, for the progress display.
        let done = Locked(0)
        let totalWork = Locked(0)
        /// The playlists whose entries this run stored, for the history.
        let updatedIDs = Locked<[String]>([])

        init(api: any SpotifyAPI, stored: [String: StoredState], wantsLiked: Bool) {
            sentBefore = api.pacing.requestsSent()
            waitedBefore = api.pacing.rateLimitWaited()
            fetcher = PlaylistReader(api: api, state: Locked(ReaderState()))
            self.stored = stored
            self.wantsLiked = wantsLiked
        }

        func warn(_ text: String) { warnings.withLock { $0.append(text) } }
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
    }

    /// Step 1, beside the others: Liked Songs (nil when not selected).
    private func syncLikedSongs(_ run: Run) async throws -> Outcome? {
        guard run.wantsLiked else { return nil }
        let outcome = try await syncLiked(stored: run.stored[CachedPlaylist.likedID], fetcher: run.fetcher, warnings: run.warnings, profile: run.profile)
        progress(SyncProgress(phase: .liked, description: CachedPlaylist.likedName, done: run.finishedOne(), total: run.totalWork.current))
        return outcome
    }

    /// Step 2: the selected playlists, or every playlist of the user — removing from the cache the
    /// ones Spotify no longer lists, unless it lists none at all.
    private func listPlaylists(_ run: Run) async throws -> Listing {
        progress(SyncProgress(phase: .listing, description: "reading your playlists", done: 0, total: 0))
        var listing = Listing()
        if options.isSelection {
            var seen = Set<SpotifyID>()
            for id in options.playlists where seen.insert(id).inserted {
                do {
                    let object = try await run.fetcher.playlist(id)
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
        do { list = try await run.fetcher.userPlaylists() } catch {
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
            history?.recordDeletions(gone, listed: Array(listed), from: cache, warn: run.warn)
            try await cache.remove(gone)
            listing.removed = gone.count
        }
        return listing
    }

    /// Step 3: the entries of every playlist whose snapshot changed (all, with `force`), several
    /// playlists at once. Fetched lists go to one writer task, several to a transaction
    /// (`ListWriteQueue`); a playlist counts as updated only once the writer stored its list.
    private func fetchChangedPlaylists(_ listing: Listing, _ run: Run) async throws -> Tally {
        // Unavailable playlists that may become readable — the user's own (a 404 in the middle of
        // a sync), collaborative ones — are asked again every time, snapshot or not. Other users'
        // playlists answer 403 to development-mode apps by Spotify's rule: asking again each time
        // would only waste requests, so they are asked again when they change.
        // Who the user is: Liked Songs' owner, recorded by an earlier sync (`GET /me`), read once.
        let likedOwner = (try? cache.playlist(.liked))??.ownerID
        let userID = likedOwner?.isEmpty == false ? likedOwner : nil
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
        var tally = Tally(unchanged: listing.playlists.count - toFetch.count)
        let total = toFetch.count + (run.wantsLiked ? 1 : 0)
        run.totalWork.withLock { $0 = total }
        progress(SyncProgress(phase: .items, description: "fetching \(toFetch.count) changed playlists", done: 0, total: total))
        let lists = ListWriteQueue()
        async let listsWritten = lists.drain { try await self.cache.replaceEntries($0) }
        do {
            try await withThrowingTaskGroup(of: Outcome.self) { group in
                var pending = toFetch[...]
                func startNext() {
                    guard let meta = pending.popFirst() else {
                        // Every playlist has started: write each list as it comes rather than in batches.
                        return lists.hurry()
                    }
                    group.addTask {
                        let outcome = try await self.syncPlaylist(meta, stored: run.stored[meta.id], run: run, lists: lists)
                        if case .updated = outcome { run.updatedIDs.withLock { $0.append(meta.id) } }
                        self.progress(SyncProgress(phase: .items, description: meta.name, done: run.finishedOne(), total: total))
                        return outcome
                    }
                }
                for _ in 0..<Self.playlistConcurrency { startNext() }
                for try await outcome in group {
                    switch outcome {
                    case .updated(let items):
                        tally.updated += 1
                        tally.itemsWritten += items
                    case .unchanged: tally.unchanged += 1
                    case .failed: tally.failed += 1
                    }
                    startNext()
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
        return tally
    }

    /// Step 4: the report, recorded in the cache.
    private func finish(_ run: Run, listing: Listing, tally: Tally, liked: Outcome?) async throws -> SyncReport {
        var itemsWritten = tally.itemsWritten
        var likedUpdated = false, likedFailed = false
        switch liked {
        case .updated(let items):
            likedUpdated = true
            itemsWritten += items
        case .unchanged, nil: break
        case .failed: likedFailed = true
        }
        let failed = listing.failed + tally.failed
        let succeeded = tally.updated + tally.unchanged > 0 || (run.wantsLiked && !likedFailed)
        let status: SyncReport.Status = failed == 0 && !likedFailed ? .ok : (succeeded ? .partial : .failed)
        let report = SyncReport(
            status: status, checked: listing.playlists.count + listing.failed, updated: tally.updated,
            unchanged: tally.unchanged, failed: failed, removed: listing.removed, likedUpdated: likedUpdated,
            likedCount: (try? cache.playlist(.liked))?.trackCount ?? 0, itemsWritten: itemsWritten,
            requests: api.pacing.requestsSent() - run.sentBefore, warnings: run.warnings.current,
            durationMS: Self.milliseconds(ContinuousClock.now - run.clock),
            rateLimitedMS: Self.milliseconds(api.pacing.rateLimitWaited() - run.waitedBefore))
        try await cache.recordRun(startedAt: run.started, report: report)
        let total = run.totalWork.current
        progress(SyncProgress(phase: .finished, description: "done", done: total, total: total))
        return report
    }

    // MARK: One playlist

    private func syncPlaylist(_ meta: PlaylistMeta, stored: StoredState?, run: Run, lists: ListWriteQueue) async throws -> Outcome {
        let fetcher = run.fetcher, warnings = run.warnings
        let label = "“\(TerminalText.preview(meta.name, limit: 60))”"
        var attempt = 0
        while true {
            attempt += 1
            let fetched: FetchedList
            do {
                fetched = try await fetcher.playlistEntries(meta.id, legacy: meta.legacyShape)
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
                return stored == nil ? .failed : .unchanged
            }

            let (items, malformed) = Self.rows(of: fetched.pages)
            if let stored, stored.itemCount > 0, items.isEmpty,
                !(fetched.total == 0 && meta.total == 0 && stored.snapshotID != meta.snapshotID)
            {
                warnings.withLock { $0.append("\(label): Spotify sent an empty list; the \(stored.itemCount) cached items were kept") }
                return .unchanged
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

    // MARK: Liked Songs

    private func syncLiked(stored: StoredState?, fetcher: PlaylistReader, warnings: Locked<[String]>, profile: OneProfile) async throws -> Outcome {
        do {
            var attempt = 0
            while true {
                attempt += 1
                let first = try await fetcher.likedFirstPage()
                let total = first.total ?? first.entries
                let fingerprint = first.fingerprint
                if !options.force, attempt == 1, let stored, stored.fingerprint == fingerprint, stored.trackCount == total {
                    return .unchanged
                }
                let fetched = try await fetcher.likedRest(first: first)
                if !fetched.consistent {
                    if attempt < 2 { continue }
                    warnings.withLock { $0.append("Liked Songs: Spotify reported \(fetched.total) songs but sent \(fetched.count); the cached copy was kept") }
                    return stored == nil ? .failed : .unchanged
                }
                let (items, malformed) = Self.rows(of: fetched.pages)
                if let stored, stored.itemCount > 0, items.isEmpty, !(fetched.total == 0 && stored.fingerprint != fingerprint) {
                    warnings.withLock { $0.append("Liked Songs: Spotify sent an empty list; the \(stored.itemCount) cached songs were kept") }
                    return .unchanged
                }
                if !malformed.isEmpty {
                    warnings.withLock { $0.append("Liked Songs: skipped \(malformed.count) item(s) with a malformed id") }
                }
                // Asked only when Liked Songs changed, so a no-change resync stays within
                // ceil(playlists/50) + 2 requests even when it has to refresh the token first.
                let me = try await profile.get(api)
                let meta = PlaylistMeta(
                    id: CachedPlaylist.likedID, name: CachedPlaylist.likedName, ownerID: me.id, ownerName: me.displayName,
                    snapshotID: nil, total: fetched.total, collaborative: false, isPublic: false)
                let written = try await cache.replaceEntries(of: meta, trackCount: fetched.total, items: items, fingerprint: fingerprint, sortOrder: -1)
                return .updated(items: written)
            }
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
