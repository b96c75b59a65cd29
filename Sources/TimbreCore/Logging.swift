import Foundation
import Logging

/// Appends log lines to timbre's log file. Every line passes through `Redactor` first, so a token
/// that slips into a message or metadata never reaches the disk.
public struct FileLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let sink: LogSink

    public init(label: String, sink: LogSink, level: Logger.Level) {
        self.label = label
        self.sink = sink
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        let level = event.level
        let message = event.message
        let meta =
            merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(TerminalText.sanitize("\($0.value)"))" }.joined(separator: " ")
        let stamp = ClockText.iso(Date(), milliseconds: true)
        sink.write(Redactor.redact("\(stamp) \(level) \(label): \(message)\(meta)") + "\n")
    }
}

/// The log file, opened once for appending with mode 0600; writes are serialised. A symlink in its
/// place is refused, not followed: it would send timbre's appends into any file the user can write.
public final class LogSink: Sendable {
    private let fd: Locked<Int32>

    public init(path: String) throws {
        try Paths.ensureParentDirectory(of: path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw LogError(path: path, errno: errno) }
        var info = stat()
        // Not a regular file, or someone else's (only root can meet one here): not appended to.
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            close(fd)
            throw LogError(path: path, errno: EINVAL)
        }
        // A log left 0644 by an older timbre still holds request details: tighten it too.
        if info.st_mode & 0o077 != 0 { _ = fchmod(fd, 0o600) }
        self.fd = Locked(fd)
    }

    public func write(_ text: String) {
        fd.withLock { fd in
            var bytes = Array(text.utf8)
            _ = bytes.withUnsafeMutableBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        }
    }

    deinit { fd.withLock { _ = close($0) } }
}

public struct LogError: UserFacingError {
    public let path: String
    public let errno: Int32
    public var message: String { "cannot open the log file \(path): \(String(cString: strerror(errno)))" }
    public var hint: String? { "check the permissions of that folder, or point XDG_STATE_HOME elsewhere" }
    public var exitStatus: ExitStatus { .failure }
}

public enum TimbreLogging {
    /// Parses `TIMBRE_LOG` (trace, debug, info, notice, warning, error, critical); default info.
    public static func level(from value: String?) -> Logger.Level {
        guard let value, let level = Logger.Level(rawValue: value.lowercased()) else { return .info }
        return level
    }

    /// Sends every logger of the process to the log file. Call once, early, from the executable.
    /// When the file cannot be opened, logging goes nowhere rather than to the terminal. Returns
    /// why the file is refused when something other than the user's own file stands where the log
    /// goes — a symbolic link, another user's file, a FIFO —: the run must say so and stop (exit 1,
    /// README), not run on with its log silently unwritten.
    @discardableResult
    public static func bootstrap(paths: Paths, environment: [String: String]) -> UnsafeFileError? {
        let level = level(from: environment["TIMBRE_LOG"])
        var refusal: UnsafeFileError?
        do {
            try FilePermissions.requireOwnFile(paths.log)
        } catch {
            refusal = (error as any Error) as? UnsafeFileError
        }
        let sink = refusal == nil ? try? LogSink(path: paths.log) : nil
        LoggingSystem.bootstrap { label in
            guard let sink else { return SwiftLogNoOpLogHandler() }
            return FileLogHandler(label: label, sink: sink, level: level)
        }
        return refusal
    }
}
