import TimbreCore

/// What the MPRIS bridge drives: the commands a desktop's media keys, `playerctl` and status bars
/// send. Each is awaited before the D-Bus call is answered; a thrown error becomes a D-Bus error
/// whose text is the error's message (a `UserFacingError`'s message and hint). After a command,
/// push the player's new state with `MPRISBridge.update(_:)`: the bridge does not guess it.
public protocol MPRISPlayer: Sendable {
    func playPause() async throws
    func play() async throws
    func pause() async throws
    /// Spotify has no stop: by default a pause.
    func stop() async throws
    func next() async throws
    func previous() async throws
    /// Relative seek; the bridge turns a seek past the track's end into `next()`, as MPRIS says.
    func seek(byMicroseconds offset: Int64) async throws
    /// Absolute seek within `trackURI`, the playing track (the bridge drops a call naming another
    /// track or a position outside it, as MPRIS says).
    func setPosition(microseconds: Int64, trackURI: String) async throws
    /// 0.0–1.0 (the bridge clamps it).
    func setVolume(_ volume: Double) async throws
    func setShuffle(_ on: Bool) async throws
    func setLoop(_ loop: MPRISLoop) async throws
    /// MPRIS's OpenUri, a `spotify:` URI. By default refused.
    func open(uri: String) async throws
}

extension MPRISPlayer {
    public func stop() async throws { try await pause() }
    public func open(uri: String) async throws {
        throw MPRISBridgeError("timbre does not open URIs from MPRIS.", hint: "use `timbre play --uri \(uri)`")
    }
}

public enum MPRISPlaybackStatus: String, Sendable, Equatable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"
}

/// MPRIS's LoopStatus; Spotify's repeat `off`, `track`, `context`.
public enum MPRISLoop: String, Sendable, Equatable, CaseIterable {
    case none = "None"
    case track = "Track"
    case playlist = "Playlist"
}

/// The playing track as MPRIS shows it.
public struct MPRISTrack: Sendable, Equatable {
    /// `spotify:track:…`, `spotify:episode:…`, `spotify:local:…`.
    public var uri: String
    public var title: String
    public var artists: [String]
    public var album: String
    public var lengthMicroseconds: Int64?
    public var artURL: String?
    /// `xesam:url`; by default the open.spotify.com page of `uri`.
    public var url: String?

    public init(uri: String, title: String, artists: [String], album: String, lengthMicroseconds: Int64?, artURL: String? = nil, url: String? = nil) {
        self.uri = uri
        self.title = title
        self.artists = artists
        self.album = album
        self.lengthMicroseconds = lengthMicroseconds
        self.artURL = artURL
        self.url = url ?? Self.webURL(of: uri)
    }

    /// MPRIS's "no track" id.
    public static let noTrackPath = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// `mpris:trackid`: a D-Bus object path made from the URI, one element per `:`-separated part,
    /// each byte outside [A-Za-z0-9] written `_XX` (so `_` is `_5F`) and an empty part `_`:
    /// `spotify:track:4uLU6hMCjMI75M1A2tKUQC` → `/org/timbre/spotify/track/4uLU6hMCjMI75M1A2tKUQC`.
    /// Different URIs give different paths.
    public static func trackID(for uri: String) -> String {
        let parts = uri.split(separator: ":", omittingEmptySubsequences: false).map { part -> String in
            guard !part.isEmpty else { return "_" }
            var element = ""
            for byte in part.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    element.append(Character(Unicode.Scalar(byte)))
                default:
                    let hex = String(byte, radix: 16, uppercase: true)
                    element += "_" + (hex.count == 1 ? "0" + hex : hex)
                }
            }
            return element
        }
        return "/org/timbre/" + parts.joined(separator: "/")
    }

    /// `https://open.spotify.com/KIND/ID` for `spotify:KIND:ID` (tracks, episodes); nil otherwise.
    static func webURL(of uri: String) -> String? {
        let parts = uri.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "spotify", ["track", "episode"].contains(parts[1]), SpotifyIDCheck.isBase62(parts[2]) else { return nil }
        return "https://open.spotify.com/\(parts[1])/\(parts[2])"
    }
}

private enum SpotifyIDCheck {
    static func isBase62(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
    }
}

/// What the player is doing, as its owner last read it; pushed with `MPRISBridge.update(_:)`.
public struct MPRISState: Sendable, Equatable {
    public var status: MPRISPlaybackStatus
    public var track: MPRISTrack?
    /// The position when it was read, and when that was: the bridge answers Position from these
    /// and its clock (advancing only while playing, never past the track's end).
    public var positionMicroseconds: Int64
    public var positionAt: ContinuousClock.Instant
    /// 0.0–1.0.
    public var volume: Double
    public var shuffle: Bool
    public var loop: MPRISLoop
    /// False for a device Spotify will not let us control (a restricted one): every Can… is false.
    public var canControl: Bool

    public init(
        status: MPRISPlaybackStatus, track: MPRISTrack?, positionMicroseconds: Int64 = 0, positionAt: ContinuousClock.Instant, volume: Double = 1,
        shuffle: Bool = false, loop: MPRISLoop = .none, canControl: Bool = true
    ) {
        self.status = status
        self.track = track
        self.positionMicroseconds = positionMicroseconds
        self.positionAt = positionAt
        self.volume = volume
        self.shuffle = shuffle
        self.loop = loop
        self.canControl = canControl
    }

    /// Nothing playing.
    public static func idle(at instant: ContinuousClock.Instant) -> MPRISState {
        MPRISState(status: .stopped, track: nil, positionAt: instant)
    }

    /// The position at `now`, from the local clock: it runs while playing, stops at the end.
    public func position(at now: ContinuousClock.Instant) -> Int64 {
        var position = positionMicroseconds
        if status == .playing, now > positionAt {
            let (seconds, attoseconds) = (now - positionAt).components
            position += seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        }
        if let length = track?.lengthMicroseconds { position = min(position, length) }
        return max(0, position)
    }
}
