import Foundation
import Testing
import TimbreApp

@testable import timbre

/// Issue #31, item 10: `--profile` is taken only where an option can stand — never as the value of
/// an option that takes one. The grammar is the parser's own (`Root.shape`, from `_dumpHelp`).
@Suite struct GlobalOptionsShapeTests {
    private func apply(_ arguments: [String]) throws -> (rest: [String], profile: String?) {
        let (rest, environment) = try GlobalOptions.apply(arguments, environment: [:], shape: Root.shape)
        return (rest, environment["TIMBRE_PROFILE"])
    }

    @Test func theShapeKnowsWhichOptionsTakeAValue() throws {
        let shape = try #require(Root.shape())
        let create = try #require(shape.subcommands["playlist"]?.subcommands["create"])
        #expect(create.valueOptions.contains("--description"))
        #expect(!create.valueOptions.contains("--dry-run"), "a flag takes no value")
        #expect(shape.subcommands["export"]?.valueOptions.contains("-o") == true)
        #expect(shape.subcommands["api"]?.valueOptions.contains("-X") == true)
    }

    @Test func aValueThatLooksLikeTheOptionStaysAValue() throws {
        for arguments in [
            ["playlist", "create", "Mix", "--description", "--profile=work"], ["playlist", "create", "Mix", "--description", "--profile", "work"],
            ["export", "liked", "-o", "--profile=work"], ["api", "me", "--input", "--profile"],
        ] {
            let (rest, profile) = try apply(arguments)
            #expect(profile == nil, "\(arguments)")
            #expect(rest == arguments, "\(arguments)")
        }
    }

    @Test func whereAnOptionCanStandItIsStillTheGlobalOption() throws {
        for arguments in [
            ["--profile", "work", "playlist", "create", "Mix", "--description", "x"],
            ["playlist", "create", "Mix", "--description", "x", "--profile=work"],
            ["playlist", "add", "37i9dQZF1DXcBWIGoYBM5M", "--position", "3", "--profile", "work", "spotify:track:4uLU6hMCjMI75M1A2tKUQC"],
        ] {
            let (rest, profile) = try apply(arguments)
            #expect(profile == "work", "\(arguments)")
            #expect(!rest.contains { $0.hasPrefix("--profile") } && !rest.contains("work"), "\(arguments): \(rest)")
        }
        // Everything after `--` is left alone.
        #expect(try apply(["playlist", "create", "--", "--profile=work"]).profile == nil)
    }
}
