import Foundation
import TimbreCore

/// Where a command reads its input.
public protocol ConsoleInput: Sendable {
    /// One line without its newline; nil at the end of the input.
    func readLine() -> String?
    /// Everything left.
    func readAll() -> Data
    /// Everything left when it is at most `limit` bytes; nil once more arrives (what is left
    /// unread stays unread).
    func readAll(limit: Int) -> Data?
}

extension ConsoleInput {
    public func readAll(limit: Int) -> Data? {
        let data = readAll()
        return data.count > limit ? nil : data
    }
}

/// Where a command writes.
public protocol ConsoleOutput: Sendable {
    func write(_ text: String)
}

/// The process's stdin.
struct StandardInput: ConsoleInput {
    func readLine() -> String? { Swift.readLine(strippingNewline: true) }
    func readAll() -> Data { FileHandle.standardInput.readDataToEndOfFile() }
    func readAll(limit: Int) -> Data? { BoundedRead.descriptor(STDIN_FILENO, limit: limit) }
}

/// A file descriptor, written in full with short writes retried. A reader that went away
/// (`timbre sync --json | head -c 0`: EPIPE, SIGPIPE being ignored) ends the output quietly;
/// Foundation's `FileHandle.write` would stop the process with a crash report instead.
struct DescriptorOutput: ConsoleOutput {
    let descriptor: Int32

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// Input from a string, for tests.
final class BufferInput: ConsoleInput {
    private let remaining: Locked<Substring>

    init(_ text: String) { remaining = Locked(Substring(text)) }

    /// Like `Swift.readLine(strippingNewline: true)`: "\n" and "\r\n" end a line.
    func readLine() -> String? {
        remaining.withLock { rest in
            guard !rest.isEmpty else { return nil }
            // By bytes: "\r\n" is one Character, so a Character search for "\n" would miss it.
            guard let newline = rest.utf8.firstIndex(of: UInt8(ascii: "\n")) else {
                defer { rest = "" }
                return String(rest)
            }
            var line = String(rest[..<newline])
            if line.utf8.last == UInt8(ascii: "\r") { line.removeLast() }
            rest = rest[rest.utf8.index(after: newline)...]
            return line
        }
    }

    func readAll() -> Data {
        remaining.withLock { rest in
            defer { rest = "" }
            return Data(rest.utf8)
        }
    }
}

/// Output kept in memory, for tests.
public final class BufferOutput: ConsoleOutput {
    private let text = Locked("")

    public init() {}
    public func write(_ text: String) { self.text.withLock { $0 += text } }
    public var contents: String { text.current }
}

/// What a command wrote to a buffered console.
public struct ConsoleCapture: Sendable {
    public let stdout = BufferOutput()
    public let stderr = BufferOutput()
}
