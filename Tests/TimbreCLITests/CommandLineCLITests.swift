import Foundation
import Testing
import TimbreTestSupport

/// The command line a gh user expects (issue #35): playlists by name, tab completion of cached
/// names, one error style, answers instead of failures where nothing went wrong. Against the
/// sandbox, asserting what it holds after each edit.
extension SyncCLITests {
    /// Two playlists made for the test, synced into the cache: "Road Trip 2024" and "Roadhouse Blues".
    func roadPlaylists(_ s: Setup) async throws -> (trip: String, house: String) {
        #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)
        var ids: [String] = []
        for name in ["Road Trip 2024", "Roadhouse Blues"] {
            let created = await s.cli.invoke(["playlist", "create", name])
            #expect(created.status == 0, "\(created.stderr)")
            ids.append(created.stdout.trimmingCharacters(in: .newlines))
        }
        return (ids[0], ids[1])
    }

    @Test func playlistsByNameOrUniquePrefixAndAmbiguityListsTheCandidates() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let (trip, house) = try await roadPlaylists(s)
            let (_, entries) = try await ownPlaylist(s)
            let track = entries[0]

            // A unique prefix, in any case: the edit lands in that playlist on the server.
            let added = await s.cli.invoke(["playlist", "add", "road trip", track, "--json"])
            #expect(added.status == 0, "\(added.stderr)")
            #expect((parse(added.stdout) as? [String: Any])?["playlist"] as? String == trip, "--json names the playlist by id: \(added.stdout)")
            #expect(try await s.sandbox.entries(of: trip) == [track])
            #expect(try await s.sandbox.entries(of: house).isEmpty)

