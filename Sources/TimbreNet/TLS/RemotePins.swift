import Foundation
import TimbreCore

/// A remote pin document (`[tls.remote] url`): `{"version": 8, "expires_at": "2027-01-01T00:00:00Z",
/// "pins": [{"host": …, "pins": […], "scope": …, "mode": …}]}`. Parsed only after its signature
/// verified.
public struct RemotePinDocument: Sendable, Equatable {
    public var version: Int
    public var expiresAt: Date
    /// One rule per host that keeps pins.
    public var rules: [PinRule]

    public init(version: Int, expiresAt: Date, rules: [PinRule]) {
        self.version = version
        self.expiresAt = expiresAt
        self.rules = rules
    }

    public var expiresText: String { ClockText.iso(expiresAt) }

    private struct Raw: Decodable {
        struct Entry: Decodable {
            var host: String
            var pins: [String]
            var scope: String?
            var mode: String?
        }

        var version: Int
        var expires_at: String
        var pins: [Entry]
    }

    /// An entry with an empty `pins` list names a host the document removes; it has no rule.
    public static func parse(_ bytes: [UInt8]) throws(RemotePinError) -> RemotePinDocument {
        func fail(_ detail: String) -> RemotePinError { .malformed(detail) }
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: Data(bytes))
        } catch let error as DecodingError {
            switch error {
            case .keyNotFound(let key, let context):
                throw fail("\(Self.describe(context.codingPath + [key])) is missing")
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                throw fail(context.codingPath.isEmpty ? "it is not a JSON object" : "\(Self.describe(context.codingPath)) has the wrong type")
            @unknown default:
                throw fail("it is not a JSON object")
            }
        } catch {
            throw fail("it is not a JSON object")
        }
        guard raw.version >= 1 else { throw fail("\"version\" must be a whole number from 1 up") }
        guard let expiresAt = Self.parseTime(raw.expires_at) else {
            throw fail("\"expires_at\" must be a UTC time like \"2027-01-01T00:00:00Z\"")
        }
        var rules: [PinRule] = []
        var hosts = Set<String>()
        for (index, entry) in raw.pins.enumerated() {
            let at = "pins[\(index)]"
            guard let host = HostPattern(entry.host) else {
                throw fail("\(at): \"host\" must be a host name, an IP address or *.example.com")
            }
            guard hosts.insert(host.text).inserted else { throw fail("\(at): \(host.text) appears twice") }
            var pins: [SPKIPin] = []
            for text in entry.pins {
                guard let pin = SPKIPin(text) else {
                    throw fail("\(at) (\(host.text)): every pin must be sha256/ followed by 44 base64 characters")
                }
                pins.append(pin)
            }
            var scope = PinScope.any
            if let text = entry.scope {
                guard let value = PinScope(rawValue: text) else { throw fail("\(at) (\(host.text)): \"scope\" must be leaf, intermediate, root or any") }
                scope = value
            }
            var mode = PinMode.strict
            if let text = entry.mode {
                guard let value = PinMode(rawValue: text) else { throw fail("\(at) (\(host.text)): \"mode\" must be strict or permissive") }
                mode = value
            }
            if !pins.isEmpty { rules.append(PinRule(host: host, pins: pins, scope: scope, mode: mode)) }
        }
        return RemotePinDocument(version: raw.version, expiresAt: expiresAt, rules: rules)
    }

    private static func describe(_ path: [any CodingKey]) -> String {
        let text = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        return "\"\(text)\""
    }

    /// `2027-01-01T00:00:00Z` (fraction allowed); UTC only, so no document means two times.
    static func parseTime(_ text: String) -> Date? {
        guard text.hasSuffix("Z"), text.count >= 20, Array(text.utf8)[10] == UInt8(ascii: "T") else { return nil }
        return ClockText.parseSQLite(String(text.dropLast()))
    }
}

/// The applied remote set: the document's exact bytes and signature, kept so that every load
/// verifies them again.
public struct AppliedRemotePins: Sendable, Equatable {
    public var document: [UInt8]
    /// The signature as base64 text.
    public var signature: String
    public var appliedAt: Date
    /// The URL or file it came from.
    public var source: String
    public var parsed: RemotePinDocument

    public init(document: [UInt8], signature: String, appliedAt: Date, source: String, parsed: RemotePinDocument) {
        self.document = document
        self.signature = signature
        self.appliedAt = appliedAt
        self.source = source
        self.parsed = parsed
    }

    /// `pins status --json`'s `"remote"`.
    public var statusJSON: JSONValue {
        .object([
            ("version", .int(parsed.version)), ("expires_at", .string(parsed.expiresText)),
            ("applied_at", .string(ClockText.iso(appliedAt))), ("source", .string(source)),
        ])
    }
}

