import Foundation
import TimbreCore

/// `TIMBRE_REPLAY=DIR`: answers every request from a recording `RecordingTransport` wrote, and
/// sends nothing — no connection is opened, so there is no network and no TLS in a replay.
///
/// A request is matched by method, path and query (secret values compared as `REDACTED`; the host
/// is ignored). Identical requests get the recorded answers in the order they were recorded: the
/// second `GET /v1/me` gets the second recorded answer. A request with no recorded answer left is
/// an error naming it and DIR — except the token endpoint: its answers hold nothing but redacted
/// tokens, so when the recording has none left (the recorded run had a valid access token already)
/// a stand-in answer with the token `REDACTED` lets the replay sign in all the same.
public final class ReplayTransport: HTTPTransport {
    public let directory: URL
    private let state = Locked<Recording?>(nil)

    struct Recording {
        var queues: [String: [RecordedExchange]]
        var asked: [String: Int] = [:]
        let total: Int
    }

    public init(directory: URL) {
        self.directory = directory
    }

    /// The largest exchange file read: a response body is at most 64 MB (the transport's limit),
    /// which as base64 or JSON-escaped text in the file stays well under this.
    public static let maxFileBytes = 256 << 20

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let key = RecordedExchange.key(of: request)
        let found = try state.withLock { state -> RecordedExchange? in
            var recording = try state ?? load()
            defer { state = recording }
            recording.asked[key, default: 0] += 1
            guard var queue = recording.queues[key], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            recording.queues[key] = queue
            return first
        }
        guard let found else {
            if request.method == .post, request.url.path.hasSuffix("/api/token") { return Self.standInToken }
            let (asked, total) = state.withLock { ($0?.asked[key] ?? 1, $0?.total ?? 0) }
            throw ReplayError.missing(request: key, time: asked, directory: directory.path, recorded: total)
        }
        switch found.outcome {
        case .response(let response):
            return response
        case .failure(let kind, let host, let message):
            throw TransportError.connection(host: host, kind: TransportError.ConnectionFailureKind(rawValue: kind) ?? .other, detail: message)
        }
    }

    static let standInToken = HTTPResponse(
        status: 200, headers: ["content-type": "application/json"],
        body: Data(#"{"access_token":"REDACTED","token_type":"Bearer","expires_in":3600}"#.utf8))

    /// Throws when `directory` is not a folder holding at least one exchange file (`.json`).
    public static func checkFolder(_ directory: URL) throws(ReplayError) {
        if try exchangeFiles(in: directory).isEmpty { throw ReplayError.empty(directory: directory.path) }
    }

    private static func exchangeFiles(in directory: URL) throws(ReplayError) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReplayError.unreadable(directory: directory.path, detail: "no such folder")
        }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        } catch {
            throw ReplayError.unreadable(directory: directory.path, detail: error.localizedDescription)
        }
    }

    private func load() throws -> Recording {
        let names = try Self.exchangeFiles(in: directory)
        var exchanges: [RecordedExchange] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            let read = BoundedRead.file(path, limit: Self.maxFileBytes)
            if read.tooLarge {
                throw ReplayError.unreadable(
                    directory: directory.path, detail: "\(name) is over \(Self.maxFileBytes >> 20) MB, more than any recorded exchange")
            }
            guard let data = read.data, let exchange = RecordedExchange.parse(data) else {
                throw ReplayError.unreadable(directory: directory.path, detail: "\(name) is not a recorded exchange")
            }
            exchanges.append(exchange)
        }
        guard !exchanges.isEmpty else { throw ReplayError.empty(directory: directory.path) }
        var queues: [String: [RecordedExchange]] = [:]
        for exchange in exchanges.sorted(by: { $0.sequence < $1.sequence }) { queues[exchange.key, default: []].append(exchange) }
        return Recording(queues: queues, total: exchanges.count)
    }
}

/// A replay that cannot answer (exit 1).
public enum ReplayError: UserFacingError, Equatable {
    case missing(request: String, time: Int, directory: String, recorded: Int)
    case empty(directory: String)
    case unreadable(directory: String, detail: String)

    public var message: String {
        switch self {
        case .missing(let request, let time, let directory, _):
            let which = time > 1 ? " (asked \(time) times)" : ""
            return "the recording in \(directory) has no answer for \(TerminalText.preview(request))\(which)"
        case .empty(let directory):
            return "TIMBRE_REPLAY names \(directory), which holds no recorded exchange"
        case .unreadable(let directory, let detail):
            return "cannot read the recording in \(directory): \(TerminalText.preview(detail))"
        }
    }

    public var hint: String? {
        switch self {
        case .missing(_, _, _, let recorded):
            return "it holds \(recorded) exchange(s), none left for this request: record this command with TIMBRE_RECORD=DIR, or unset TIMBRE_REPLAY"
        case .empty, .unreadable:
            return "record a session first with TIMBRE_RECORD=DIR, or unset TIMBRE_REPLAY"
        }
    }

    public var exitStatus: ExitStatus { .failure }
}
