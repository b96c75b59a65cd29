import Foundation
import TimbreCore

/// `TIMBRE_RECORD=DIR`: every request passes through to `inner` (the pinned transport, so the
/// pins stay in force) and each exchange is written, redacted, as one numbered file under DIR —
/// something a user can read, check with `grep -ri token DIR`, and attach to a bug report.
/// Numbering continues after the files already there, so several commands can share one folder.
public final class RecordingTransport: HTTPTransport {
    public let inner: any HTTPTransport
    public var requestDeadline: Duration? { inner.requestDeadline }
    public let directory: URL
    /// The next file's number; nil until the folder is prepared (on the first request).
    private let next = Locked<Int?>(nil)

    public init(inner: any HTTPTransport, directory: URL) {
        self.inner = inner
        self.directory = directory
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // The folder is made ready before anything is sent: a recording asked for and not written
        // must not leave a request sent.
        let sequence = try take()
        let response: HTTPResponse
        do {
            response = try await inner.send(request)
        } catch let error as TransportError {
            try write(RecordedExchange(sequence: sequence, request: request, outcome: .failure(error)))
            throw error
        }
        try write(RecordedExchange(sequence: sequence, request: request, outcome: .success(response)))
        return response
    }

    private func take() throws -> Int {
        try next.withLock { next in
            let number = try next ?? prepare()
            next = number + 1
            return number
        }
    }

    private func prepare() throws -> Int {
        let names: [String]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw RecordingError(directory: directory.path, detail: error.localizedDescription)
        }
        // Another user who can write (or owns) the folder could swap the exchange files a replay
        // or a bug report is made from: only a folder of this user's alone is recorded into.
        if let refusal = FilePermissions.requirePrivateFolder(directory.path) {
            throw RecordingError(directory: directory.path, detail: refusal.problem, fix: refusal.fix)
        }
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw RecordingError(directory: directory.path, detail: error.localizedDescription)
        }
        return (names.compactMap(Self.sequence(of:)).max() ?? 0) + 1
    }

    /// The leading number of an exchange file's name (`0007-GET-….json`); nil for any other name,
    /// and for a number of more than nine digits, which timbre never writes (one near `Int.max`
    /// would overflow the next number).
    static func sequence(of name: String) -> Int? {
        guard name.hasSuffix(".json") else { return nil }
        let digits = name.utf8.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    private func write(_ exchange: RecordedExchange) throws {
        let path = directory.appendingPathComponent(exchange.fileName).path
        do {
            try PrivateFile.write(Data(exchange.serialized().utf8), to: path)
        } catch {
            throw RecordingError(directory: directory.path, detail: error.message)
        }
    }
}

/// The recording folder cannot be made or written.
public struct RecordingError: UserFacingError {
    public let directory: String
    public let detail: String
    public var fix: String?

    public init(directory: String, detail: String, fix: String? = nil) {
        self.directory = directory
        self.detail = detail
        self.fix = fix
    }

    public var message: String { "cannot write the recording to \(directory): \(TerminalText.preview(detail))" }
    public var hint: String? {
        guard let fix else { return "set TIMBRE_RECORD to a folder you can write, or unset it" }
        return "\(fix), or set TIMBRE_RECORD to a folder of your own (nothing was sent)"
    }
    public var exitStatus: ExitStatus { .failure }
}
