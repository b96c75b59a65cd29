import Foundation
import Testing
import TimbreCore

/// Profiles: the default keeps the folders timbre always used; any other name gets its own folder
/// in each XDG place; names are checked.
@Suite struct ProfilePathsTests {
    let base = [
        "HOME": "/home/u", "XDG_CONFIG_HOME": "/x/config", "XDG_CACHE_HOME": "/x/cache", "XDG_STATE_HOME": "/x/state",
        "XDG_DATA_HOME": "/x/data",
    ]

    @Test func theDefaultProfileKeepsTodaysPaths() {
        let expected = Paths(
            config: "/x/config/timbre/config.toml", cache: "/x/cache/timbre/library.sqlite", log: "/x/state/timbre/timbre.log",
            credentials: "/x/config/timbre/credentials.json", data: "/x/data/timbre/timbre.sqlite")
        #expect(Paths.resolve(environment: base) == expected)
        #expect(Paths.resolve(environment: base.merging(["TIMBRE_PROFILE": "default"]) { $1 }) == expected)
        #expect(Paths.resolve(environment: base.merging(["TIMBRE_PROFILE": "  "]) { $1 }) == expected)
        #expect(Paths.resolve(environment: ["HOME": "/home/u"]).cache == "/home/u/.cache/timbre/library.sqlite")
        #expect(Paths.resolve(environment: base).trustEvents == "/x/state/timbre/trust.jsonl")
    }

    @Test func anotherProfileHasItsOwnFolderEverywhere() {
        let paths = Paths.resolve(environment: base.merging(["TIMBRE_PROFILE": "work_2"]) { $1 })
        #expect(
            paths
                == Paths(
                    config: "/x/config/timbre/profiles/work_2/config.toml", cache: "/x/cache/timbre/profiles/work_2/library.sqlite",
                    log: "/x/state/timbre/profiles/work_2/timbre.log", credentials: "/x/config/timbre/profiles/work_2/credentials.json",
                    data: "/x/data/timbre/profiles/work_2/timbre.sqlite"))
        #expect(paths.trustEvents == "/x/state/timbre/profiles/work_2/trust.jsonl")
        #expect(paths.remotePins == "/x/data/timbre/profiles/work_2/remote-pins.json")
        #expect(paths.stateDirectory == "/x/state/timbre/profiles/work_2")
        // TIMBRE_CONFIG names a file outright, whichever the profile.
        #expect(Paths.resolve(environment: base.merging(["TIMBRE_PROFILE": "work", "TIMBRE_CONFIG": "/etc/t.toml"]) { $1 }).config == "/etc/t.toml")
    }

    @Test func namesAreLettersDigitsDashAndUnderscoreUpTo64() throws {
        for good in ["a", "Work-2", "x_y", String(repeating: "z", count: 64), "default"] {
            #expect(throws: Never.self) { try ProfileName(validating: good) }
        }
        for bad in ["", " ", "a b", "../x", "a/b", ".", "..", "é", String(repeating: "z", count: 65), "a\n", "-\u{1B}[31m"] {
            #expect(throws: ProfileNameError.self, "\(bad)") { try ProfileName(validating: bad) }
        }
        let error = ProfileNameError(name: "a/b", source: "--profile")
        #expect(error.message == "--profile \"a/b\" is not a profile name: use 1 to 64 letters, digits, '-' or '_'")
        #expect(error.exitStatus == .usage)
        #expect(throws: ProfileNameError(name: "../x", source: "TIMBRE_PROFILE")) { try ProfileName.from(environment: ["TIMBRE_PROFILE": "../x"]) }
        #expect(try ProfileName.from(environment: [:]) == .default)
        #expect(try ProfileName.from(environment: ["TIMBRE_PROFILE": " work "]).rawValue == "work")
    }

    @Test func anUncheckedBadNameStillStaysInsideTimbresFolders() {
        // Root.run refuses such a name first; if one got here, it must not climb out.
        let paths = Paths.resolve(environment: base.merging(["TIMBRE_PROFILE": "../../etc"]) { $1 })
        #expect(paths.config == "/x/config/timbre/profiles/invalid-%2E%2E%2F%2E%2E%2Fetc/config.toml")
        #expect(!paths.cache.contains("/../"))
    }
}
