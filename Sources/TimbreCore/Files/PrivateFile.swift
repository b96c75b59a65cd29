import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files only the user may read, replaced atomically: a temporary file created 0600 with
/// `O_EXCL` beside the target, written, synced, renamed over it. A reader sees the old file or
/// the new one, never a half-written one.
public enum PrivateFile {
    public struct WriteError: UserFacingError {
        public let path: String
        public let detail: String
        public var message: String { "cannot write \(path): \(detail)" }
        public var hint: String? { "check that the folder exists and is yours (`timbre doctor`)" }
        public var exitStatus: ExitStatus { .failure }
    }

    public static func write(_ data: Data, to path: String) throws(WriteError) {
        let folder = (path as NSString).deletingLastPathComponent
        do { try Paths.ensureParentDirectory(of: path) } catch {
            throw WriteError(path: folder, detail: "could not create the folder")
        }
        let temporary = folder + "/." + (path as NSString).lastPathComponent + "-\(UUID().uuidString).tmp"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw WriteError(path: temporary, detail: errnoText()) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(fd, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
        let synced = written && fsync(fd) == 0
        let error = errnoText()
        close(fd)
        guard synced else { throw WriteError(path: temporary, detail: error) }
        guard rename(temporary, path) == 0 else { throw WriteError(path: path, detail: errnoText()) }
        renamed = true
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
