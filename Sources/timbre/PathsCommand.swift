import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct PathsCommand: Runnable {
        static let configuration = CommandConfiguration(
            commandName: "paths",
            abstract: "Show every file of the profile: config, cache, log, credentials, user data and edit journal, trust events, remote pin set.",
            discussion:
                "The files need not exist yet: each is made when first needed. The journal and folders live in the user-data database (`data`, also given as `journal`)."
        )

        @Flag(help: "Print a JSON object instead of text.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await TimbreApp.PathsCommand(json: json).run(invocation)
        }
    }
}
