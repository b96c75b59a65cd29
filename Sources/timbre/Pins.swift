import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    /// `timbre pins SOURCE` prints a chain's pins; `update` and `status` manage the signed remote
    /// pin set. ArgumentParser gives a command's own positional argument the first word before it
    /// looks for a subcommand, so the chain form is the default subcommand (`show`) rather than
    /// an argument of `pins` itself: `pins update` is the subcommand, `pins FILE.pem` is `show`.
    struct Pins: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the SPKI pins of a certificate chain, or manage the signed remote pin set.",
            discussion: """
                `timbre pins FILE.pem` or `timbre pins https://HOST[:PORT]` prints a chain's pins \
                (the `show` subcommand). `timbre pins update` applies a signed pin document from \
                [tls.remote] in config.toml; `timbre pins status` shows the pins in force and where \
                each comes from (config, remote, default).
                """,
            subcommands: [Show.self, Update.self, Status.self],
            defaultSubcommand: Show.self)

        struct Show: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Print the SPKI pins of a certificate chain, for [[tls.pin]] in config.toml (the default).",
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

        struct Update: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Apply a signed remote pin document ([tls.remote] in config.toml).",
                discussion: """
                    Without --file, fetches [tls.remote] url and url + ".sig" through the pinned \
                    transport. The document is applied only when its signature verifies with \
                    [tls.remote]'s key, its version is higher than the applied one and it has not \
                    expired; otherwise it is refused (exit 5) and the current pins stay in place.
                    """)

            @Option(help: "Read the pin document from this file instead of [tls.remote] url.")
            var file: String?

            @Option(help: "The base64 signature of --file's bytes.")
            var signature: String?

            func validate() throws {
                if signature != nil && file == nil { throw ValidationError("'--signature' needs '--file'") }
            }

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PinsUpdateCommand(file: file, signature: signature).run(invocation)
            }
        }

        struct Status: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Show the applied remote pin set and the pins in force for each host.",
                discussion: "`from` says which layer a host's pins come from: config (config.toml), remote (the applied set) or default (shipped).")

            @Flag(help: "Print {\"remote\": …, \"hosts\": [{host, pins, scope, mode, from}]}.")
            var json = false

            func run(_ invocation: Invocation) async throws -> ExitStatus {
                try await PinsStatusCommand(json: json).run(invocation)
            }
        }
    }
}
