import Foundation
import Logging
import TimbreCore

public enum ChainPosition: String, Sendable, Codable {
    case leaf, intermediate, root
}

/// One certificate of a chain as pinning sees it.
public struct ChainEntry: Sendable, Equatable, Codable {
    public var position: ChainPosition
    public var subject: String
    public var pin: SPKIPin

    public init(position: ChainPosition, subject: String, pin: SPKIPin) {
        self.position = position
        self.subject = subject
        self.pin = pin
    }
}

extension SPKIPin: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let pin = SPKIPin(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a sha256/ pin"))
        }
        self = pin
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// Every trust decision the transport makes. Tests read them through a `TrustEventRecorder`; the
/// transport also logs each one.
public enum TrustEvent: Sendable, Equatable {
    case pinMatched(host: String, pin: SPKIPin, position: ChainPosition, isPrimary: Bool)
    case pinMismatch(host: String, presented: [ChainEntry])
    case allowedByPermissiveMode(host: String, presented: [ChainEntry])
    case policyMissing(host: String)
    case systemTrustFailed(host: String, reason: String)
    /// A signed remote pin document was applied (`timbre pins update`).
    case remoteApplied(source: String, version: Int, hosts: Int)
    /// A remote pin document was refused; `reason` is the sentence the user saw.
    case remoteRefused(source: String, reason: String)
    /// The server asked for a client certificate and the handshake with it completed (recorded once
    /// per connection, when its first transfer succeeds).
    case clientCertificateUsed(host: String, subject: String, pin: SPKIPin)
    /// The server ended the handshake after asking for a client certificate: `subject`/`pin` of
    /// the one presented, nil when none is configured; `reason` names the server's alert.
    case clientCertificateRejected(host: String, subject: String?, pin: SPKIPin?, reason: String)

    public var host: String {
        switch self {
        case .pinMatched(let host, _, _, _), .pinMismatch(let host, _), .allowedByPermissiveMode(let host, _),
            .policyMissing(let host), .systemTrustFailed(let host, _), .clientCertificateUsed(let host, _, _),
            .clientCertificateRejected(let host, _, _, _):
            return host
        case .remoteApplied(let source, _, _), .remoteRefused(let source, _):
            return URL(string: source).flatMap { $0.scheme == nil ? nil : $0.host } ?? ""
        }
    }
}

public protocol TrustObserver: Sendable {
    func record(_ event: TrustEvent)
}

/// Keeps every event, for tests and `timbre doctor`.
public final class TrustEventRecorder: TrustObserver {
    private let store = Locked<[TrustEvent]>([])
    public init() {}
    public func record(_ event: TrustEvent) { store.withLock { $0.append(event) } }
    public var events: [TrustEvent] { store.current }
}

/// Writes each trust decision to the log: mismatches as errors, permissive passes as warnings.
struct LoggingTrustObserver: TrustObserver {
    let logger: Logger

    func record(_ event: TrustEvent) {
        switch event {
        case .pinMatched(let host, let pin, let position, let isPrimary):
            if isPrimary {
                logger.debug("pin matched", metadata: ["host": "\(host)", "pin": "\(pin)", "position": "\(position.rawValue)"])
            } else {
                logger.notice(
                    "backup pin matched; the primary pin may be out of date",
                    metadata: ["host": "\(host)", "pin": "\(pin)", "position": "\(position.rawValue)"])
            }
        case .pinMismatch(let host, let presented):
            logger.error(
                "pin mismatch: connection refused", metadata: ["host": "\(host)", "presented": "\(presented.map { "\($0.position.rawValue)=\($0.pin)" })"])
        case .allowedByPermissiveMode(let host, let presented):
            logger.warning(
                "pin mismatch allowed by permissive mode",
                metadata: ["host": "\(host)", "presented": "\(presented.map { "\($0.position.rawValue)=\($0.pin)" })"])
        case .policyMissing(let host):
            logger.error("no pin policy for host: request refused", metadata: ["host": "\(host)"])
        case .systemTrustFailed(let host, let reason):
            logger.error("certificate verification failed", metadata: ["host": "\(host)", "reason": "\(TerminalText.sanitize(reason))"])
        case .remoteApplied(let source, let version, let hosts):
            logger.notice("remote pin set applied", metadata: ["source": "\(Redactor.redact(source))", "version": "\(version)", "hosts": "\(hosts)"])
        case .remoteRefused(let source, let reason):
            logger.error("remote pin document refused", metadata: ["source": "\(Redactor.redact(source))", "reason": "\(TerminalText.sanitize(reason))"])
        case .clientCertificateUsed(let host, let subject, let pin):
            logger.debug("client certificate accepted", metadata: ["host": "\(host)", "subject": "\(subject)", "pin": "\(pin)"])
        case .clientCertificateRejected(let host, let subject, _, let reason):
            logger.error(
                "client certificate rejected",
                metadata: ["host": "\(host)", "subject": "\(subject ?? "none configured")", "reason": "\(TerminalText.sanitize(reason))"])
        }
    }
}

/// Sends each event to several observers. A backup pin matching is told once per host and pin
/// for the transport's life (one run): it says the same thing on every connection, and a long
/// interface session would otherwise fill the log and trust.jsonl with it.
final class TrustObservers: TrustObserver {
    let all: [any TrustObserver]
    private let backupsTold = Locked<Set<String>>([])

    init(all: [any TrustObserver]) { self.all = all }

    func record(_ event: TrustEvent) {
        if case .pinMatched(let host, let pin, _, false) = event {
            let first = backupsTold.withLock { $0.insert("\(host) \(pin)").inserted }
            guard first else { return }
        }
        all.forEach { $0.record(event) }
    }
}

/// The pure part of pinning: which certificates a rule may match, and whether one does.
public enum PinVerifier {
    public enum Decision: Sendable, Equatable {
        case matched(pin: SPKIPin, position: ChainPosition, isPrimary: Bool)
        case mismatch
    }

    /// `chain` is the verified chain, leaf first, trust anchor last.
    public static func evaluate(rule: PinRule, chain: [ChainEntry]) -> Decision {
        for entry in chain where covers(rule.scope, entry.position) {
            if let index = rule.pins.firstIndex(of: entry.pin) {
                return .matched(pin: entry.pin, position: entry.position, isPrimary: index == 0)
            }
        }
        return .mismatch
    }

    static func covers(_ scope: PinScope, _ position: ChainPosition) -> Bool {
        switch scope {
        case .any: return true
        case .leaf: return position == .leaf
        case .intermediate: return position == .intermediate
        case .root: return position == .root
        }
    }

    /// Positions of a verified chain: the first is the leaf, the last the trust anchor, the
    /// others intermediates. A one-element chain is a self-signed leaf trusted directly.
    public static func positions(count: Int) -> [ChainPosition] {
        (0..<count).map { index in
            if index == 0 { return .leaf }
            if index == count - 1 { return .root }
            return .intermediate
        }
    }
}
