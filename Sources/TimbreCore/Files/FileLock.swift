import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock(2)` on a small lock file, across the processes of one user (git's
/// `index.lock` shape): taken around a read-modify-write of shared state, which the holder re-reads
/// after taking it. The kernel drops it when the process dies, so a crash never leaves it held.
///
/// The wait never blocks a thread: it tries with `LOCK_NB` and sleeps the task between tries, since
/// callers run on Swift's small cooperative pool. Within one process two descriptors of the same
/// file exclude each other too (flock locks belong to the open file description), so tasks of one
/// process wait for each other like processes do.
public final class FileLock: Sendable {
    public let path: String
    private let descriptor: Locked<Int32>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Locked(descriptor)
    }

    deinit { release() }

    /// How often a held lock is tried again.
    static let retryInterval: Duration = .milliseconds(20)

    /// Takes the lock on `path` (created 0600, its folder 0700), waiting up to `wait` for the
    /// holder. `onBusy` is told each time the lock was found held (tests release the holder there).
    public static func acquire(
        path: String, wait: Duration, onBusy: (@Sendable () -> Void)? = nil
    ) async throws(FileLockError) -> FileLock {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .cannotOpen(path: path, detail: "cannot create its folder")
            }
        }
        // O_NOFOLLOW: a symlink planted here must not make timbre create or lock another file.
        let fd = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, detail: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .cannotOpen(path: path, detail: "it is not a regular file; remove it")
        }
        // Someone else's file is not truncated and written (only root can meet one here).
        guard info.st_uid == geteuid() else {
            close(fd)
            throw .cannotOpen(path: path, detail: "it belongs to another user (uid \(info.st_uid)); move it away")
        }
        let deadline = ContinuousClock.now + wait
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let pid = Data("\(getpid())\n".utf8)
                _ = ftruncate(fd, 0)
                _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                return FileLock(path: path, descriptor: fd)
            }
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(fd)
                throw .cannotOpen(path: path, detail: String(cString: strerror(failure)))
            }
            if ContinuousClock.now >= deadline {
                let holder = readPID(fd)
                close(fd)
                throw .busy(path: path, pid: holder, waited: wait)
            }
            onBusy?()
            do {
                try await Task.sleep(for: retryInterval)
            } catch {
                close(fd)
                throw .cancelled
            }
        }
    }

    /// Runs `body` holding the lock on `path`, released when it returns or throws.
    public static func withLock<T>(
        path: String, wait: Duration, _ body: () async throws -> T
    ) async throws -> T {
        let lock = try await acquire(path: path, wait: wait)
        defer { lock.release() }
        return try await body()
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

public enum FileLockError: UserFacingError, Equatable {
    /// Still held by another process (`pid` when it wrote one) after `waited`.
    case busy(path: String, pid: Int32?, waited: Duration)
    case cannotOpen(path: String, detail: String)
    case cancelled

    public var message: String {
        switch self {
        case .busy(let path, let pid, let waited):
            let holder = pid.map { "timbre process \($0)" } ?? "another timbre process"
            return "\(holder) has held \(path) for more than \(waited.components.seconds) s"
        case .cannotOpen(let path, let detail): return "cannot open the lock file \(path): \(detail)"
        case .cancelled: return "cancelled while waiting for a lock"
        }
    }

    public var hint: String? {
        switch self {
        case .busy: return "wait for it to finish (or stop it), then try again"
        case .cannotOpen: return "check the permissions of that folder"
        case .cancelled: return nil
        }
    }

    public var exitStatus: ExitStatus { .failure }
}
