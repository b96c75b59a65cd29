import Foundation
import TimbreCore

/// Playback (issue 43): Enter plays the entry under the cursor in its playlist's context, `c`
/// plays or pauses, `>` `<` skip, `.` `,` seek, `+` `-` change the volume, `D` picks a device, `e`
/// queues, `O` shows the playing entry. Pure, as every key is: the state changes at once (the
/// volume, the progress) and the requests are `Effect.player`, which the app sends (joining held
/// keys into one request) and after which it reads the player once.
extension TUIState {
    /// What the interface knows of the player.
    public struct PlayerView: Sendable, Equatable {
        /// The app has a player (signed in): else the keys say playback needs sign-in.
        public internal(set) var enabled = false
        /// What the last read (or the keys since) says plays; nil: nothing, or no active device.
        public internal(set) var nowPlaying: NowPlaying?
        /// The player has been read at least once.
        public internal(set) var known = false
        /// The local clock, as the app last set it (the progress is drawn from it).
        public internal(set) var now: ContinuousClock.Instant?
        /// A rate-limit pause or quota wait in force until then: the player is not read.
        public internal(set) var waitUntil: ContinuousClock.Instant?
        public internal(set) var waitIsQuota = false
    }

    /// The most URIs one play of Liked Songs sends (it has no context: its entries from the one
    /// under the cursor on).
    public static let likedPlayLimit = 100

    static let signInFirst = "playback needs sign-in: `timbre login` (with the playback scopes); nothing was sent"

    /// The app has a player (set once at the start).
    public mutating func enablePlayer(_ enabled: Bool) { player.enabled = enabled }

    /// The local clock's instant (the app sets it before each key and each frame).
    public mutating func setClock(_ now: ContinuousClock.Instant) { player.now = now }

    /// A read of the player came back.
    public mutating func setNowPlaying(_ playing: NowPlaying?) {
        player.nowPlaying = playing
        player.known = true
        player.waitUntil = nil
    }

    /// A rate-limit pause or quota wait in force: the line says so, and the clock runs on.
    public mutating func setPlayerWait(until: ContinuousClock.Instant?, quota: Bool) {
        player.waitUntil = until
        player.waitIsQuota = quota
    }

    /// Applies a playback command.
    mutating func playback(_ command: Command) -> [Effect] {
        guard player.enabled else {
            message = Self.signInFirst
            return []
        }
        switch command {
        case .play: return playEntry(resumeWhenNone: true)
        case .playPause: return playPause()
        case .nextTrack: return [.player(.next)]
        case .previousTrack: return [.player(.previous)]
        case .seek(let seconds): return seek(by: seconds)
        case .volume(let step): return changeVolume(by: step)
        case .devices: return [.pickDevice(then: nil)]
        case .queue: return queueSelection()
        case .showPlaying: return showPlaying()
        default: return []
        }
    }

    /// Enter on an entry (or `:play`): its playlist's context from it; Liked Songs (no context)
    /// by the URIs of the view from it on, at most `likedPlayLimit`. No active device known: the
    /// device picker first (`Effect.pickDevice`).
    mutating func playEntry(resumeWhenNone: Bool = false) -> [Effect] {
        guard player.enabled else {
            message = Self.signInFirst
            return []
        }
        guard focus == .tracks, let playlist = openedPlaylist, let entry = selectedTrack else {
            if resumeWhenNone { return play(.resume) }
            message = "Enter on an entry plays it: open a playlist and put the cursor on one"
            return []
        }
        guard !Self.isLocal(entry.uri) else {
            message = "local files cannot be played through Spotify Connect; nothing was sent"
            return []
        }
        let request: PlayerRequest
        if playlist.isLiked {
            let from = visibleTracks[trackCursor...].map { tracks[$0].uri }.filter { !Self.isLocal($0) }
            request = .play(contextPlaylistID: nil, uris: Array(from.prefix(Self.likedPlayLimit)), offsetPosition: nil, deviceID: nil)
        } else {
            request = .play(contextPlaylistID: playlist.id, uris: nil, offsetPosition: entry.position, deviceID: nil)
        }
        message = "starting “\(TerminalText.preview(entry.title, limit: 40))”"
        return play(request)
    }

    /// On the active device when one is known, else after the device picker.
    private func play(_ request: PlayerRequest) -> [Effect] {
        player.nowPlaying?.deviceID != nil ? [.player(request)] : [.pickDevice(then: request)]
    }

    static func isLocal(_ uri: String) -> Bool { uri.isEmpty || uri.hasPrefix("spotify:local:") }

    static let nothingToResume = "nothing to resume: Enter on an entry plays it, D picks a device"

    /// `c`: pauses what plays, resumes what is paused. When the last read said nothing plays (a
    /// play may have started from the CLI or a phone since), the player is read first
    /// (`Effect.playPauseAfterRead`).
    private mutating func playPause() -> [Effect] {
        guard player.nowPlaying != nil else { return [.playPauseAfterRead] }
        return toggle()
    }

    /// `c`'s read came back: it pauses or resumes what that read says; nothing loaded says so,
    /// with the fix, and sends nothing.
    public mutating func playPauseAfterRead() -> [Effect] {
        guard player.nowPlaying != nil else {
            message = Self.nothingToResume
            return []
        }
        return toggle()
    }

