/// A Spotify Connect device as `/me/player/devices` lists it.
public struct PlayerDevice: Sendable, Equatable {
    public var id: String
    public var name: String
    /// `Computer`, `Smartphone`, `Speaker`, `TV`, …
    public var type: String
    public var supportsVolume: Bool
    /// nil for a device without volume control (`volume_percent: null`).
    public var volumePercent: Int?
    /// Spotify: "if this is true then no Web API commands will be accepted by this device".
    public var isRestricted: Bool
    public var isPrivateSession = false

    public init(id: String, name: String, type: String, supportsVolume: Bool, volumePercent: Int?, isRestricted: Bool) {
        self.id = id
        self.name = name
        self.type = type
        self.supportsVolume = supportsVolume
        self.volumePercent = volumePercent
        self.isRestricted = isRestricted
    }

    /// A device id as Spotify writes them (40 hex digits), the same in every run.
    static func makeID(seed: UInt64, index: Int) -> String {
        var rng = SplitMix64(seed: seed, stream: 300, index: UInt64(index))
        var text = ""
        while text.count < 40 {
            let word = String(rng.next(), radix: 16)
            text += String(repeating: "0", count: 16 - word.count) + word
        }
        return String(text.prefix(40))
    }

    /// The names of the devices every sandbox starts with (`--active-device` takes one).
    public static var defaultNames: [String] { defaults(seed: 0).map(\.name) }

    /// What every sandbox starts with, all inactive (unless `--active-device` names one): the
    /// demo's speaker, a radio without volume control and a restricted computer.
    static func defaults(seed: UInt64) -> [PlayerDevice] {
        [
            PlayerDevice(
                id: makeID(seed: seed, index: 0), name: "timbre demo speaker", type: "Speaker", supportsVolume: true, volumePercent: 50,
                isRestricted: false),
            PlayerDevice(
                id: makeID(seed: seed, index: 1), name: "Kitchen radio", type: "Speaker", supportsVolume: false, volumePercent: nil,
                isRestricted: false),
            PlayerDevice(
                id: makeID(seed: seed, index: 2), name: "Office computer", type: "Computer", supportsVolume: true, volumePercent: 70,
                isRestricted: true),
        ]
    }
}

/// Something the player can play: a catalogue track or episode (pool index), or one added to the
/// library by an id the pool lacks.
enum PlayItem: Sendable, Equatable {
    case track(Int)
    case episode(Int)
    case foreignTrack(String)
    case foreignEpisode(String)

    var isEpisode: Bool {
        switch self {
        case .episode, .foreignEpisode: true
        case .track, .foreignTrack: false
        }
    }
}

enum RepeatState: String, Sendable {
    case off, track, context
}

/// One play of a track that ended, for `/me/player/recently-played`.
struct PlayedItem: Sendable {
    var item: PlayItem
    /// Sandbox clock, milliseconds since 1970.
    var playedAt: Int64
    var contextURI: String?
}

/// The user's player on the sandbox clock (milliseconds). Progress is kept as a value at an
/// anchor time, so the state at any later moment follows without a timer: `settle(to:)` plays
/// on — tracks end, the next one starts (the queue first, then the context), repeat and shuffle
/// apply — up to that moment.
struct PlayerState: Sendable {
    var devices: [PlayerDevice]
    var activeDeviceID: String?
    var premium = true
    /// `spotify:playlist:…` / `spotify:album:…`, nil for a list of `uris` (Spotify reports no context then).
    var contextURI: String?
    /// The context's entries in their order; nil for one the player cannot play (a removed
    /// item, a local file, a malformed id), which it skips.
    var list: [PlayItem?] = []
    /// Play order over `list` (the identity unless shuffled).
    var order: [Int] = []
    /// Where in `order` the context is (the last context entry played).
    var orderPosition = 0
    var current: PlayItem?
    /// The current item came from the queue, not the context.
    var currentFromQueue = false
    var queue: [PlayItem] = []
    var isPlaying = false
    var progressAtAnchor: Int64 = 0
    var anchor: Int64 = 0
    var repeatState: RepeatState = .off
    var shuffle = false
    /// When the state last changed (play, pause, skip, seek, a new track).
    var timestamp: Int64 = 0
    /// Most recent first; at most `recentLimit`.
    var recent: [PlayedItem] = []
    var shuffleDraws: UInt64 = 0
    let seed: UInt64

    static let recentLimit = 50

    init(seed: UInt64) {
        self.seed = seed
        devices = PlayerDevice.defaults(seed: seed)
    }

    var activeDevice: PlayerDevice? { devices.first { $0.id == activeDeviceID } }

    func progress(at now: Int64) -> Int64 {
        isPlaying ? progressAtAnchor + max(0, now - anchor) : progressAtAnchor
    }

    /// The index in `list` of the context entry the player is at.
    var listIndex: Int? { order.indices.contains(orderPosition) ? order[orderPosition] : nil }

    // MARK: The clock

