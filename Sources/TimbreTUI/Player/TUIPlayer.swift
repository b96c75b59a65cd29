import Foundation
import TimbreCore

/// What plays on the account's active Spotify Connect device, as the player was read at `readAt`
/// (the local clock's instant the answer came; the interface sets it when the answer arrives): the
/// progress shown later is drawn from it.
public struct NowPlaying: Sendable, Equatable {
    public enum Repeat: String, Sendable, Equatable, CaseIterable { case off, track, context }

    public var uri: String
    public var title: String
    public var artists: [String]
    public var album: String
    public var durationMS: Int
    /// The progress when the player was read (at `readAt`).
    public var progressMS: Int
    public var readAt: ContinuousClock.Instant
    public var isPlaying: Bool
    public var deviceName: String?
    public var deviceID: String?
    /// nil: the device cannot change its volume.
    public var volumePercent: Int?
    public var shuffle: Bool
    public var repeatMode: Repeat
    /// `spotify:playlist:…`, `spotify:album:…`, `spotify:user:…:collection` (Liked Songs), or nil.
    public var contextURI: String?

    public init(
        uri: String, title: String, artists: [String], album: String, durationMS: Int, progressMS: Int, readAt: ContinuousClock.Instant,
        isPlaying: Bool, deviceName: String?, deviceID: String?, volumePercent: Int?, shuffle: Bool = false, repeatMode: Repeat = .off,
        contextURI: String? = nil
    ) {
        self.uri = uri
        self.title = title
        self.artists = artists
        self.album = album
        self.durationMS = durationMS
        self.progressMS = progressMS
        self.readAt = readAt
        self.isPlaying = isPlaying
        self.deviceName = deviceName
        self.deviceID = deviceID
        self.volumePercent = volumePercent
        self.shuffle = shuffle
        self.repeatMode = repeatMode
        self.contextURI = contextURI
    }

    /// The progress at `now` by the local clock: it runs on from `readAt` while playing, to the
    /// track's end at most.
    public func progress(at now: ContinuousClock.Instant) -> Int {
        guard isPlaying else { return min(max(0, progressMS), max(0, durationMS)) }
        let ms = progressMS + Int(((now - readAt) / .milliseconds(1)).rounded(.down))
        return min(max(0, ms), max(0, durationMS))
    }

    /// When the local clock says the track ends (nil while paused).
    public var endsAt: ContinuousClock.Instant? {
        guard isPlaying, durationMS > 0 else { return nil }
        return readAt.advanced(by: .milliseconds(max(0, durationMS - progressMS)))
    }
}

/// A Spotify Connect device (`timbre devices`).
public struct PlayerDevice: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Spotify's type: Computer, Smartphone, Speaker…
    public var type: String
    public var isActive: Bool
    /// nil: the device cannot change its volume.
    public var volumePercent: Int?
    /// Spotify accepts no commands for it.
    public var restricted: Bool

    public init(id: String, name: String, type: String, isActive: Bool, volumePercent: Int?, restricted: Bool) {
        self.id = id
        self.name = name
        self.type = type
        self.isActive = isActive
        self.volumePercent = volumePercent
        self.restricted = restricted
    }
}

/// One command to the player (one request where the API allows; `queue` is one per URI).
public enum PlayerRequest: Sendable, Equatable {
    /// `contextPlaylistID`: a playlist's Spotify id (its context, from `offsetPosition`, from 0);
    /// `uris`: the tracks themselves (Liked Songs has no context); `deviceID`: where (nil: the
    /// active device).
    case play(contextPlaylistID: String?, uris: [String]?, offsetPosition: Int?, deviceID: String?)
    case resume
    case pause
    case next
    case previous
    case seek(toMS: Int)
    case volume(percent: Int)
    case queue(uris: [String])
    case transfer(deviceID: String, play: Bool)

    /// Whether a later request replaces this one while it waits to be sent (`+++++`, `....`: the
    /// last target wins, one request).
    func replaced(by next: PlayerRequest) -> Bool {
        switch (self, next) {
        case (.volume, .volume), (.seek, .seek): return true
        default: return false
        }
    }
}

/// Thrown by `TUIPlayer` when Spotify answers that no device is active (`NO_ACTIVE_DEVICE`): the
/// interface opens the device picker and sends the request to the picked device.
public struct NoActiveDevice: Error, Equatable, Sendable {
    public init() {}
}

/// A rate-limit pause or a quota wait in force: nothing is sent until it ends.
public struct PlayerWait: Sendable, Equatable {
    public var seconds: Int
    /// A daily quota wait (a 429 naming `QUOTA_EXCEEDED` or a long `Retry-After`), not a short pause.
    public var quota: Bool

    public init(seconds: Int, quota: Bool) {
        self.seconds = seconds
        self.quota = quota
    }
}

/// The interface's seam to Spotify's player (TimbreApp gives it over the player client; tests
/// pass their own). Every closure talks to Spotify except `wait`.
public struct TUIPlayer: Sendable {
    /// `GET /me/player`: nil when nothing plays or no device is active.
    public var state: @Sendable () async throws -> NowPlaying?
    /// One command; throws `NoActiveDevice` for Spotify's `NO_ACTIVE_DEVICE`, else the error whose
    /// sentence the CLI would show.
    public var perform: @Sendable (PlayerRequest) async throws -> Void
    /// `GET /me/player/devices`.
    public var devices: @Sendable () async throws -> [PlayerDevice]
    /// The rate-limit pause or stored quota wait in force, if any (no request: the process's rate
    /// budget and the stored 429).
    public var wait: @Sendable () async -> PlayerWait?
    /// Commands sent to the player by others in this process (the MPRIS bridge's media keys):
    /// each one answered brings one read, as the interface's own keys do.
    public var elsewhere: PlayerCommandsElsewhere

    public init(
        state: @escaping @Sendable () async throws -> NowPlaying?, perform: @escaping @Sendable (PlayerRequest) async throws -> Void,
        devices: @escaping @Sendable () async throws -> [PlayerDevice], wait: @escaping @Sendable () async -> PlayerWait?,
        elsewhere: PlayerCommandsElsewhere = PlayerCommandsElsewhere()
    ) {
        self.state = state
        self.perform = perform
        self.devices = devices
        self.wait = wait
        self.elsewhere = elsewhere
    }
}

/// Player commands sent beside the interface (`playerctl -p timbre next` while it runs): the
/// sender says when one was answered, and the interface reads the player once at its next turn,
/// so the now-playing line (and what the bridge publishes) follows at once, not at the next poll.
public final class PlayerCommandsElsewhere: Sendable {
    private let answered = Locked(0)

    public init() {}

    /// A command sent elsewhere was answered (or failed): one read is due.
    public func commandAnswered() { answered.withLock { $0 += 1 } }

    /// Whether any was answered since the last call (then none is, until the next).
    func take() -> Bool {
        answered.withLock { count in
            defer { count = 0 }
            return count > 0
        }
    }
}
