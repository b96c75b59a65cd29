import ArgumentParser
import Foundation
import TimbreCore
import TimbreNet

extension Root {
    struct Pins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the SPKI pins of a certificate chain, for [[tls.pin]] in config.toml.",
            discussion: """
                SOURCE is a PEM file (every certificate in it) or https://HOST[:PORT] (the chain the \
                server presents; a TLS handshake only, no HTTP request is sent). One line per \
                certificate: position (leaf, intermediate, root), pin, subject. For a live host the \
                chain is verified against the system store or [tls] ca_file; an unverified chain is \
                still printed, with a warning.
                """)

        @Argument(help: "A PEM file, or https://HOST[:PORT].")
        var source: String

        @Flag(help: "Print a JSON array of {position, subject, pin}.")
        var json = false

        func run() async throws {
            let entries: [ChainEntry]
            if source.lowercased().hasPrefix("https://") {
                entries = try await live()
            } else if source.contains("://") {
                throw UsageError(message: "'\(TerminalText.preview(source))' is neither a PEM file nor an https:// URL")
            } else {
                entries = try file()
            }
            if json {
                Output.json(.array(entries.map {
                    .object([("position", .string($0.position.rawValue)), ("subject", .string($0.subject)), ("pin", .string($0.pin.description))])
                }))
                return
            }
            for entry in entries {
                let position = entry.position.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
                print("\(position) \(entry.pin)  \(entry.subject)")
            }
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

        private func live() async throws -> [ChainEntry] {
            guard let url = URL(string: source), url.host != nil else {
                throw UsageError(message: "'\(TerminalText.preview(source))' is not a valid https://HOST[:PORT] URL")
            }
            let config = try Config.load(paths: Paths.resolve())
            let transport = CurlTransport(settings: TransportSettings(config: config))
            let inspection = try await transport.inspectChain(of: url)
            if let problem = inspection.trustError {
                Output.warning("the chain of \(inspection.host) does not verify against the trusted CAs (\(problem)); these are the certificates it presented")
            }
            return inspection.chain
        }
    }
}
