import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Pins: Runnable {
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

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await PinsCommand(source: source, json: json).run(invocation)
        }
    }
}