/// Why a pin document was refused, or an update could not be made. A refusal leaves the applied
/// set as it was.
public enum RemotePinError: UserFacingError, Equatable {
    /// No `[tls.remote]` in config.toml.
    case notConfigured
    /// `pins update` without `--file` and no `url` in `[tls.remote]`.
    case noURL
    /// The key in `[tls.remote]` (or the HMAC key) cannot be used.
    case keyUnusable(String)
    case unsigned(source: String)
    case signatureInvalid(String)
    case malformed(String)
    case notNewer(version: Int, applied: Int)
    case expired(String)
    case removesHosts([String])
    /// The document or its signature could not be read (HTTP status, missing file).
    case unreadable(String)
    /// The rollback floor (`remote-pins.floor`) is there but unreadable: no version can be known to be newer.
    case floorDamaged(path: String)

    public var message: String {
        switch self {
        case .notConfigured:
            return "config.toml has no [tls.remote] table, so timbre has no key to verify a pin document with"
        case .noURL:
            return "[tls.remote] in config.toml has no url; give the document with --file DOC --signature SIG"
        case .unreadable(let detail):
            return detail
        default:
            return "pin document refused: \(reason); the current pin set stays in place"
        }
    }

    /// The reason alone (trust events, doctor).
    public var reason: String {
        switch self {
        case .notConfigured, .noURL, .unreadable: return message
        case .keyUnusable(let detail): return detail
        case .unsigned(let source): return "it is unsigned (no signature, or an empty one, for \(source)); timbre never applies an unsigned pin document"
        case .signatureInvalid(let detail): return detail
        case .malformed(let detail): return "it is not a valid pin document: \(detail)"
        case .notNewer(let version, let applied): return "its version \(version) is not newer than the applied version \(applied) (no rollback)"
        case .expired(let when): return "it expired at \(when)"
        case .removesHosts(let hosts):
            return
                "it would remove every pin of \(hosts.joined(separator: ", ")), which the applied set pins (allow_host_removal = true in [tls.remote] permits that)"
        case .floorDamaged(let path):
            return "the highest version applied so far (\(path)) is unreadable, so no document can be shown to be newer (no rollback)"
        }
    }

    public var hint: String? {
        switch self {
        case .notConfigured: return "add [tls.remote] with public_key = \"/path/signer.pem\" or hmac = true (README: Pin updates)"
        case .keyUnusable: return "check public_key in [tls.remote], or TIMBRE_PINS_HMAC_KEY / the keyring item for hmac = true"
        case .notNewer: return "`timbre pins status` shows the applied version; the signer must publish a higher one"
        case .expired: return "ask the signer for a fresh document"
        case .floorDamaged(let path):
            return "write the last version you applied into it (`echo N > \(path)`), or remove it to accept any version above the stored set's"
        default: return nil
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .notConfigured, .noURL: return .usage
        case .unreadable: return .failure
        default: return .trustFailure
        }
    }
}

/// The checks a pin document must pass before anything is stored, in order: signed, signature
/// valid, a document, newer than the applied one, not expired, and removing no host's every pin
/// unless allowed.
public enum RemotePinCheck {
    public static func evaluate(
        document: [UInt8], signature signatureText: String?, key: PinDocumentKey, source: String,
        current: AppliedRemotePins?, versionFloor: Int?, allowHostRemoval: Bool, now: Date
    ) throws(RemotePinError) -> AppliedRemotePins {
        let text = (signatureText ?? "").filter { !$0.isWhitespace }
        guard !text.isEmpty else { throw .unsigned(source: source) }
        guard let signature = Data(base64Encoded: text) else {
            throw .signatureInvalid("the signature is not base64 text (the .sig file holds the base64 of the signature bytes)")
        }
        if case .invalid(let why) = key.verify(signature: Array(signature), of: document) { throw .signatureInvalid(why) }
        let parsed = try RemotePinDocument.parse(document)
        if let floor = versionFloor, parsed.version <= floor { throw .notNewer(version: parsed.version, applied: floor) }
        guard parsed.expiresAt > now else { throw .expired(parsed.expiresText) }
        if let current, !allowHostRemoval {
            let kept = Set(parsed.rules.map(\.host.text))
            let removed = current.parsed.rules.map(\.host.text).filter { !kept.contains($0) }
            if !removed.isEmpty { throw .removesHosts(removed) }
        }
        return AppliedRemotePins(document: document, signature: text, appliedAt: now, source: source, parsed: parsed)
    }
}

/// The applied set's file (`Paths.remotePins`): JSON holding the document's bytes (base64), its
/// signature, when and from where it was applied. Written atomically, 0600.
public struct RemotePinStore: Sendable {
    public enum Loaded: Sendable, Equatable {
        case none
        case applied(AppliedRemotePins)
        /// Present but not used; the reason says why. Pins fall back to config and defaults.
        case ignored(String)
    }

    public let path: String

    public init(path: String) { self.path = path }

