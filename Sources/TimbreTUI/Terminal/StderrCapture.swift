import Foundation
import TimbreCore

/// While curses owns the screen, file descriptor 2 points at the log file: a warning printed by
/// any code — ours, GLib's, libsecret's — lands there instead of scrolling the interface away.
/// `end()` (quit, signals) and the crash handler give the terminal its stderr back.
enum StderrCapture {
    /// The terminal's stderr while captured, else -1. Read by the crash handler, which may not
    /// take locks; written only by the TUI's set-up and tear-down.
    nonisolated(unsafe) static var saved: Int32 = -1

    /// Points fd 2 at `logPath` (created 0600, never through a symlink), or at /dev/null when it
    /// cannot be opened: either way nothing reaches the screen. Returns where it points.
    @discardableResult
    static func begin(logPath: String) -> String {
        guard saved < 0 else { return logPath }
        var target = logPath
        var fd = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 {
            target = "/dev/null"
            fd = open(target, O_WRONLY | O_CLOEXEC)
        }
        guard fd >= 0 else { return "" }
        let copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else {
            close(fd)
            return ""
        }
        saved = copy
        dup2(fd, STDERR_FILENO)
        close(fd)
        return target
    }

    /// Appends a message to the log while fd 2 points at it (as TimbreCore's log handler writes
    /// its lines, redacted); does nothing when fd 2 is the terminal's.
    static func log(_ text: String, at date: Date = Date()) {
        guard saved >= 0 else { return }
        let flat = text.replacingOccurrences(of: "\n", with: " | ")
        let line = Redactor.redact("\(ClockText.iso(date, milliseconds: true)) warning timbre.tui: \(flat)") + "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// Gives fd 2 back to the terminal (idempotent). Async-signal-safe: dup2 and close only.
    static func end() {
        let copy = saved
        guard copy >= 0 else { return }
        saved = -1
        dup2(copy, STDERR_FILENO)
        close(copy)
    }
}

/// Warnings and errors from background work, handed to the interface from any thread; the TUI
/// thread takes them into `TUIState.messages` on its next turn.
public final class MessageInbox: Sendable {
    private let pending = Locked<[String]>([])

    public init() {}

    public func post(_ text: String) { pending.withLock { $0.append(text) } }

    func take() -> [String] {
        pending.withLock { list in
            defer { list = [] }
            return list
        }
    }
}
