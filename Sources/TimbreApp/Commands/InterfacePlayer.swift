import Foundation
import TimbreCore
import TimbreLibrary
import TimbreNet
import TimbreTUI

/// The player the interface (and `timbre mpris`) drives: `PlayerAPI` over the run's live API,
/// built on first use — a sign-in without the playback scopes is told so then, nothing sent.
actor SharedPlayer {
    private let make: @Sendable () async throws -> PlayerAPI
    private var made: PlayerAPI?

    init(make: @escaping @Sendable () async throws -> PlayerAPI) { self.make = make }

    func api() async throws -> PlayerAPI {
        if let made { return made }
        let player = try await make()
        made = player
        return player
    }
}

/// Spotify's player as the interface's `TUIPlayer` speaks it: the client's models turned into
/// the interface's, each `PlayerRequest` one call of `PlayerAPI` (a queue of N items N calls).
enum InterfacePlayer {
    /// `observe`: every read of the player, as it came (the MPRIS bridge is told from here);
    /// `elsewhere`: where the bridge says its commands were answered (the interface reads then).
    static func make(
        _ shared: SharedPlayer, context: AppContext, observe: @escaping @Sendable (PlaybackState?, ContinuousClock.Instant) -> Void = { _, _ in },
        elsewhere: PlayerCommandsElsewhere = PlayerCommandsElsewhere()
    ) -> TUIPlayer {
        TUIPlayer(
            state: {
                let state = try await shared.api().state()
                let read = ContinuousClock.now
                observe(state, read)
                return nowPlaying(state, at: read)
            },
            perform: { request in
                do {
                    try await perform(request, on: try await shared.api())
                } catch PlayerRefusal.noActiveDevice {
                    // The interface opens the device picker and sends the request there.
                    throw NoActiveDevice()
                }
            },
            devices: { try await shared.api().devices().compactMap(device) },
            wait: { wait(context) }, elsewhere: elsewhere)
    }

    /// `GET /me/player` as the interface shows it: nil when no device is active or nothing is
    /// loaded (an episode Spotify did not describe included).
    static func nowPlaying(_ state: PlaybackState?, at instant: ContinuousClock.Instant) -> NowPlaying? {
        guard let state, let item = state.item else { return nil }
        let device = state.device
        return NowPlaying(
            uri: item.uri, title: item.name, artists: item.artists, album: item.album ?? "", durationMS: item.durationMS,
            progressMS: state.progressMS, readAt: instant, isPlaying: state.isPlaying, deviceName: device?.name, deviceID: device?.id,
            volumePercent: device.flatMap { $0.supportsVolume ? $0.volume : nil }, shuffle: state.shuffle,
            repeatMode: NowPlaying.Repeat(rawValue: state.repeatState.rawValue) ?? .off, contextURI: state.contextURI)
    }

    /// A device the interface can pick: one with an id (Spotify leaves it out for some restricted
    /// ones, which take no command anyway).
    static func device(_ device: TimbreLibrary.PlayerDevice) -> TimbreTUI.PlayerDevice? {
        guard let id = device.id else { return nil }
        return TimbreTUI.PlayerDevice(
            id: id, name: device.name, type: device.type, isActive: device.isActive, volumePercent: device.supportsVolume ? device.volume : nil,
            restricted: device.restricted)
    }

    /// One request of `PlayerAPI`; Spotify's refusals are thrown as `PlayerRefusal`s.
    static func perform(_ request: PlayerRequest, on player: PlayerAPI) async throws {
        switch request {
        case .play(let playlistID, let uris, let offset, let deviceID):
            if let playlistID {
                try await player.play(.context(uri: "spotify:playlist:\(playlistID)", offset: offset.map { .position($0) }), device: deviceID)
            } else {
                try await player.play(.uris(Array((uris ?? []).prefix(PlayerAPI.maxURIs)), offset: offset), device: deviceID)
            }
        case .resume: try await player.play(.resume)
        case .pause:
            do {
                try await player.pause()
            } catch PlayerRefusal.restrictionViolated {
                // Already paused: Spotify's "Restriction violated" is nothing to do, as for `timbre pause`.
            }
        case .next: try await player.next()
        case .previous: try await player.previous()
        case .seek(let ms): try await player.seek(toMS: max(0, ms))
        case .volume(let percent): try await player.volume(min(100, max(0, percent)))
        case .queue(let uris): for uri in uris { try await player.queue(uri) }
        case .transfer(let deviceID, let play): try await player.transfer(to: deviceID, play: play)
        }
    }

    /// The wait in force without a request: the profile's stored quota wait, else this process's
    /// rate-limit pause.
    static func wait(_ context: AppContext) -> PlayerWait? {
        if let stop = context.requestLedger().storedStop(), case .wait(let until, _, _, _) = stop.reason {
            return PlayerWait(seconds: max(1, Int(until.timeIntervalSinceNow.rounded(.up))), quota: true)
        }
        if let left = context.executor().budget.remainingPause {
            return PlayerWait(seconds: Int(left.components.seconds) + 1, quota: false)
        }
        return nil
    }
}