    /// Reads and verifies the applied set again. Never throws: anything wrong means "not used".
    public func load(key: PinDocumentKey?, now: Date = Date()) -> Loaded {
        guard FileManager.default.fileExists(atPath: path) else { return .none }
        guard let stored = readStored() else {
            return .ignored("\(path) is unreadable or corrupt; it is ignored (shipped defaults and config.toml pins apply) — fix: `timbre pins update`")
        }
        guard let key else {
            return .ignored("\(path) cannot be verified: config.toml has no usable [tls.remote] key; it is ignored")
        }
        if case .invalid(let why) = key.verify(signature: stored.signatureBytes, of: stored.document) {
            return .ignored("\(path) no longer verifies (\(why)); it is ignored — fix: `timbre pins update`")
        }
        guard let parsed = try? RemotePinDocument.parse(stored.document) else {
            return .ignored("\(path) holds no valid pin document; it is ignored — fix: `timbre pins update`")
        }
        guard parsed.expiresAt > now else {
            return .ignored("the applied pin set (version \(parsed.version)) expired at \(parsed.expiresText); it is ignored — fix: `timbre pins update`")
        }
        return .applied(
            AppliedRemotePins(
                document: stored.document, signature: stored.signature, appliedAt: stored.appliedAt,
                source: stored.source, parsed: parsed))
    }

    /// The version of the stored document even when it cannot be verified any more: a newer
    /// document must beat it, so a rollback cannot hide behind a rotated key or a damaged file.
    public func storedVersion() -> Int? {
        guard let stored = readStored() else { return nil }
        return (try? RemotePinDocument.parse(stored.document))?.version
    }

    /// The rollback floor: the highest version ever applied, one number in a file of its own
    /// beside the set (`remote-pins.floor`, 0600), written before the set. A damaged or deleted
    /// set cannot lower it; a damaged floor refuses every document until it is fixed.
    public var floorPath: String { (path as NSString).deletingLastPathComponent + "/remote-pins.floor" }

    /// The version a document must be above: the floor's and the stored set's, whichever is higher.
    public func versionFloor() throws(RemotePinError) -> Int? {
        let stored = storedVersion()
        var info = stat()
        guard lstat(floorPath, &info) == 0 else { return stored }
        guard let data = BoundedRead.file(floorPath, limit: 64).data,
            let floor = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), floor >= 1
        else { throw .floorDamaged(path: floorPath) }
        return max(floor, stored ?? 0)
    }

    public func save(_ applied: AppliedRemotePins) throws {
        var floor = applied.parsed.version
        if let known = try? versionFloor() { floor = max(floor, known) }
        try PrivateFile.write(Data("\(floor)\n".utf8), to: floorPath)
        let value: JSONValue = .object([
            ("format", .int(1)),
            ("document", .string(Data(applied.document).base64EncodedString())),
            ("signature", .string(applied.signature)),
            ("applied_at", .string(ClockText.iso(applied.appliedAt))),
            ("source", .string(applied.source)),
        ])
        try PrivateFile.write(Data((value.serialized() + "\n").utf8), to: path)
    }

    private struct Stored {
        var document: [UInt8]
        var signature: String
        var signatureBytes: [UInt8]
        var appliedAt: Date
        var source: String
    }

    private func readStored() -> Stored? {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["format"] as? Int == 1,
            let document = (object["document"] as? String).flatMap({ Data(base64Encoded: $0) }),
            let signature = object["signature"] as? String, let signatureBytes = Data(base64Encoded: signature),
            let appliedText = object["applied_at"] as? String, let appliedAt = RemotePinDocument.parseTime(appliedText),
            let source = object["source"] as? String
        else { return nil }
        return Stored(document: Array(document), signature: signature, signatureBytes: Array(signatureBytes), appliedAt: appliedAt, source: source)
    }
}

/// Checks a document and, when it passes, stores it as the applied set; either way one trust
/// event says what happened.
public struct RemotePinUpdater: Sendable {
    public let store: RemotePinStore
    public let observer: any TrustObserver

    public init(store: RemotePinStore, observer: any TrustObserver) {
        self.store = store
        self.observer = observer
    }

    @discardableResult
    public func update(
        document: [UInt8], signature: String?, key: PinDocumentKey, source: String,
        allowHostRemoval: Bool, now: Date = Date()
    ) throws -> AppliedRemotePins {
        let current: AppliedRemotePins? = {
            if case .applied(let set) = store.load(key: key, now: now) { return set }
            return nil
        }()
        let applied: AppliedRemotePins
        do {
            applied = try RemotePinCheck.evaluate(
                document: document, signature: signature, key: key, source: source, current: current,
                versionFloor: try store.versionFloor(), allowHostRemoval: allowHostRemoval, now: now)
        } catch {
            observer.record(.remoteRefused(source: source, reason: error.reason))
            throw error
        }
        try store.save(applied)
        observer.record(.remoteApplied(source: source, version: applied.parsed.version, hosts: applied.parsed.rules.count))
        return applied
    }
}
