import Foundation
import TimbreCore
import TimbreNet

/// `timbre pins SOURCE`: the SPKI pins of a PEM file's certificates or of the chain a host presents.
public struct PinsCommand: Sendable {
    public var source: String
    public var json: Bool

    public init(source: String, json: Bool) {
        self.source = source
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let entries: [ChainEntry]
        if source.lowercased().hasPrefix("https://") {
            entries = try await live(invocation)
        } else if source.contains("://") {
            throw UsageError(message: "'\(TerminalText.preview(source))' is neither a PEM file nor an https:// URL")
        } else {
            entries = try file()
        }
        let console = invocation.console
        if json {
            console.json(
                .array(
                    entries.map {
                        .object([("position", .string($0.position.rawValue)), ("subject", .string($0.subject)), ("pin", .string($0.pin.description))])
                    }))
        } else {
            console.lines(
                entries.map { entry in
                    "\(entry.position.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(entry.pin)  \(TerminalText.sanitize(entry.subject))"
                })
        }
        return .success
    }

    private func file() throws -> [ChainEntry] {
        guard FileManager.default.fileExists(atPath: source) else {
            throw CertificateError.unreadable(path: source, detail: "no such file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: source))
        } catch {
            throw CertificateError.unreadable(path: source, detail: (error as NSError).localizedDescription)
        }
        return Certificate.describeFileChain(try Certificate.parsePEM(data))
    }

    private func live(_ invocation: Invocation) async throws -> [ChainEntry] {
        guard let url = URL(string: source), url.host != nil else {
            throw UsageError(message: "'\(TerminalText.preview(source))' is not a valid https://HOST[:PORT] URL")
        }
        let context = try invocation.context()
        let inspection = try await context.transport().inspectChain(of: url)
        if let problem = inspection.trustError {
            invocation.console.warning(
                "the chain of \(inspection.host) does not verify against the trusted CAs (\(problem)); these are the certificates it presented")
        }
        return inspection.chain
    }
}
