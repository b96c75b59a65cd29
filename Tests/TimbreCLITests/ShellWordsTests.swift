import Foundation
import Testing
import TimbreApp
import TimbreCore

@testable import timbre

/// How a completion candidate is written for each shell, how the typed word is read back, and the
/// bash script that takes candidates as literal lines (issue 40, item 3). Unit tier: no process.
@Suite struct ShellWordsTests {
    static let hostile = ["$(touch x)", "`touch x`", "$HOME", "ana's crate digging", "say \"hi\" & run", "back\\slash", "a:b"]

    @Test func bashAndFishGetEveryNameAsItIsFromTheLiteralScript() {
        for name in Self.hostile {
            #expect(ShellWords.written(name, for: .bash, literal: true) == name)
            #expect(ShellWords.written(name, for: .fish, literal: false) == name)
        }
    }

    @Test func zshGetsColonsAndBackslashesEscapedForDescribe() {
        #expect(ShellWords.written("a:b", for: .zsh, literal: false) == "a\\:b")
        #expect(ShellWords.written("back\\slash", for: .zsh, literal: false) == "back\\\\slash")
        #expect(ShellWords.written("a\\:b", for: .zsh, literal: false) == "a\\\\\\:b")
        #expect(ShellWords.written("$(touch x)", for: .zsh, literal: false) == "$(touch x)", "compadd quotes it when it inserts it")
        #expect(ShellWords.written("ana's crate digging", for: .zsh, literal: false) == "ana's crate digging")
    }

    /// An older bash script gives the lines to `compgen -W`, which expands them: only words with
    /// nothing to expand reach it.
    @Test func anOlderBashScriptOrAnUnknownCallerGetsOnlyWordsNothingExpands() {
        for shell in [CompletingShell.bash, nil] {
            for name in ["$(touch x)", "`touch x`", "$HOME", "ana's crate digging", "say \"hi\"", "back\\slash", "~root"] {
                #expect(ShellWords.written(name, for: shell, literal: false) == nil, "\(name)")
            }
            #expect(ShellWords.written("Road Trip & more", for: shell, literal: false) == "Road Trip & more")
        }
    }

    @Test func controlCharactersOptionsAndLongWordsAreNeverOffered() {
        for shell in CompletingShell.allCases {
            for text in ["line one\nline two", "tab\there", "esc\u{1B}[2J", "rtl\u{202E}gpj", "-rf", "", String(repeating: "x", count: 201)] {
                #expect(ShellWords.written(text, for: shell, literal: true) == nil, "\(shell): \(text.debugDescription)")
            }
            #expect(ShellWords.written(String(repeating: "x", count: 200), for: shell, literal: true) != nil)
        }
    }

    @Test(arguments: [
        ("\"ana's", "ana's"), ("'ana", "ana"), ("ana\\'s\\ crate", "ana's crate"), ("'ana'\\''s cr", "ana's cr"),
        ("\"say \\\"hi\\\" \\n", "say \"hi\" \\n"), ("\\$\\(touch", "$(touch"), ("plain", "plain"), ("", ""), ("trailing\\", "trailing"),
    ])
    func theTypedWordIsReadWithoutItsQuoting(typed: String, meant: String) {
        #expect(ShellWords.unquoted(typed) == meant)
    }

    @Test func aNameIsOfferedOnlyWhenItResolvesToItsPlaylist() throws {
        func named(_ id: String, _ name: String) throws -> NamedPlaylist {
            NamedPlaylist(id: try #require(SpotifyID(id)), name: name)
        }
        let playlists = [
            try named("0000000000000000000001", "Road Trip"),
            try named("0000000000000000000002", "road trip "),  // folds to the same name: neither by name
            try named("0000000000000000000003", "Road Trip 2024"),  // a longer name still resolves exactly
            try named("0000000000000000000004", "liked"),  // read as Liked Songs
            try named("0000000000000000000005", "   "),
            try named("0000000000000000000006", "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M"),
            try named("0000000000000000000007", "ana's crate digging"),
        ]
        let byName = PlaylistRef.resolvableByName(playlists)
        #expect(byName == Set(["0000000000000000000003", "0000000000000000000007"].compactMap { SpotifyID($0) }))
        for playlist in playlists where byName.contains(playlist.id) {
            #expect(try PlaylistRef.resolve(playlist.name, among: playlists) == .playlist(playlist.id))
        }
    }

    /// ArgumentParser's bash script gives custom completions to `compgen -W "$(…)"`; timbre's reads
    /// them as literal lines, every one of them.
    @Test func theBashScriptNeverGivesTimbresLinesToCompgen() {
        let generated = Root.completionScript(for: .bash)
        let calls = generated.components(separatedBy: "__timbre_custom_complete ---completion").count - 1
        #expect(calls > 20, "every REF, folder and --by argument")
        let script = CompletionScripts.script(for: .bash)
        #expect(!script.contains("\"$(__timbre_custom_complete"))
        #expect(script.components(separatedBy: "__timbre_add_literal_completions ---completion").count - 1 == calls)
        #expect(script.contains("done < <(TIMBRE_COMPLETION=literal __timbre_custom_complete \"${@}\")"))
        #expect(script.contains("complete -o filenames -F _timbre timbre"))
        for line in script.split(separator: "\n") where line.contains("compgen") {
            #expect(!line.contains("custom_complete"), "\(line)")
        }
        #expect(script.hasPrefix("#!/bin/bash\n"))
    }

    @Test func zshAndFishScriptsAreArgumentParsersOwn() {
        #expect(CompletionScripts.script(for: .zsh).hasPrefix("#compdef timbre"))
        #expect(CompletionScripts.script(for: .fish).contains("complete -c 'timbre'"))
    }
}
