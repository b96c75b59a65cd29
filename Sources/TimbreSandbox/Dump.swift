import ArgumentParser
import Foundation
import SandboxCore

extension Root {
    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the generated library as the canonical JSON model tests compare a synced cache against."
        )

        @Option(help: "Library size: small, medium or large.")
        var library: LibrarySize = .small

        @Option(help: "Seed for the generated library.")
        var seed: UInt64 = 42

        @Flag(help: "Leave out item lists (playlist summaries and counts only).")
        var noItems = false

        func run() throws {
            var bytes = Library(size: library, seed: seed).canonicalModel(includeItems: !noItems).serialized()
            bytes.append(0x0A)
            FileHandle.standardOutput.write(Data(bytes))
        }
    }
}
