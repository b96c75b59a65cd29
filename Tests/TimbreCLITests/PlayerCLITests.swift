import Foundation
import Testing
import TimbreTestSupport

/// The playback verbs through the real binary against the sandbox's player (CONTRACT.md, Round 4):
/// what each does to the sandbox's player (its control endpoint, not only timbre's words), how
/// many requests each sends, Spotify's refusals as sentences, and a sign-in from before playback.
@Suite(.serialized, .tags(.integration), .integrationTier) struct PlayerCLITests {
    struct Setup {
        let sandbox: SandboxProcess
        let cli: TimbreCLI
        func cleanUp() async {
            await sandbox.stop()
            cli.remove()
        }
    }

    func setUp(_ arguments: [String] = []) async throws -> Setup {
        let sandbox = try await SandboxProcess.start(library: .small, extraArguments: ["--refresh-rotation", "same"] + arguments)
        do {
            // A frozen clock: progress moves only when a test moves it.
            try await sandbox.freezeClock()
            let token = try await sandbox.mintRefreshToken()
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": token])
            try cli.configure(for: sandbox)
            return Setup(sandbox: sandbox, cli: cli)
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    func parse(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// Runs timbre with an empty request log first; the `/v1` requests it sent, as `METHOD path`.
    func counted(_ s: Setup, _ arguments: [String], environment: [String: String] = [:]) async throws -> (CLIResult, [String]) {
        try await s.sandbox.clearRequests()
        let result = try await s.cli.run(arguments, environment: environment)
        let sent = try await s.sandbox.requests().filter { $0.path.hasPrefix("/v1/") }.map { "\($0.method) \($0.path)" }
        return (result, sent)
    }

    /// An own playlist whose entries 1…6 are all playable tracks: its id, name and entry URIs.
    func playablePlaylist(_ s: Setup) async throws -> (id: String, name: String, uris: [String]) {
        let model = try await s.sandbox.library(includeItems: false)
        let playlists = model["playlists"] as? [[String: Any]] ?? []
        var names: [String: Int] = [:]
        for playlist in playlists { names[(playlist["name"] as? String ?? "").lowercased(), default: 0] += 1 }
        for playlist in playlists where playlist["owner_id"] as? String == s.sandbox.info.userID {
            guard let id = playlist["id"] as? String, let name = playlist["name"] as? String, names[name.lowercased()] == 1 else { continue }
            let info = try await s.sandbox.playlistInfo(id)
            let items = info.items ?? []
            if items.count >= 6, items.prefix(6).allSatisfy({ $0.kind == "track" }) {
                return (id, name, items.compactMap(\.uri))
            }
        }
        throw PlayerTestError.noPlaylist
    }

    enum PlayerTestError: Error { case noPlaylist }

    func player(_ s: Setup) async throws -> [String: Any] { try await s.sandbox.playerState() }

    func device(_ state: [String: Any], named name: String) -> [String: Any]? {
        (state["devices"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name }
    }

    @Test func playStartsAPlaylistEntryAsItsContextOnADeviceNamedByItsStart() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            #expect(try await s.cli.run(["sync", "--quiet"]).status == 0)
            let playlist = try await playablePlaylist(s)
            // `timbre play "Road Trip" --track 4 --device kitchen`, with a name of this library.
            let (play, sent) = try await counted(s, ["play", playlist.name, "--track", "4", "--device", "kitchen"])
            #expect(play.status == 0, "\(play.stderr)")
            #expect(sent == ["GET /v1/me/player/devices", "PUT /v1/me/player/play"], "a name is looked up once, then one command")
            let state = try await player(s)
            #expect(state["active_device"] as? String == "Kitchen radio")
            #expect(state["context_uri"] as? String == "spotify:playlist:\(playlist.id)")
            #expect(state["context_index"] as? Int == 3, "entry 4 counted from 1 is Spotify's index 3")
            #expect(state["item_uri"] as? String == playlist.uris[3])
            #expect(state["is_playing"] as? Bool == true)

            // --uri with REF: the context from that entry; alone: that one track.
            #expect(try await s.cli.run(["play", playlist.id, "--uri", playlist.uris[1]]).status == 0)
            #expect(try await player(s)["context_index"] as? Int == 1)
            let (single, one) = try await counted(s, ["play", "--uri", playlist.uris[2]])
            #expect(single.status == 0, "\(single.stderr)")
            #expect(one == ["PUT /v1/me/player/play"])
            let alone = try await player(s)
            #expect(alone["item_uri"] as? String == playlist.uris[2] && alone["context_uri"] is NSNull)

            // Entry numbers are checked before anything is sent.
            let (zero, none) = try await counted(s, ["play", playlist.id, "--track", "0"])
            #expect(zero.status == 2 && none.isEmpty, "\(zero.stderr)")
            let (past, nothing) = try await counted(s, ["play", playlist.id, "--track", "100000"])
            #expect(past.status == 2 && nothing.isEmpty, "\(past.stderr)")
        }
    }

    @Test func likedSongsPlayAsTheirURIsFromTheEntryOn() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            #expect(try await s.cli.run(["sync", "--quiet"]).status == 0)
            let liked = try await s.sandbox.likedURIs().filter { $0.hasPrefix("spotify:track:") }
            let speaker = try #require(device(try await player(s), named: "timbre demo speaker")?["id"] as? String)
            let (play, sent) = try await counted(s, ["play", "liked", "--track", "2", "--device", speaker])
            #expect(play.status == 0, "\(play.stderr)")
            #expect(sent == ["PUT /v1/me/player/play"], "a device id needs no look-up")
            let state = try await player(s)
            #expect(state["active_device_id"] as? String == speaker)
            #expect(state["item_uri"] as? String == liked.dropFirst().first, "entry 2 of Liked Songs plays first")
            #expect(state["context_uri"] is NSNull, "Liked Songs has no context URI: a list of URIs")
        }
    }

    @Test func eachCommandChangesTheSandboxsPlayerWithOneRequest() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            #expect(try await s.cli.run(["sync", "--quiet"]).status == 0)
            let playlist = try await playablePlaylist(s)
            let speaker = try #require(device(try await player(s), named: "timbre demo speaker")?["id"] as? String)
            #expect(try await s.cli.run(["play", playlist.id, "--device", speaker]).status == 0)

            var (result, sent) = try await counted(s, ["pause"])
            #expect(result.status == 0 && sent == ["PUT /v1/me/player/pause"], "\(result.stderr)")
            #expect(try await player(s)["is_playing"] as? Bool == false)
            (result, sent) = try await counted(s, ["pause"])
            #expect(result.status == 0 && result.stderr.contains("already paused"), "\(result.stderr)")
            #expect(sent == ["PUT /v1/me/player/pause"])
            (result, sent) = try await counted(s, ["play"])
            #expect(result.status == 0 && sent == ["PUT /v1/me/player/play"], "resume: \(result.stderr)")
            #expect(try await player(s)["is_playing"] as? Bool == true)

            (result, sent) = try await counted(s, ["next"])
            #expect(result.status == 0 && sent == ["POST /v1/me/player/next"], "\(result.stderr)")
            #expect(try await player(s)["context_index"] as? Int == 1)
            (result, sent) = try await counted(s, ["prev"])
            #expect(result.status == 0 && sent == ["POST /v1/me/player/previous"], "\(result.stderr)")
            #expect(try await player(s)["context_index"] as? Int == 0)

            (result, sent) = try await counted(s, ["seek", "1:00"])
            #expect(result.status == 0 && sent == ["PUT /v1/me/player/seek"], "\(result.stderr)")
            #expect(try await player(s)["progress_ms"] as? Int == 60_000)
            (result, sent) = try await counted(s, ["seek", "-15"])
            #expect(result.status == 0 && sent == ["GET /v1/me/player", "PUT /v1/me/player/seek"], "relative: one read first")
            #expect(try await player(s)["progress_ms"] as? Int == 45_000)

            (result, sent) = try await counted(s, ["volume", "30"])
            #expect(result.status == 0 && sent == ["PUT /v1/me/player/volume"], "\(result.stderr)")
            #expect(device(try await player(s), named: "timbre demo speaker")?["volume_percent"] as? Int == 30)
            (result, sent) = try await counted(s, ["volume", "-5"])
            #expect(result.status == 0 && sent == ["GET /v1/me/player", "PUT /v1/me/player/volume"], "\(result.stderr)")
            #expect(device(try await player(s), named: "timbre demo speaker")?["volume_percent"] as? Int == 25)
            #expect(try await s.cli.run(["volume", "+200"]).status == 2, "N is 0–100")
            #expect(try await s.cli.run(["volume", "+90"]).status == 0)
            #expect(device(try await player(s), named: "timbre demo speaker")?["volume_percent"] as? Int == 100, "clamped at 100")

            (result, sent) = try await counted(s, ["shuffle", "on"])
            #expect(result.status == 0 && sent == ["PUT /v1/me/player/shuffle"], "\(result.stderr)")
            #expect(try await player(s)["shuffle_state"] as? Bool == true)
            #expect(try await s.cli.run(["shuffle", "off"]).status == 0)
            #expect(try await player(s)["shuffle_state"] as? Bool == false)
            (result, sent) = try await counted(s, ["repeat", "track"])
            #expect(result.status == 0 && sent == ["PUT /v1/me/player/repeat"], "\(result.stderr)")
            #expect(try await player(s)["repeat_state"] as? String == "track")
            #expect(try await s.cli.run(["repeat", "sometimes"]).status == 2)

            (result, sent) = try await counted(s, ["queue", playlist.uris[5], playlist.uris[4]])
            #expect(result.status == 0 && sent == ["POST /v1/me/player/queue", "POST /v1/me/player/queue"], "one request an item")
            #expect(try await player(s)["queue"] as? [String] == [playlist.uris[5], playlist.uris[4]])

            (result, sent) = try await counted(s, ["now", "--json"])
            #expect(result.status == 0 && sent == ["GET /v1/me/player"], "\(result.stderr)")
            let now = try #require(parse(result.stdout) as? [String: Any])
            #expect(Set(now.keys) == ["is_playing", "item", "progress_ms", "device", "context", "shuffle", "repeat"])
            let item = try #require(now["item"] as? [String: Any])
            #expect(Set(item.keys) == ["uri", "name", "artists", "album", "duration_ms"])
            #expect(item["uri"] as? String == playlist.uris[0] && now["repeat"] as? String == "track" && now["shuffle"] as? Bool == false)
            #expect(Set((now["device"] as? [String: Any] ?? [:]).keys) == ["id", "name", "type", "volume"])
            #expect((now["context"] as? [String: Any])?["uri"] as? String == "spotify:playlist:\(playlist.id)")
            #expect(now["progress_ms"] as? Int == 45_000)
            let line = try await s.cli.run(["now"])
            #expect(line.status == 0 && line.stdout.contains("timbre demo speaker") && line.stdout.contains("0:45/"), "\(line.stdout)")
            let filtered = try await s.cli.run(["now", "--json", "--jq", ".item.uri"])
            #expect(filtered.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == playlist.uris[0], "strings raw, as gh's --jq")

            (result, sent) = try await counted(s, ["transfer", "kitchen"])
            #expect(result.status == 0 && sent == ["GET /v1/me/player/devices", "PUT /v1/me/player"], "\(result.stderr)")
            #expect(try await player(s)["active_device"] as? String == "Kitchen radio")

            // A played track shows in `recent`, newest first.
            #expect(try await s.cli.run(["repeat", "off"]).status == 0)
            try await s.sandbox.advanceClock(milliseconds: 30 * 60_000)
            (result, sent) = try await counted(s, ["recent", "--json", "--limit", "3"])
            #expect(result.status == 0 && sent == ["GET /v1/me/player/recently-played"], "\(result.stderr)")
            let recent = try #require(parse(result.stdout) as? [[String: Any]])
            let expected = (try await player(s)["recently_played"] as? [[String: Any]] ?? []).prefix(3).compactMap { $0["uri"] as? String }
            #expect(!recent.isEmpty && recent.compactMap { ($0["item"] as? [String: Any])?["uri"] as? String } == expected)

            let devices = try await s.cli.run(["devices", "--json"])
            let listed = try #require(parse(devices.stdout) as? [[String: Any]])
            #expect(listed.count == 3 && listed.allSatisfy { Set($0.keys) == ["id", "name", "type", "is_active", "volume", "restricted"] })
            #expect(listed.first { $0["name"] as? String == "Kitchen radio" }?["volume"] is NSNull)
        }
    }

    @Test func spotifysRefusalsAreSentencesWithTheFix() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            // Nothing plays: `now` is not an error; a command names `timbre devices` and --device.
            let idle = try await s.cli.run(["now", "--json"])
            #expect(idle.status == 0, "\(idle.stderr)")
            #expect((parse(idle.stdout) as? [String: Any])?["item"] is NSNull)
            let noDevice = try await s.cli.run(["pause"])
            #expect(noDevice.status == 1 && noDevice.stderr.contains("timbre devices") && noDevice.stderr.contains("--device"), "\(noDevice.stderr)")

            #expect(try await s.cli.run(["sync", "--quiet"]).status == 0)
            let playlist = try await playablePlaylist(s)
            let office = try await s.cli.run(["play", playlist.id, "--device", "office"])
            #expect(office.status == 1 && office.stderr.contains("does not accept remote control"), "\(office.stderr)")

            #expect(try await s.cli.run(["play", playlist.id, "--device", "Kitchen radio"]).status == 0)
            let volume = try await s.cli.run(["volume", "40"])
            #expect(volume.status == 1 && volume.stderr.contains("cannot change its volume"), "\(volume.stderr)")
            let (relative, sent) = try await counted(s, ["volume", "+5"])
            #expect(relative.status == 1 && relative.stderr.contains("cannot change its volume"), "\(relative.stderr)")
            #expect(sent == ["GET /v1/me/player"], "known from the read: nothing sent")

            // Two devices start with "kitchen": a usage error listing both, nothing played.
            _ = try await s.sandbox.addDevice(name: "Kitchen speaker")
            let (ambiguous, looked) = try await counted(s, ["play", playlist.id, "--device", "KITCHEN"])
            #expect(ambiguous.status == 2 && ambiguous.stderr.contains("Kitchen radio") && ambiguous.stderr.contains("Kitchen speaker"), "\(ambiguous.stderr)")
            #expect(looked == ["GET /v1/me/player/devices"])
            #expect(try await s.cli.run(["play", "--device", "nowhere"]).status == 2)

            try await s.sandbox.setPremium(false)
            let premium = try await s.cli.run(["next"])
            #expect(premium.status == 1 && premium.stderr.contains("Premium"), "\(premium.stderr)")
            #expect(try await s.cli.run(["now"]).status == 0, "reads work without Premium")
        }
    }

    @Test func aSignInFromBeforePlaybackIsToldToSignInAgainAndSendsNothing() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            let old = try await s.sandbox.mintRefreshToken(
                scope: "playlist-read-private playlist-read-collaborative user-library-read playlist-modify-public playlist-modify-private user-library-modify")
            for arguments in [["pause"], ["now"], ["devices"], ["recent"], ["volume", "-5"], ["play", "--device", "kitchen"]] {
                let (result, sent) = try await counted(s, arguments, environment: ["TIMBRE_REFRESH_TOKEN": old])
                #expect(result.status == 4, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("sign in again to control playback"), "\(arguments): \(result.stderr)")
                #expect(sent.isEmpty, "\(arguments) sent \(sent)")
            }
        }
    }
}
