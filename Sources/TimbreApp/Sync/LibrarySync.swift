import Foundation
import TimbreCore
import TimbreLibrary
import TimbreNet

/// The one way a sync is put together — `timbre sync`, the interface's background sync and the
/// demo all run this: take the sync lock, make sure the cache is sound, finish any edit a stopped
/// process left half-applied, run the engine.
public struct LibrarySync: Sendable {
    let api: any SpotifyAPI
    let cachePath: String
    let warn: @Sendable (String) -> Void
    /// The profile's journal: interrupted edits in it are finished before the sync reads anything
    /// (a cron `sync` is the likeliest command after a crash; storing a half-applied list would
    /// make it look finished).
    var userData: SharedUserData?
    /// `history_keep`: how long playlist versions are kept (the newest 20 of each always are).
    var historyKeep: Duration = PlaylistVersions.defaultKeep

    /// Requests sent and rate-limit pauses: the api's.
    public var pacing: RequestPacing { api.pacing }

    /// `cache`: one the caller already has open (the interface reads it while this writes);
    /// otherwise the cache is opened — and verified, migrated if needed — under the lock.
    /// `lockWait`: how long another sync may hold the lock before this one gives up.
    /// `reportingStop`: a run whose requests stopped (the daily quota, `--max-requests`) returns
    /// its report with `stopped` set instead of throwing the stop (`timbre sync` prints it first).
    public func run(
        options: SyncOptions = SyncOptions(), cache: LibraryCache? = nil, lockWait: Duration, reportingStop: Bool = false,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> SyncReport {
        let lock = try await SyncLock.acquire(cachePath: cachePath, wait: lockWait)
        defer { lock.release() }
        let target: LibraryCache
        if let cache {
            guard try cache.integrityCheck() else { throw CacheError.damaged(path: cachePath) }
            target = cache
        } else {
            target = try LibraryCache.open(path: cachePath, warn: warn)
        }
        try await finishInterruptedEdits(cache: target)
        // The playlists' versions live in the user data, opened (created) for them.
        let versions = try? userData?.open().versions
        let engine = SyncEngine(api: api, cache: target, options: options, versions: versions, progress: progress)
        var report = try await reportingStop ? engine.runReportingStop() : engine.run()
        if let versions {
            do { try versions.prune(before: PlaylistVersions.cutoff(keep: historyKeep)) } catch {
                report.warnings.append(PlaylistVersions.syncWarning(error))
            }
        }
        return report
    }

    /// Under the lock already held: each interrupted edit finished (or, when Spotify refuses it for
    /// good, ended as failed), with a warning line for each. One that cannot be finished now (the
    /// network) stays interrupted and the sync goes on; signing in or trust problems end the run.
    private func finishInterruptedEdits(cache: LibraryCache) async throws {
        guard let journal = try userData?.existing()?.journal else { return }
        guard try !journal.running().isEmpty else { return }
        let editor = PlaylistEditor(api: api, cache: cache, journal: journal, clock: EditClock(say: warn))
        do {
            for note in try await editor.finishInterruptedHoldingLock() { warn(note) }
        } catch {
            if SyncEngine.isFatal(error) { throw error }
            let reason = (error as? any UserFacingError)?.message ?? String(describing: error)
            warn("an interrupted edit could not be finished yet (\(reason)); it stays interrupted until the next sync or edit")
        }
    }
}
