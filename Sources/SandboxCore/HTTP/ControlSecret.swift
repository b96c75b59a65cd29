import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The sandbox's owner proof: a random secret the server makes at start and writes, mode 0600, into
/// its own state folder (mode 0700). Every `/__sandbox/…` control request and every `/authorize`
/// (which approves without asking anyone, so it stands in for the user's consent) must carry it
/// in `X-Sandbox-Secret`; anyone else on the machine gets 403 and nothing changes.
public enum ControlSecret {
    /// The request header that carries the secret.
    public static let header = "X-Sandbox-Secret"
    /// The file, inside the state folder, that holds it (no newline).
    public static let fileName = "control-secret"

    /// 32 random bytes, base64url.
    public static func make() -> String { Digest.randomToken(bytes: 32) }

    /// Makes the state folder the owner's alone (0700) and writes `secret` into
    /// `directory/control-secret`, created afresh with mode 0600 (an old file or a symlink there
    /// is removed first, never followed). Returns the file's path.
    @discardableResult
    public static func write(_ secret: String, in directory: String) throws -> String {
        guard chmod(directory, 0o700) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: directory])
        }
        let path = directory + "/" + fileName
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        // The umask cannot widen 0600, but a narrower one must not leave the owner unable to read it.
        fchmod(fd, 0o600)
        let bytes = Array(secret.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
            written += result
        }
        return path
    }

    /// Reads the secret a sandbox wrote into `directory` (surrounding whitespace dropped).
    public static func read(in directory: String) throws -> String {
        let text = try String(contentsOfFile: directory + "/" + fileName, encoding: .utf8)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// True when `given` equals `expected`; the time taken depends on their lengths only, never
    /// on where they first differ.
    public static func matches(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count {
            difference |= (index < a.count ? a[index] : 0) ^ b[index]
        }
        return difference == 0
    }
}
