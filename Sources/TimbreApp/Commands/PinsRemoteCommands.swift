import Foundation
import TimbreCore
import TimbreNet

/// `timbre pins update [--file DOC --signature SIG]`: checks a signed remote pin document and, when
/// it passes, makes it the applied set. Without `--file` the document comes from `[tls.remote] url`
/// and its signature from `url + ".sig"`, both through the pinned transport and today's pins.
public struct PinsUpdateCommand: Sendable {
    public var file: String?
    public var signature: String?

    public init(file: String?, signature: String?) {
        self.file = file
        self.signature = signature
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        guard let remote = context.config.tls.remote else { throw RemotePinError.notConfigured }
        let journal = context.trustJournal
        let fetched = try await fetch(context, remote: remote)
        let key: PinDocumentKey
        do {
            key = try await context.remotePinKey()
        } catch {
            journal.record(.remoteRefused(source: fetched.source, reason: error.reason))
            throw error
        }
        let applied = try RemotePinUpdater(store: context.remotePinStore, observer: journal)
            .update(
                document: fetched.document, signature: fetched.signature, key: key, source: fetched.source,
                allowHostRemoval: remote.allowHostRemoval)
        let hosts = applied.parsed.rules.map(\.host.text)
        invocation.console.line(
            "applied remote pin set version \(applied.parsed.version) from \(TerminalText.sanitize(fetched.source)) "
                + "(\(hosts.count) host\(hosts.count == 1 ? "" : "s"): \(hosts.joined(separator: ", ")); expires \(applied.parsed.expiresText))")
        return .success
    }

    private struct Fetched {
        var document: [UInt8]
        /// nil: no signature at all (no .sig file, or 404 for url.sig).
        var signature: String?
        var source: String
    }

    private func fetch(_ context: AppContext, remote: RemotePinSettings) async throws -> Fetched {
        if let file {
            let document = try Self.read(file)
            var signatureText: String?
            if let signature, FileManager.default.fileExists(atPath: signature) {
                signatureText = String(decoding: try Self.read(signature), as: UTF8.self)
            }
            return Fetched(document: document, signature: signatureText, source: (file as NSString).standardizingPath)
        }
        guard let url = remote.url, let signatureURL = remote.signatureURL else { throw RemotePinError.noURL }
        let transport = context.transport()
        let document = try await transport.send(HTTPRequest(url: url, timeout: .seconds(30)))
        guard document.status == 200 else {
            throw RemotePinError.unreadable(
                "could not fetch the pin document \(url.absoluteString): HTTP \(document.status); the current pin set stays in place")
        }
        let signature = try await transport.send(HTTPRequest(url: signatureURL, timeout: .seconds(30)))
        switch signature.status {
        case 200:
            return Fetched(
                document: Array(document.body), signature: String(decoding: signature.body, as: UTF8.self), source: Redactor.maskUserinfo(url.absoluteString))
        case 404, 410:
            return Fetched(document: Array(document.body), signature: nil, source: Redactor.maskUserinfo(url.absoluteString))
        default:
            throw RemotePinError.unreadable(
                "could not fetch the signature \(signatureURL.absoluteString): HTTP \(signature.status); the current pin set stays in place")
        }
    }

    private static func read(_ path: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw RemotePinError.unreadable("cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }
}

/// `timbre pins status [--json]`: the applied remote set and the rule in force for every pinned
/// host, with the layer it comes from.
public struct PinsStatusCommand: Sendable {
    public var json: Bool

    public init(json: Bool) { self.json = json }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = invocation.console
        let loaded = await context.loadRemotePins()
        if case .ignored(let reason) = loaded { console.warning(reason) }
        let applied: AppliedRemotePins? = if case .applied(let set) = loaded { set } else { nil }
        let rules = context.pinPolicy(remote: loaded).effectiveRules
        if json {
            console.json(
                .object([
                    ("remote", applied?.statusJSON ?? .null),
                    (
                        "hosts",
                        .array(
                            rules.map { rule, origin in
                                .object([
                                    ("host", .string(rule.host.text)), ("pins", .array(rule.pins.map { .string($0.description) })),
                                    ("scope", .string(rule.scope.rawValue)), ("mode", .string(rule.mode.rawValue)), ("from", .string(origin.rawValue)),
                                ])
                            })
                    ),
                ]))
            return .success
        }
        if let applied {
            console.line(
                "remote: version \(applied.parsed.version), expires \(applied.parsed.expiresText), applied \(ClockText.iso(applied.appliedAt)) from \(TerminalText.sanitize(applied.source))"
            )
        } else {
            console.line(
                context.config.tls.remote == nil ? "remote: not configured ([tls.remote] in config.toml)" : "remote: none applied (`timbre pins update`)")
        }
        let width = rules.map(\.rule.host.text.count).max() ?? 0
        console.lines(
            rules.map { rule, origin in
                TerminalText.sanitize(
                    "\(rule.host.text.padding(toLength: width, withPad: " ", startingAt: 0))  \(origin.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  "
                        + "\(rule.scope.rawValue) \(rule.mode.rawValue)  \(rule.pins.map(\.description).joined(separator: " "))")
            })
        return .success
    }
}
