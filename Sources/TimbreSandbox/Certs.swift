import ArgumentParser
import Foundation
import SandboxCore

extension Root {
    struct Certs: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate the sandbox's root, intermediate and leaf certificates (if missing) and print their pins."
        )

        @Option(help: "Directory holding ca.pem, intermediate.pem, leaf.pem, leaf.key and chain.pem.")
        var stateDir: String

        func run() throws {
            let directory = URL(fileURLWithPath: stateDir).standardizedFileURL.path
            let certificates = try SandboxCertificates.loadOrCreate(in: directory)
            let pins: JSONValue = .object([
                ("leaf", .string(certificates.pins.leaf)),
                ("intermediate", .string(certificates.pins.intermediate)),
                ("root", .string(certificates.pins.root)),
                ("ca_file", .string(certificates.caFile)),
                ("chain_file", .string(certificates.chainFile)),
            ])
            print(pins.text)
        }
    }
}
