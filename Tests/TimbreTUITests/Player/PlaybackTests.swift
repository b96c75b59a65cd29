import Testing
import TimbreLibrary

@testable import TimbreTUI

/// Playback keys → state → effects (#43), the requests held keys are joined into, and the
/// now-playing line drawn from an injected clock.
@Suite struct PlaybackTests {
    let t0 = ContinuousClock.now

    func rows(_ count: Int) -> [EntryRow] {
        (0..<count).map {
            EntryRow(
                position: $0, title: "Song \($0)", artist: "Artist \($0 % 7)", album: "Album", durationMS: 200_000, addedAt: nil,
                uri: "spotify:track:t\($0)")
        }
    }

    /// A state with a player, the playlist `id` open (140 entries), the cursor on entry `cursor`.
    func opened(_ id: String = "pl1", cursor: Int = 4, playing: NowPlaying? = nil) -> TUIState {
        var state = TUIState()
        state.enablePlayer(true)
        state.setClock(t0)
        state.setPlaylists([
            PlaylistRow(id: "pl1", name: "Road Trip", trackCount: 140, owner: "me", unavailable: false),
            PlaylistRow(id: "liked", name: "Liked Songs", trackCount: 140, owner: "me", unavailable: false),
        ])
        if id == "liked" { state.apply(.cursor(.down, count: 1)) }
        state.apply(.open)
        state.setTracks(rows(140), of: id)
        state.apply(.cursor(.down, count: cursor))
        state.setNowPlaying(playing)
        return state
    }

    func playing(_ isPlaying: Bool = true, volume: Int? = 50, progress: Int = 60_000, context: String? = "spotify:playlist:pl1") -> NowPlaying {
        NowPlaying(
            uri: "spotify:track:t7", title: "Song 7", artists: ["Artist 0"], album: "Album", durationMS: 200_000, progressMS: progress, readAt: t0,
            isPlaying: isPlaying, deviceName: "Kitchen", deviceID: "dev1", volumePercent: volume, shuffle: true, repeatMode: .context,
            contextURI: context)
    }

