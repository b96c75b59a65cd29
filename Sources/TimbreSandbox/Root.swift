import ArgumentParser

@main
struct Root: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timbre-sandbox",
        abstract: "A Spotify-compatible server over real TLS on loopback, for tests and `timbre demo`.",
        subcommands: [Serve.self, Certs.self, Dump.self]
    )
}
