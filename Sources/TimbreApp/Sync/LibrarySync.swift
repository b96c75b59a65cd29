import TimbreCore
import TimbreLibrary
import TimbreNet

/// The one way a sync is put together — `timbre sync`, the interface's background sync and the
/// demo all run this: take the sync lock, make sure the cache is sound, run the engine.
public struct LibrarySync: Sendable {
    let api: any SpotifyAPI
    let cachePath: String
    let warn: @Sendable (String) -> Void

    /// Requests sent and rate-limit pauses are the api's executor's.
    public var executor: RequestExecutor { api.executor }

    /// `cache`: one the caller already has open (the interface reads it while this writes);
    /// otherwise the cache is opened — and verified, migrated if needed — under the lock.
    /// `lockWait`: how long another sync may hold the lock before this one gives up.
    public func run(options: SyncOptions = SyncOptions(), cache: LibraryCache? = nil, lockWait: Duration,
                    progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        let lock = try await SyncLock.acquire(cachePath: cachePath, wait: lockWait)
        defer { lock.release() }
        let target: LibraryCache
        if let cache {
            guard try cache.integrityCheck() else { throw CacheError.damaged(path: cachePath) }
            target = cache
        } else {
            target = try LibraryCache.open(path: cachePath, warn: warn)
        }
        return try await SyncEngine(api: api, cache: target, options: options, progress: progress).run()
    }
}
