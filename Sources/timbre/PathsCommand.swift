import ArgumentParser
import TimbreCore

extension Root {
    struct PathsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "paths",
            abstract: "Show where timbre keeps its config file, cache database, log and credentials file.")

        @Flag(help: "Print a JSON object instead of text.")
        var json = false

        func run() async throws {
            let paths = Paths.resolve()
            if json {
                Output.json(paths.json)
            } else {
                print("config:      \(paths.config)")
                print("cache:       \(paths.cache)")
                print("log:         \(paths.log)")
                print("credentials: \(paths.credentials)")
            }
        }
    }
}