            // An exact name in another case, offline; --json carries ids and uris.
            let listed = await s.cli.invoke(["tracks", "ROAD TRIP 2024", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect((parse(listed.stdout) as? [[String: Any]])?.map { $0["uri"] as? String } == [track])
            #expect(await s.cli.invoke(["stats", "roadhouse blues"]).status == 0)

            // Ambiguous: exit 2, every candidate with its id, nothing sent.
            try await s.sandbox.clearRequests()
            for arguments in [["tracks", "road"], ["playlist", "add", "Road", track]] {
                let ambiguous = await s.cli.invoke(arguments)
                #expect(ambiguous.status == 2, "\(arguments): \(ambiguous.stderr)")
                #expect(ambiguous.stderr.contains("Road Trip 2024  \(trip)"), "\(ambiguous.stderr)")
                #expect(ambiguous.stderr.contains("Roadhouse Blues  \(house)"), "\(ambiguous.stderr)")
                #expect(ambiguous.stderr.contains("hint: give more of the name, or the id"))
            }
            #expect(try await s.sandbox.requests().isEmpty, "an ambiguous name sends nothing")
            #expect(try await s.sandbox.entries(of: trip) == [track])

            // No such name: the usage error it always was, naming the ways to say a playlist.
            let unknown = await s.cli.invoke(["tracks", "no playlist has this name"])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("is not a playlist reference") && unknown.stderr.contains("`timbre playlists`"))
        }
    }

    @Test func answersNotFailuresAndEveryErrorWithAHint() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let (trip, house) = try await roadPlaylists(s)
            // Undo and redo with nothing to do: a sentence and exit 0 (the creations are the two edits).
            #expect(await s.cli.invoke(["undo"]).status == 0)
            #expect(await s.cli.invoke(["undo"]).status == 0)
            let noUndo = await s.cli.invoke(["undo"])
            #expect(noUndo.status == 0, "nothing to undo is an answer: \(noUndo.stderr)")
            #expect(noUndo.stderr == "There is no edit to undo; nothing was changed.\n")
            #expect(await s.cli.invoke(["redo"]).status == 0)
            #expect(await s.cli.invoke(["redo"]).status == 0)
            let followed = try await s.sandbox.followedPlaylistIDs()
            #expect(followed.contains(trip) && followed.contains(house))
            let noRedo = await s.cli.invoke(["redo"])
            #expect(noRedo.status == 0)
            #expect(noRedo.stderr == "There is no undone edit to redo; nothing was changed.\n")
            let noRedoJSON = await s.cli.invoke(["redo", "--json"])
            #expect(noRedoJSON.status == 0)
            #expect((parse(noRedoJSON.stdout) as? [String: Any])?["done"] as? Bool == false, "\(noRedoJSON.stdout)")

            // A declined confirmation names the playlist, deletes nothing and exits 0.
            let declined = await s.cli.invoke(["playlist", "delete", "roadh"], stdin: "n\n", tty: true)
            #expect(declined.status == 0, "\(declined.stderr)")
            #expect(declined.stderr.contains("Delete (unfollow) “Roadhouse Blues”?"), "\(declined.stderr)")
            #expect(declined.stderr.contains("Nothing deleted. “Roadhouse Blues” stays in your library."))
            #expect(try await s.sandbox.followedPlaylistIDs().contains(house))

            // An id Spotify does not know: its 404 comes with what to do.
            let (_, entries) = try await ownPlaylist(s)
            let missing = await s.cli.invoke(["playlist", "add", "0000000000000000000000", entries[0]])
            #expect(missing.status == 1, "\(missing.stderr)")
            #expect(missing.stderr.contains("hint: sync, or check the id with `timbre playlists`"), "\(missing.stderr)")

            // Parser errors in timbre's form: a sentence, a hint, exit 2.
            let negative = await s.cli.invoke(["playlist", "add", trip, entries[0], "--position", "-1"])
            #expect(negative.status == 2)
            #expect(negative.stderr.hasPrefix("timbre: --position -1: positions count from 1"), "\(negative.stderr)")
            let unknown = await s.cli.invoke(["frobnicate"])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.hasPrefix("timbre: unexpected argument 'frobnicate'"), "\(unknown.stderr)")
            #expect(unknown.stderr.contains("  hint: `timbre --help` shows"))
            #expect(!unknown.stderr.contains("Error:"))
            let missingValue = await s.cli.invoke(["playlist", "sort", trip, "--by"])
            #expect(missingValue.status == 2)
            #expect(missingValue.stderr.hasPrefix("timbre: missing value for '--by <by>'"), "\(missingValue.stderr)")
            #expect(missingValue.stderr.contains("`timbre playlist sort --help` shows"))
            #expect(try await s.sandbox.entries(of: trip).isEmpty)
        }
    }

    /// bash completes a REF with cached names and ids (the completion script the package ships,
    /// run as bash-completion runs it, against the real binary).
    @Test func bashCompletesCachedPlaylistNamesFolderNamesAndSortFields() async throws {
        let s = try await setUp("small")
        try await withCleanup({ await s.cleanUp() }) {
            let (trip, house) = try await roadPlaylists(s)
            #expect(await s.cli.invoke(["folder", "create", "Weekend"]).status == 0)
            let binary = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let script = try await s.cli.run(["--generate-completion-script", "bash"])
            #expect(script.status == 0)
            let file = s.cli.home.appendingPathComponent("timbre.bash")
            try script.stdout.write(to: file, atomically: true, encoding: .utf8)
            func complete(_ words: [String], environment: [String: String] = [:]) async throws -> [String] {
                let quoted = words.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
                let result = try await s.cli.run(
                    [
                        "-c",
                        """
                        source /usr/share/bash-completion/bash_completion
                        source "$1"
                        COMP_WORDS=("$2" \(quoted)); COMP_CWORD=\(words.count); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                        _timbre timbre "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
                        printf '%s\\n' "${COMPREPLY[@]}"
                        """, "bash", file.path, binary,
                    ], environment: environment, executable: "/bin/bash")
                #expect(result.status == 0, "\(result.stderr)")
                return result.stdout.split(separator: "\n").map(String.init)
            }
            let road = try await complete(["tracks", "Road"])
            #expect(Set(road) == ["Road Trip 2024", "Roadhouse Blues"], "\(road)")
            let ids = try await complete(["playlist", "add", String(trip.prefix(6))])
            #expect(ids.contains(trip), "\(ids)")
            #expect(try await complete(["playlist", "delete", "Roadh"]) == ["Roadhouse Blues"])
            #expect(try await complete(["folder", "add", "Wee"]) == ["Weekend"])
            #expect(try await complete(["playlist", "sort", house, "--by", "ti"]) == ["title"])
            // Another profile (TIMBRE_PROFILE, as the shell passes it on) has another cache: none of these names.
            #expect(try await complete(["tracks", "Road"], environment: ["TIMBRE_PROFILE": "other"]).isEmpty)
            #expect(try await complete(["tracks", "Road"], environment: ["TIMBRE_PROFILE": "default"]).count == 2)
        }
    }
}
