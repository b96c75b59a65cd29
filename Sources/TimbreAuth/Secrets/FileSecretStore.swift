import Foundation
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

/// `--insecure-storage`: secrets in plain text at `paths.credentials`, as
/// `{"profiles": {"default": {"refresh_token": "…", "session": "…", "client_id": "…"}}}`.
///
/// The file is mode 0600 from its first byte (a temporary file created 0600 with `O_EXCL` in the
/// same folder, fsync'd, then renamed over the target); the folder is created 0700. A file other
/// users could read is refused. The first write of a store warns on stderr (the sink is injectable),
/// once however many secrets a sign-in stores. Deleting the last secret removes the file.
///
/// Writes and deletes read, change and rewrite the whole file holding an `flock` on
/// `<path>.lock`, across processes: two timbre processes storing at once (a rotated refresh
/// token in one, a session in the other) must not write back what they read before the other's
/// write — a stale copy would put a dead refresh token back.
public struct FileSecretStore: SecretStore {
    public var source: SecretSource { .file }
    public let path: String
    private let warn: @Sendable (String) -> Void
    /// Shared by the copies of this store: the warning is said once.
    private let warned = Locked(false)

    public static let standardErrorSink: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public init(path: String, warn: @escaping @Sendable (String) -> Void = FileSecretStore.standardErrorSink) {
        self.path = path
        self.warn = warn
    }

    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    public static func warning(path: String) -> String {
        "timbre: warning: storing secrets in plain text at \(path) (--insecure-storage); anyone with your user account can read them"
    }

    public func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        try Self.serialised { () throws(SecretStoreError) -> SecretBytes? in
            guard let value = try load(allowUnsafe: false)[profile]?[kind.rawValue] else { return nil }
            return SecretBytes(value)
        }
    }

    public func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {
        try await lockedForWriting { () throws(SecretStoreError) in
            var profiles = try load(allowUnsafe: false)
            profiles[profile, default: [:]][kind.rawValue] = secret.withString { $0 }
            let first = warned.withLock { done in
                defer { done = true }
                return !done
            }
            if first { warn(Self.warning(path: path)) }
            try save(profiles)
        }
    }

    public func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        try await lockedForWriting { () throws(SecretStoreError) in
            // Logout must be able to clean up a file with loose permissions too.
            var profiles = try load(allowUnsafe: true)
            guard profiles[profile]?.removeValue(forKey: kind.rawValue) != nil else { return }
            if profiles[profile]?.isEmpty == true { profiles[profile] = nil }
            if profiles.isEmpty {
                if unlink(path) != 0 && errno != ENOENT { throw .fileIO(path: path, detail: Self.errnoText()) }
            } else {
                try save(profiles)
            }
        }
    }

    // Serialises read-modify-write cycles within the process.
    private static let guardFile = NSLock()

    /// How long a write waits for another process's write (each holds it for a read and a rename).
    static let lockWait: Duration = .seconds(10)

    /// The lock file beside the credentials file: the file itself is replaced by each write, so
    /// a lock on it would be a lock on a file that is no longer there.
    public var lockPath: String { path + ".lock" }

    /// `body` (a read-modify-write) under the cross-process lock, then the in-process one.
    private func lockedForWriting(_ body: () throws(SecretStoreError) -> Void) async throws(SecretStoreError) {
        let lock: FileLock
        do {
            lock = try await FileLock.acquire(path: lockPath, wait: Self.lockWait)
        } catch {
            throw .fileIO(path: lockPath, detail: error.message)
        }
        defer { lock.release() }
        try Self.serialised(body)
    }

    private static func serialised<T>(_ body: () throws(SecretStoreError) -> T) throws(SecretStoreError) -> T {
        guardFile.lock()
        defer { guardFile.unlock() }
        return try body()
    }

    private typealias Profiles = [String: [String: String]]

    private func load(allowUnsafe: Bool) throws(SecretStoreError) -> Profiles {
        // Not through a symlink, and only a regular file of ours: anyone who could plant either
        // would choose the refresh token timbre uses.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return [:] }
            if errno == ELOOP {
                throw .fileIO(
                    path: path,
                    detail: "it is a symbolic link, which timbre does not follow; put the file itself there, or run `timbre logout` and sign in again")
            }
            throw .fileIO(path: path, detail: Self.errnoText())
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .fileIO(path: path, detail: Self.errnoText()) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .fileIO(path: path, detail: "it is not a regular file; remove it and sign in again")
        }
        guard info.st_uid == geteuid() else {
            throw .fileIO(path: path, detail: "it belongs to another user (uid \(info.st_uid)); remove it and sign in again")
        }
        let mode = UInt16(info.st_mode & 0o7777)
        if !allowUnsafe && mode & 0o077 != 0 { throw .unsafePermissions(path: path, mode: mode) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileIO(path: path, detail: Self.errnoText())
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        buffer.withUnsafeMutableBufferPointer { if let base = $0.baseAddress { SecretBytes.wipe(base, count: $0.count) } }
        if data.isEmpty { return [:] }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw .malformedFile(path: path, detail: "not JSON")
        }
        guard let root = object as? [String: Any], let profiles = root["profiles"] as? [String: Any] else {
            throw .malformedFile(path: path, detail: "expected {\"profiles\": {…}}")
        }
        var result: Profiles = [:]
        for (name, entry) in profiles {
            guard let entry = entry as? [String: Any] else { throw .malformedFile(path: path, detail: "profile \(name) is not an object") }
            result[name] = entry.compactMapValues { $0 as? String }
        }
        return result
    }

    private func save(_ profiles: Profiles) throws(SecretStoreError) {
        let data: Data
        do {
            data = try JSONSerialization.data(
                withJSONObject: ["profiles": profiles], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw .fileIO(path: path, detail: "could not encode JSON")
        }
        // 0600 from the first byte (the mode is fixed at creation, before any secret is written),
        // then renamed over the file: a reader sees the old secrets or the new ones.
        do {
            try PrivateFile.write(data, to: path)
        } catch {
            throw .fileIO(path: error.path, detail: error.detail)
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