    func key(_ name: String) throws -> Terminal.InputEvent { .key(try #require(Key(name))) }

    func type(_ text: String, into state: inout TUIState) -> [TUIState.Effect] {
        text.flatMap { state.handle(.character($0)) }
    }

    @Test func enterPlaysTheEntryInItsPlaylistsContext() throws {
        var state = opened(playing: playing())
        #expect(state.focus == .tracks)
        let effects = state.handle(try key("Enter"))
        #expect(effects == [.player(.play(contextPlaylistID: "pl1", uris: nil, offsetPosition: 4, deviceID: nil))])
        // Sorted otherwise, the offset is still the entry's place in the playlist.
        state.apply(.order(.reverse))
        #expect(state.selectedTrack?.position == 4)
        state.apply(.cursor(.down, count: 1))
        #expect(state.handle(try key("Enter")) == [.player(.play(contextPlaylistID: "pl1", uris: nil, offsetPosition: 3, deviceID: nil))])
        #expect(try Command.parse("play") == .play)
        #expect(state.apply(.play) == [.player(.play(contextPlaylistID: "pl1", uris: nil, offsetPosition: 3, deviceID: nil))])
    }

    @Test func likedSongsPlayTheirURIsFromTheEntryOnAtMostAHundred() throws {
        var state = opened("liked", cursor: 10, playing: playing())
        let effects = state.handle(try key("Enter"))
        let expected = (10..<110).map { "spotify:track:t\($0)" }
        #expect(effects == [.player(.play(contextPlaylistID: nil, uris: expected, offsetPosition: nil, deviceID: nil))])
        // Near the end: what is left.
        state.apply(.cursor(.bottom, count: 1))
        state.apply(.cursor(.up, count: 2))
        let tail = (137..<140).map { "spotify:track:t\($0)" }
        #expect(state.handle(try key("Enter")) == [.player(.play(contextPlaylistID: nil, uris: tail, offsetPosition: nil, deviceID: nil))])
    }

    @Test func heldVolumeKeysAreOneRequest() throws {
        var state = opened(playing: playing(volume: 50))
        let effects = type("+++++", into: &state)
        #expect(effects == [55, 60, 65, 70, 75].map { .player(.volume(percent: $0)) }, "each key from the volume the last one set")
        #expect(state.player.nowPlaying?.volumePercent == 75)
        // What the app sends: each request replaces the one still waiting — one request, +25.
        let pending = try #require(requests(effects).first.map { PendingPlayerRequest($0, at: t0) })
        for (index, request) in requests(effects).dropFirst().enumerated() {
            #expect(pending.join(request, at: t0.advanced(by: .milliseconds(50 * (index + 1)))))
        }
        #expect(pending.request == .volume(percent: 75))
        #expect(!pending.join(.next), "a skip is a request of its own")
        // Bounded: 0 to 100.
        var loud = opened(playing: playing(volume: 95))
        #expect(type("+++", into: &loud) == [.player(.volume(percent: 100))])
        #expect(loud.message == "volume 100%")
        // A device with a fixed volume: nothing sent, said.
        var fixed = opened(playing: playing(volume: nil))
        #expect(type("-", into: &fixed) == [])
        #expect(fixed.message?.contains("cannot change its volume") == true)
    }

    func requests(_ effects: [TUIState.Effect]) -> [PlayerRequest] {
        effects.compactMap { if case .player(let request) = $0 { request } else { nil } }
    }

    @Test func seeksAreFromTheClocksProgressAndJoin() throws {
        var state = opened(playing: playing(progress: 60_000))
        state.setClock(t0.advanced(by: .seconds(5)))
        let effects = type("....", into: &state)
        #expect(requests(effects) == [75_000, 85_000, 95_000, 105_000].map { .seek(toMS: $0) })
        let pending = PendingPlayerRequest(requests(effects)[0], at: t0)
        for request in requests(effects).dropFirst() { #expect(pending.join(request, at: t0)) }
        #expect(pending.request == .seek(toMS: 105_000))
        #expect(requests(type(",", into: &state)) == [.seek(toMS: 95_000)])
        #expect(requests(type("3.", into: &state)) == [.seek(toMS: 125_000)], "a count: 30 s")
    }

    @Test func cTogglesAndSkipsAreOneRequestEach() throws {
        var state = opened(playing: playing(progress: 60_000))
        state.setClock(t0.advanced(by: .seconds(10)))
        #expect(type("c", into: &state) == [.player(.pause)])
        #expect(state.player.nowPlaying?.isPlaying == false)
        #expect(state.player.nowPlaying?.progress(at: t0.advanced(by: .seconds(100))) == 70_000, "paused: the clock stops")
        #expect(type("c", into: &state) == [.player(.resume)])
        #expect(state.player.nowPlaying?.isPlaying == true)
        #expect(type("><", into: &state) == [.player(.next), .player(.previous)])
        state.apply(.mark)
        state.apply(.mark)
        #expect(type("e", into: &state) == [.player(.queue(uris: ["spotify:track:t4", "spotify:track:t5"]))])
    }

    /// `c` when the last read said nothing plays (a play started from the CLI inside the idle
    /// minute): the player is read first, and `c` acts on what that read says.
    @Test func cWithNothingKnownReadsThePlayerFirst() throws {
        // Playing elsewhere: the read finds it, and `c` pauses it.
        var started = opened(playing: nil)
        #expect(type("c", into: &started) == [.playPauseAfterRead], "no request before the read")
        started.setNowPlaying(playing(true, progress: 60_000))
        started.setClock(t0.advanced(by: .seconds(3)))
        #expect(started.playPauseAfterRead() == [.player(.pause)])
        #expect(started.player.nowPlaying?.isPlaying == false)
        #expect(started.player.nowPlaying?.progress(at: t0.advanced(by: .seconds(60))) == 63_000, "paused where the clock stood")
        // Paused elsewhere: it resumes.
        var paused = opened(playing: nil)
        #expect(type("c", into: &paused) == [.playPauseAfterRead])
        paused.setNowPlaying(playing(false))
        #expect(paused.playPauseAfterRead() == [.player(.resume)])
        #expect(paused.player.nowPlaying?.isPlaying == true)
        // Truly nothing: said, with the fix, and nothing sent.
        var idle = opened(playing: nil)
        #expect(type("c", into: &idle) == [.playPauseAfterRead])
        idle.setNowPlaying(nil)
        #expect(idle.playPauseAfterRead() == [])
        #expect(idle.message == "nothing to resume: Enter on an entry plays it, D picks a device")
        // Known to play: no read first, one request.
        var known = opened(playing: playing())
        #expect(type("c", into: &known) == [.player(.pause)])
    }

    @Test func noActiveDeviceOpensThePickerAndThePlayGoesThere() throws {
        var state = opened(playing: nil)
        let play = PlayerRequest.play(contextPlaylistID: "pl1", uris: nil, offsetPosition: 4, deviceID: nil)
        #expect(state.handle(try key("Enter")) == [.pickDevice(then: play)])
        let devices = [
            PlayerDevice(id: "dev1", name: "Kitchen", type: "Speaker", isActive: false, volumePercent: 30, restricted: false),
            PlayerDevice(id: "dev2", name: "Laptop", type: "Computer", isActive: false, volumePercent: nil, restricted: false),
        ]
        #expect(state.showDevices(devices, then: play) == [])
        #expect(state.mode.kind == .picker)
        let header = Screen.render(state, rows: 24, columns: 80)[0].map(\.text).joined()
        #expect(header.contains("Devices (2 of 2)"), "\(header)")
        for character in "lap" { _ = state.handle(.character(character)) }
        #expect(state.handle(try key("Enter")) == [.player(.play(contextPlaylistID: "pl1", uris: nil, offsetPosition: 4, deviceID: "dev2"))])
        #expect(state.mode == .normal)
        // One active: no picker, the play goes there.
        var active = opened(playing: nil)
        _ = active.handle(try key("Enter"))
        let on = [PlayerDevice(id: "dev9", name: "Phone", type: "Smartphone", isActive: true, volumePercent: 80, restricted: false)]
        #expect(active.showDevices(on, then: play) == [.player(.play(contextPlaylistID: "pl1", uris: nil, offsetPosition: 4, deviceID: "dev9"))])
        // D: the picker; Enter moves playback there, playing as it was.
        var moving = opened(playing: playing())
        #expect(type("D", into: &moving) == [.pickDevice(then: nil)])
        _ = moving.showDevices(devices, then: nil)
        #expect(moving.mode.kind == .picker, "D shows the picker even with an active device")
        _ = moving.handle(.character("k"))
        #expect(moving.handle(try key("Enter")) == [.player(.transfer(deviceID: "dev1", play: true))])
        // Esc: nothing sent.
        var closed = opened(playing: playing())
        _ = closed.showDevices(devices, then: nil)
        #expect(closed.handle(try key("Esc")) == [])
        #expect(closed.message == "nothing was sent")
    }

    @Test func signedOutTheKeysSaySo() throws {
        var state = opened(playing: nil)
        state.enablePlayer(false)
        #expect(type("c+D", into: &state) == [])
        #expect(state.handle(try key("Enter")) == [])
        #expect(state.message?.contains("playback needs sign-in") == true)
        #expect(Screen.nowPlayingLine(state, width: 80) == nil, "no line without a player")
    }

    @Test func oJumpsToThePlayingEntry() throws {
        var state = opened(playing: playing(context: "spotify:playlist:pl1"))
        _ = type("g", into: &state)
        #expect(type("O", into: &state) == [])
        #expect(state.selectedTrack?.uri == "spotify:track:t7", "the open playlist: the cursor moves")
        // Another playlist's context: it is opened, then the cursor goes to the entry.
        var other = opened("liked", playing: playing(context: "spotify:playlist:pl1"))
        #expect(type("O", into: &other) == [.openPlaying(playlistID: "pl1", uri: "spotify:track:t7")])
        #expect(other.selectedPlaylist?.id == "pl1" && other.focus == .tracks)
        other.setTracks(rows(140), of: "pl1")
        other.focusTrack(uri: "spotify:track:t7")
        #expect(other.selectedTrack?.position == 7)
        // Liked Songs' context.
        var liked = opened(playing: playing(context: "spotify:user:me:collection"))
        #expect(type("O", into: &liked) == [.openPlaying(playlistID: "liked", uri: "spotify:track:t7")])
    }

    // MARK: The now-playing line

    func screen(_ state: TUIState, columns: Int) -> [String] {
        Screen.render(state, rows: 24, columns: columns).map { $0.map(\.text).joined() }
    }

    @Test func theLineShowsTheClocksProgressAt80And120Columns() throws {
        var state = opened(playing: playing(progress: 83_000))
        state.setClock(t0.advanced(by: .seconds(2)))
        for columns in [80, 120] {
            let lines = screen(state, columns: columns)
            #expect(lines.count == 24 && lines.allSatisfy { TextWidth.width(of: $0) == columns })
            let line = lines[22]
            #expect(line.hasPrefix(" ▶ Song 7 — Artist 0 · Kitchen · 1:25/3:20 · shuffle · repeat"), "\(columns): \(line)")
            #expect(!line.trimmingCharacters(in: .whitespaces).hasSuffix("…"))
            #expect(lines[23].contains("not signed in"), "the status line stays last")
        }
        // The clock runs on; paused it stops.
        state.setClock(t0.advanced(by: .seconds(62)))
        #expect(screen(state, columns: 80)[22].contains("2:25/3:20"))
        _ = type("c", into: &state)
        state.setClock(t0.advanced(by: .seconds(500)))
        let paused = screen(state, columns: 80)[22]
        #expect(paused.hasPrefix(" ⏸ Song 7") && paused.contains("2:25/3:20"), "\(paused)")
    }

    @Test func aLongTitleIsCutBeforeTheTimeAndAWaitIsSaid() throws {
        var long = playing()
        long.title = String(repeating: "Very long title ", count: 8)
        var state = opened(playing: long)
        state.setPlayerWait(until: t0.advanced(by: .seconds(42)), quota: false)
        for columns in [80, 120] {
            let line = screen(state, columns: columns)[22]
            #expect(TextWidth.width(of: line) == columns)
            #expect(line.contains("1:00/3:20") && line.contains("rate-limited: not read for 42 s"), "\(columns): \(line)")
            #expect(line.contains("…"), "the title is cut")
        }
        var idle = opened(playing: nil)
        let line = screen(idle, columns: 80)[22]
        #expect(line.hasPrefix(" nothing playing"), "\(line)")
        idle.setPlayerWait(until: t0.advanced(by: .seconds(3 * 3600)), quota: true)
        #expect(screen(idle, columns: 120)[22].contains("quota used up: not read for 3 h 0 min"), "\(screen(idle, columns: 120)[22])")
    }

    @Test func commandsPrintBackToWhatTheyParsed() throws {
        for text in [
            "play", "play-pause", "next-track", "previous-track", "seek +10", "seek -10", "volume +5", "volume -5", "devices", "queue", "show-playing",
        ] {
            #expect(try Command.parse(text).description == text)
        }
        #expect(throws: CommandError.self) { try Command.parse("volume 50") }
        #expect(throws: CommandError.self) { try Command.parse("seek +0") }
    }
}
