import Foundation
import TimbreCore

/// One sync at a time per cache: an exclusive `flock` on `<cache>.lock`, which also holds the
/// owner's pid for the message a second sync shows. The kernel drops the lock if the process dies.
public final class SyncLock: Sendable {
    private let lock: FileLock
    public var path: String { lock.path }

    private init(lock: FileLock) { self.lock = lock }

    /// Takes the lock, waiting up to `wait` for another sync to finish. The wait sleeps the task,
    /// never the thread: the caller runs on Swift's small cooperative pool.
    public static func acquire(cachePath: String, wait: Duration) async throws -> SyncLock {
        try await acquire(cachePath: cachePath, wait: wait, onBusy: nil)
    }

    /// `onBusy`: told each time the lock was found held and the caller is about to wait (tests
    /// release the holder there, so that "released while another waits" needs no timing).
    static func acquire(cachePath: String, wait: Duration, onBusy: (@Sendable () -> Void)?) async throws -> SyncLock {
        let path = cachePath + ".lock"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try CacheError.createFolder(directory) }
        do {
            return SyncLock(lock: try await FileLock.acquire(path: path, wait: wait, onBusy: onBusy))
        } catch {
            switch error {
            case .busy(_, let pid, _): throw SyncLockError.busy(pid: pid)
            case .cannotOpen(let path, let detail): throw SyncLockError.cannotOpen(path: path, detail: detail)
            case .cancelled: throw CancellationError()
            }
        }
    }

    /// Releases the lock (also done when the object goes away).
    public func release() { lock.release() }
}

public enum SyncLockError: UserFacingError, Equatable {
    case busy(pid: Int32?)
    case cannotOpen(path: String, detail: String)

    public var message: String {
        switch self {
        case .busy(let pid): return "another timbre sync is running (pid \(pid.map(String.init) ?? "unknown"))"
        case .cannotOpen(let path, let detail): return "cannot open the sync lock \(path): \(detail)"
        }
    }

    public var hint: String? {
        switch self {
        case .busy: return "wait for it to finish, then try again"
        case .cannotOpen: return "check the permissions of the cache folder"
        }
    }

    public var exitStatus: ExitStatus { .failure }
}
