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

    public init(api: any SpotifyAPI, cache: LibraryCache, options: SyncOptions,
                progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) {
        self.api = api
        self.cache = cache
        self.options = options
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
        let started = Date()
        let clock = ContinuousClock.now
        let sentBefore = api.executor.requestsSent
        let waitedBefore = api.executor.budget.waited
        let warnings = Locked<[String]>([])
        let fetcher = Fetcher(api: api, state: Locked(RunState()))
        let stored = try await cache.storedState()

        // Liked Songs needs nothing from the playlist list: it runs alongside from the start.
        let wantsLiked = !options.isSelection || options.liked
        let done = Locked(0)
        let totalWork = Locked(0)
        async let likedOutcome: Outcome? = wantsLiked ? {
            let outcome = try await self.syncLiked(stored: stored[CachedPlaylist.likedID], fetcher: fetcher, warnings: warnings)
            let count = done.withLock { $0 += 1; return $0 }
            self.progress(SyncProgress(phase: .liked, description: CachedPlaylist.likedName, done: count, total: totalWork.current))
            return outcome
        }() : nil

        progress(SyncProgress(phase: .listing, description: "reading your playlists", done: 0, total: 0))
        var checked = 0, updated = 0, unchanged = 0, failed = 0, removed = 0, itemsWritten = 0

        // The playlists to look at, with the order to store them in (nil: keep or append).
        var metas: [(meta: PlaylistMeta, sortOrder: Int?)] = []
        if options.isSelection {
            var seen = Set<SpotifyID>()
            for id in options.playlists where seen.insert(id).inserted {
                do {
                    let object = try await fetcher.playlist(id)
                    if let meta = Self.meta(object, warnings: warnings), meta.id == id.rawValue {
                        metas.append((meta, nil))
                    } else {
                        failed += 1
                        warnings.withLock { $0.append("playlist \(id) could not be read: Spotify sent an unexpected object") }
                    }
                } catch {
                    if Self.isFatal(error) { throw error }
                    failed += 1
                    warnings.withLock { $0.append("playlist \(id) could not be synced: \(Self.describe(error))") }
                }
            }
        } else {
            let list: [API.Playlist]
            do { list = try await fetcher.userPlaylists() } catch {
                if Self.isFatal(error) || error is CacheError { throw error }
                throw SyncError.listUnreadable(Self.describe(error))
            }
            var seen = Set<String>()
            for object in list {
                guard let meta = Self.meta(object, warnings: warnings), seen.insert(meta.id).inserted else { continue }
                metas.append((meta, metas.count))
            }
            let cachedPlaylists = stored.keys.filter { $0 != CachedPlaylist.likedID }
            if metas.isEmpty, !cachedPlaylists.isEmpty {
                warnings.withLock {
                    $0.append("Spotify listed no playlists while the cache holds \(cachedPlaylists.count); nothing was removed (run `timbre sync` again later)")
                }
            } else {
                let listed = Set(metas.map(\.meta.id))
                let gone = cachedPlaylists.filter { !listed.contains($0) }
                try await cache.remove(gone)
                removed = gone.count
            }
        }
        checked = metas.count + failed
        try await cache.updateMetadata(metas)

        // Items of the playlists that changed.
        let toFetch = metas.map(\.meta).filter { options.force || stored[$0.id]?.snapshotID != $0.snapshotID || $0.snapshotID == nil }
        unchanged += metas.count - toFetch.count
        let total = toFetch.count + (wantsLiked ? 1 : 0)
        totalWork.withLock { $0 = total }
        progress(SyncProgress(phase: .items, description: "fetching \(toFetch.count) changed playlists", done: 0, total: total))
        // Fetched lists go to one writer task, several to a transaction (`ListWriteQueue`); a
        // playlist counts as updated only once the writer has stored every list without an error.
        let lists = ListWriteQueue()
        async let listsWritten = lists.drain { try await self.cache.replaceItems($0) }
        do {
            try await withThrowingTaskGroup(of: Outcome.self) { group in
                var pending = toFetch[...]
                func startNext() {
                    guard let meta = pending.popFirst() else {
                        // Every playlist has started: write each list as it comes rather than in batches.
                        return lists.hurry()
                    }
                    group.addTask {
                        let outcome = try await self.syncPlaylist(meta, stored: stored[meta.id], fetcher: fetcher, lists: lists, warnings: warnings)
                        let count = done.withLock { $0 += 1; return $0 }
                        self.progress(SyncProgress(phase: .items, description: meta.name, done: count, total: total))
                        return outcome
                    }
                }
                for _ in 0..<Self.playlistConcurrency { startNext() }
                for try await outcome in group {
                    switch outcome {
                    case .updated(let items): updated += 1; itemsWritten += items
                    case .unchanged: unchanged += 1
                    case .failed: failed += 1
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

        // Liked Songs.
        var likedUpdated = false
        var likedFailed = false
        switch try await likedOutcome {
        case .updated(let items): likedUpdated = true; itemsWritten += items
        case .unchanged, nil: break
        case .failed: likedFailed = true
        }
        let likedCount = (try? cache.playlist(.liked))?.trackCount ?? 0

        let succeeded = updated + unchanged > 0 || (wantsLiked && !likedFailed)
        let status: SyncReport.Status = failed == 0 && !likedFailed ? .ok : (succeeded ? .partial : .failed)
        let elapsed = ContinuousClock.now - clock
        let report = SyncReport(status: status, checked: checked, updated: updated, unchanged: unchanged, failed: failed,
                                removed: removed, likedUpdated: likedUpdated, likedCount: likedCount, itemsWritten: itemsWritten,
                                requests: api.executor.requestsSent - sentBefore, warnings: warnings.current,
                                durationMS: Self.milliseconds(elapsed),
                                rateLimitedMS: Self.milliseconds(api.executor.budget.waited - waitedBefore))
        try await cache.recordRun(startedAt: started, report: report)
        progress(SyncProgress(phase: .finished, description: "done", done: total, total: total))
        return report
    }

    // MARK: One playlist

    private func syncPlaylist(_ meta: PlaylistMeta, stored: StoredState?, fetcher: Fetcher, lists: ListWriteQueue,
                              warnings: Locked<[String]>) async throws -> Outcome {
        let label = "“\(TerminalText.preview(meta.name, limit: 60))”"
        var attempt = 0
        while true {
            attempt += 1
            let fetched: FetchedList
            do {
                fetched = try await fetcher.playlistEntries(meta.id)
            } catch let error as SpotifyError where error.status == 403 {
                try await cache.markUnavailable(meta)
                warnings.withLock { $0.append("\(label) is unavailable: Spotify does not let this app read its items (development-mode apps only see playlists you own or collaborate on)") }
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
                    $0.append("\(label): Spotify reported \(fetched.total) items but sent \(fetched.count); "
                        + (stored == nil ? "it was not stored" : "the cached copy was kept"))
                }
                return stored == nil ? .failed : .unchanged
            }

            let (items, malformed) = Self.rows(of: fetched.pages)
            if let stored, stored.itemCount > 0, items.isEmpty,
               !(fetched.total == 0 && meta.total == 0 && stored.snapshotID != meta.snapshotID) {
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

    // MARK: Liked Songs

    private func syncLiked(stored: StoredState?, fetcher: Fetcher, warnings: Locked<[String]>) async throws -> Outcome {
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
                let me = try await api.me()
                let meta = PlaylistMeta(id: CachedPlaylist.likedID, name: CachedPlaylist.likedName, ownerID: me.id, ownerName: me.displayName,
                                        snapshotID: nil, total: fetched.total, collaborative: false, isPublic: false)
                let written = try await cache.replaceItems(of: meta, trackCount: fetched.total, items: items, fingerprint: fingerprint, sortOrder: -1)
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
    static func rows(of pages: [EntryPage]) -> (items: ItemList, malformed: [String]) {
        var list = ItemList()
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
        return PlaylistMeta(id: id, name: object.name ?? "", ownerID: object.owner?.id ?? "", ownerName: object.owner?.displayName,
                            snapshotID: object.snapshotID, total: max(0, object.total ?? 0), collaborative: object.collaborative ?? false,
                            isPublic: object.isPublic ?? false)
    }

    /// Errors that end the run: the user must sign in again, the connection is not trusted, or we
    /// were cancelled.
    static func isFatal(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
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
