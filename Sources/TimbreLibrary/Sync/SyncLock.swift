import Foundation
import TimbreCore

/// One sync at a time per cache: an exclusive `flock` on `<cache>.lock`, which also holds the
/// owner's pid for the message a second sync shows. The kernel drops the lock if the process dies.
public final class SyncLock: Sendable {
    public let path: String
    private let descriptor: Locked<Int32>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Locked(descriptor)
    }

    deinit { release() }

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
        // O_NOFOLLOW: a symlink planted here must not make timbre lock and truncate another file.
        let fd = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw SyncLockError.cannotOpen(path: path, detail: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw SyncLockError.cannotOpen(path: path, detail: "it is not a regular file")
        }
        // Someone else's file is not truncated and written (only root can meet one here).
        guard info.st_uid == geteuid() else {
            close(fd)
            throw SyncLockError.cannotOpen(path: path, detail: "it belongs to another user (uid \(info.st_uid)); move it away")
        }
        let deadline = ContinuousClock.now + wait
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let pid = Data("\(getpid())\n".utf8)
                _ = ftruncate(fd, 0)
                _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                return SyncLock(path: path, descriptor: fd)
            }
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(fd)
                throw SyncLockError.cannotOpen(path: path, detail: String(cString: strerror(failure)))
            }
            if ContinuousClock.now >= deadline {
                let holder = readPID(fd)
                close(fd)
                throw SyncLockError.busy(pid: holder)
            }
            onBusy?()
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                close(fd)
                throw error
            }
        }
    }

    /// Releases the lock (also done when the object goes away).
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
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