    /// Plays on up to `now`: each track that ends is recorded as played and the next one starts.
    mutating func settle(to now: Int64, duration: (PlayItem) -> Int) {
        var guardCount = 0
        while isPlaying, let item = current, guardCount < 200_000 {
            guardCount += 1
            let length = Int64(duration(item))
            guard progress(at: now) >= length else { return }
            let end = anchor + (length - progressAtAnchor)
            recent.insert(PlayedItem(item: item, playedAt: end, contextURI: currentFromQueue ? nil : contextURI), at: 0)
            if recent.count > Self.recentLimit { recent.removeLast(recent.count - Self.recentLimit) }
            if repeatState == .track {
                start(at: end, progress: 0)
            } else {
                advance(at: end, wrap: repeatState == .context)
            }
        }
    }

    private mutating func start(at time: Int64, progress: Int64) {
        anchor = time
        progressAtAnchor = progress
        timestamp = time
    }

    /// The next item: the queue's first, else the context's next playable entry (from the start
    /// again when `wrap`). At the end of the context the player stops on the last track.
    mutating func advance(at time: Int64, wrap: Bool) {
        if !queue.isEmpty {
            current = queue.removeFirst()
            currentFromQueue = true
            start(at: time, progress: 0)
            return
        }
        if let next = playablePosition(from: orderPosition + 1, step: 1) ?? (wrap ? playablePosition(from: 0, step: 1) : nil) {
            orderPosition = next
            current = list[order[next]]
            currentFromQueue = false
            start(at: time, progress: 0)
            return
        }
        // The end of the context: paused at the start of the last track.
        isPlaying = false
        start(at: time, progress: 0)
    }

    /// Back one entry in the context; at its first entry the current one starts again (or, with
    /// repeat context, the last one plays).
    mutating func back(at time: Int64) {
        if currentFromQueue, let index = listIndex, let item = list[index] {
            current = item
            currentFromQueue = false
        } else if let previous = playablePosition(from: orderPosition - 1, step: -1)
            ?? (repeatState == .context ? playablePosition(from: order.count - 1, step: -1) : nil)
        {
            orderPosition = previous
            current = list[order[previous]]
        }
        start(at: time, progress: 0)
    }

    private func playablePosition(from position: Int, step: Int) -> Int? {
        var position = position
        while order.indices.contains(position) {
            if list[order[position]] != nil { return position }
            position += step
        }
        return nil
    }

    /// Starts `list` at entry `start` (or the next playable one), `positionMs` into it. A position
    /// past the track's end plays the next track, as Spotify documents.
    mutating func load(
        _ list: [PlayItem?], contextURI: String?, from startIndex: Int, positionMs: Int64, now: Int64, duration: (PlayItem) -> Int
    ) {
        self.list = list
        self.contextURI = contextURI
        order = Array(list.indices)
        if shuffle { shuffleOrder(keepingFirst: startIndex) }
        let first = order.firstIndex(of: startIndex) ?? 0
        isPlaying = true
        currentFromQueue = false
        guard let position = playablePosition(from: first, step: 1) else {
            current = nil
            isPlaying = false
            start(at: now, progress: 0)
            return
        }
        orderPosition = position
        current = list[order[position]]
        start(at: now, progress: positionMs)
        if let item = current, positionMs >= Int64(duration(item)) { advance(at: now, wrap: repeatState == .context) }
    }

    /// Seeks; past the end the next track plays.
    mutating func seek(to positionMs: Int64, now: Int64, duration: (PlayItem) -> Int) {
        guard let item = current else { return }
        start(at: now, progress: positionMs)
        if positionMs >= Int64(duration(item)) { advance(at: now, wrap: repeatState == .context) }
    }

    mutating func setPlaying(_ playing: Bool, now: Int64) {
        let progress = progress(at: now)
        isPlaying = playing
        start(at: now, progress: progress)
    }

    /// Shuffle on: the current entry first, the rest in a new order; off: the context's order.
    mutating func setShuffle(_ on: Bool) {
        shuffle = on
        let index = listIndex ?? 0
        if on {
            shuffleOrder(keepingFirst: index)
        } else {
            order = Array(list.indices)
        }
        orderPosition = order.firstIndex(of: index) ?? 0
    }

    private mutating func shuffleOrder(keepingFirst first: Int) {
        shuffleDraws += 1
        var rng = SplitMix64(seed: seed, stream: 301, index: shuffleDraws)
        var rest = list.indices.filter { $0 != first }
        rest.shuffle(using: &rng)
        order = list.indices.contains(first) ? [first] + rest : rest
    }

    /// What plays after the current item: the queue, then the context's next entries (at most `limit`).
    func upcoming(limit: Int) -> [PlayItem] {
        var items = Array(queue.prefix(limit))
        var position = orderPosition + 1
        var wrapped = false
        while items.count < limit, !order.isEmpty {
            if position >= order.count {
                guard repeatState == .context, !wrapped else { break }
                wrapped = true
                position = 0
            }
            if let item = list[order[position]] { items.append(item) }
            position += 1
        }
        return items
    }
}