    private mutating func toggle() -> [Effect] {
        guard var playing = player.nowPlaying else { return [] }
        let now = player.now ?? playing.readAt
        playing.progressMS = playing.progress(at: now)
        playing.readAt = now
        playing.isPlaying.toggle()
        player.nowPlaying = playing
        return [.player(playing.isPlaying ? .resume : .pause)]
    }

    /// `.` `,`: from the progress the local clock shows, within the track.
    private mutating func seek(by seconds: Int) -> [Effect] {
        guard var playing = player.nowPlaying else {
            message = "nothing playing to seek in"
            return []
        }
        let now = player.now ?? playing.readAt
        let target = min(max(0, playing.progress(at: now) + seconds * 1000), max(0, playing.durationMS - 1000))
        playing.progressMS = target
        playing.readAt = now
        player.nowPlaying = playing
        return [.player(.seek(toMS: target))]
    }

    /// `+` `-`: from the volume shown (changed at once, so held keys add up), 0 to 100.
    private mutating func changeVolume(by step: Int) -> [Effect] {
        guard var playing = player.nowPlaying else {
            message = "nothing playing: D picks a device"
            return []
        }
        guard let volume = playing.volumePercent else {
            message = "“\(TerminalText.preview(playing.deviceName ?? "the device", limit: 30))” cannot change its volume; nothing was sent"
            return []
        }
        let target = min(100, max(0, volume + step))
        guard target != volume else {
            message = "volume \(volume)%"
            return []
        }
        playing.volumePercent = target
        player.nowPlaying = playing
        message = "volume \(target)%"
        return [.player(.volume(percent: target))]
    }

    /// `e`: the marked entries (or the current one) after what plays, in playlist order.
    private mutating func queueSelection() -> [Effect] {
        let uris = (focus == .tracks ? selection : []).map(\.uri).filter { !Self.isLocal($0) }
        guard !uris.isEmpty else {
            message = "e queues entries: open a playlist, mark some (Space, v) or put the cursor on one"
            return []
        }
        message = "queued \(TUIEdit.count(uris.count))"
        return [.player(.queue(uris: uris))]
    }

    /// `O`: the playing entry's playlist opened (when its context is a cached playlist, or Liked
    /// Songs), the cursor on its row; else its row in the open playlist.
    private mutating func showPlaying() -> [Effect] {
        guard let playing = player.nowPlaying else {
            message = "nothing playing"
            return []
        }
        var target: PlaylistRow?
        if let context = playing.contextURI {
            if context.hasPrefix("spotify:playlist:") {
                let id = String(context.dropFirst("spotify:playlist:".count))
                target = playlists.first { $0.id == id }
            } else if context.hasSuffix(":collection") {
                target = playlists.first { $0.isLiked }
            }
        }
        if target == nil, let opened = openedPlaylist, tracks.contains(where: { $0.uri == playing.uri }) { target = opened }
        guard let target else {
            message = "“\(TerminalText.preview(playing.title, limit: 40))” plays from no playlist timbre has cached"
            return []
        }
        mode = .normal
        playlistFilter = ""
        for index in folders.indices where !folders[index].expanded && folders[index].playlists.contains(target.id) {
            folders[index].expanded = true
        }
        refilterPlaylists()
        selectPlaylist(id: target.id)
        focus = .tracks
        if target.id == openedPlaylistID {
            focusTrack(uri: playing.uri)
            return []
        }
        return [.openPlaying(playlistID: target.id, uri: playing.uri)]
    }

    /// After `Effect.openPlaying` loaded the playlist: every row shown, the cursor on the entry.
    public mutating func focusTrack(uri: String) {
        trackFilter = ""
        resort()
        if let row = visibleTracks.firstIndex(where: { tracks[$0].uri == uri }) { trackCursor = row }
    }

    // MARK: Devices

    /// The devices came (`Effect.pickDevice`): a request waiting for one goes to the active device
    /// when there is one; else the picker opens (Enter sends `then` there, or moves playback there).
    public mutating func showDevices(_ devices: [PlayerDevice], then request: PlayerRequest?) -> [Effect] {
        guard !devices.isEmpty else {
            reportError("no Spotify Connect device is on: open Spotify on a phone, a computer or a speaker, then D; nothing was sent")
            return []
        }
        if let request, let active = devices.first(where: { $0.isActive && !$0.restricted }) {
            return [.player(Self.request(request, on: active.id))]
        }
        mode = .picker(Picker(devices: devices, then: request))
        message = request == nil ? nil : "no device is active: pick one to play on"
        return []
    }

    /// `request` sent to the device `id`: a play names it, a resume moves playback there playing.
    static func request(_ request: PlayerRequest, on id: String) -> PlayerRequest {
        switch request {
        case .play(let context, let uris, let offset, _): return .play(contextPlaylistID: context, uris: uris, offsetPosition: offset, deviceID: id)
        default: return .transfer(deviceID: id, play: true)
        }
    }

    /// Enter in the device picker.
    mutating func pickDevice(_ picker: Picker, then request: PlayerRequest?) -> [Effect] {
        guard let chosen = picker.chosen else {
            message = "no device matches “\(TerminalText.preview(picker.line.text, limit: 30))” — Backspace widens, Esc closes"
            return []
        }
        mode = .normal
        if let request { return [.player(Self.request(request, on: chosen.id))] }
        message = "moving playback to “\(TerminalText.preview(chosen.name, limit: 40))”"
        return [.player(.transfer(deviceID: chosen.id, play: player.nowPlaying?.isPlaying ?? false))]
    }
}
