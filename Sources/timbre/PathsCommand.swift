import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct PathsCommand: Runnable {
        static let configuration = CommandConfiguration(
            commandName: "paths",
            abstract: "Show where timbre keeps its config file, cache database, log and credentials file.")

        @Flag(help: "Print a JSON object instead of text.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await TimbreApp.PathsCommand(json: json).run(invocation)
        }
    }
}
