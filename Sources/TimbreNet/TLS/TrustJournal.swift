import Foundation
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

/// The kinds of line in trust.jsonl (CONTRACT: "Trust events").
public enum TrustEventKind: String, Sendable, CaseIterable {
    case pinMatch = "pin_match"
    case pinMismatch = "pin_mismatch"
    case permissiveAllow = "permissive_allow"
    case remoteApplied = "remote_applied"
    case remoteRefused = "remote_refused"
    /// Client certificates (mTLS): presented and accepted, or the handshake ended over one.
    case clientCertUsed = "client_cert_used"
    case clientCertRejected = "client_cert_rejected"
}

/// One line of trust.jsonl.
public struct TrustRecord: Sendable, Equatable {
    public var at: String
    public var kind: TrustEventKind
    public var host: String
    public var pin: String?
    public var detail: String

    public init(at: String, kind: TrustEventKind, host: String, pin: String?, detail: String) {
        self.at = at
        self.kind = kind
        self.host = host
        self.pin = pin
        self.detail = detail
    }

    /// The record of a trust decision; nil for events that are not one of the journal's kinds
    /// (a missing policy, a chain the system store refused: both in the log).
    public init?(_ event: TrustEvent, at date: Date) {
        let at = ClockText.iso(date, milliseconds: true)
        func chain(_ presented: [ChainEntry]) -> String {
            presented.map { "\($0.position.rawValue) \($0.pin)" }.joined(separator: ", ")
        }
        switch event {
        case .pinMatched(let host, let pin, let position, let isPrimary):
            self.init(
                at: at, kind: .pinMatch, host: host, pin: pin.description,
                detail: "\(position.rawValue) matched the \(isPrimary ? "primary" : "backup") pin")
        case .pinMismatch(let host, let presented):
            self.init(
                at: at, kind: .pinMismatch, host: host, pin: presented.first?.pin.description,
                detail: "connection refused; presented \(chain(presented))")
        case .allowedByPermissiveMode(let host, let presented):
            self.init(
                at: at, kind: .permissiveAllow, host: host, pin: presented.first?.pin.description,
                detail: "no pin matched; allowed by mode = \"permissive\"; presented \(chain(presented))")
        case .remoteApplied(let source, let version, let hosts):
            self.init(
                at: at, kind: .remoteApplied, host: event.host, pin: nil,
                detail: "version \(version) from \(Redactor.redact(source)) (\(hosts) host\(hosts == 1 ? "" : "s"))")
        case .remoteRefused(let source, let reason):
            self.init(at: at, kind: .remoteRefused, host: event.host, pin: nil, detail: "\(Redactor.redact(source)): \(reason)")
        case .clientCertificateUsed(let host, let subject, let pin):
            self.init(at: at, kind: .clientCertUsed, host: host, pin: pin.description, detail: "presented \(subject)")
        case .clientCertificateRejected(let host, let subject, let pin, let reason):
            self.init(
                at: at, kind: .clientCertRejected, host: host, pin: pin?.description,
                detail: subject.map { "presented \($0); \(reason)" } ?? reason)
        case .policyMissing, .systemTrustFailed:
            return nil
        }
    }

    public var json: JSONValue {
        .object([
            ("at", .string(at)), ("event", .string(kind.rawValue)), ("host", .string(host)), ("pin", .optional(pin)),
            ("detail", .string(detail)),
        ])
    }

    /// Reads one line; nil for a line that is not a record (a torn or foreign line is skipped).
    public init?(line: Substring) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let at = object["at"] as? String, let kindText = object["event"] as? String,
            let kind = TrustEventKind(rawValue: kindText), let host = object["host"] as? String
        else { return nil }
        self.init(at: at, kind: kind, host: host, pin: object["pin"] as? String, detail: object["detail"] as? String ?? "")
    }
}

/// Appends each trust decision to `$XDG_STATE_HOME/timbre/trust.jsonl` (0600), one JSON line per
/// event; past `rotateAfter` bytes the file becomes `trust.jsonl.1` (the previous `.1` goes).
/// The transport calls it from the TLS verify callback, once per handshake: one `write(2)` on a
/// descriptor kept open, so a sync's few handshakes cost microseconds. Injected through
/// `CurlTransport(observer:)`; tests use a path of their own or none at all.
public final class TrustJournal: TrustObserver {
    public static let defaultRotateBytes = 1 << 20

    public let path: String
    public let rotateAfter: Int
    private let clock: @Sendable () -> Date
    private let descriptor = Locked<Int32>(-1)

    public init(path: String, rotateAfter: Int = TrustJournal.defaultRotateBytes, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.path = path
        self.rotateAfter = rotateAfter
        self.clock = clock
    }

    deinit {
        let fd = descriptor.current
        if fd >= 0 { close(fd) }
    }

    public func record(_ event: TrustEvent) {
        guard let record = TrustRecord(event, at: clock()) else { return }
        append(record.json.serialized() + "\n")
    }

    /// Never throws: a journal that cannot be written must not fail a connection (the log has
    /// every decision too).
    private func append(_ line: String) {
        let bytes = Array(line.utf8)
        descriptor.withLock { fd in
            if fd < 0 { fd = open() }
            guard fd >= 0 else { return }
            var info = stat()
            if fstat(fd, &info) == 0, Int(info.st_size) + bytes.count > rotateAfter, info.st_size > 0 {
                close(fd)
                _ = rename(path, path + ".1")
                fd = open()
                guard fd >= 0 else { return }
            }
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        }
    }

    private func open() -> Int32 {
        try? Paths.ensureParentDirectory(of: path)
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd >= 0 {
            var info = stat()
            // Not a regular file of this user's (only root can meet someone else's): not written.
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
                close(fd)
                return -1
            }
            if info.st_mode & 0o077 != 0 { _ = fchmod(fd, 0o600) }
        }
        return fd
    }

    /// Every record in `path.1` then `path`, oldest first.
    public static func read(path: String) -> [TrustRecord] {
        [path + ".1", path].flatMap { file -> [TrustRecord] in
            guard let data = FileManager.default.contents(atPath: file) else { return [] }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { TrustRecord(line: $0) }
        }
    }
}
