import Foundation

/// When the interface reads the player (few requests, issue 43): once at the start, once after
/// each command has been answered, when the local clock says the track has ended, otherwise at
/// most every `interval` (`player_poll`) while something plays and at most once a minute while
/// nothing does; never while a rate-limit pause or quota wait is in force, and never two at once.
/// Pure: the app gives it the clock's instants and what it did.
public struct PlayerPoll: Sendable, Equatable {
    public typealias Instant = ContinuousClock.Instant

    /// `player_poll`: the longest time between two reads while something plays.
    public let interval: Duration
    /// While nothing plays: at most once a minute (or `interval`, when that is longer).
    public var idleInterval: Duration { max(interval, .seconds(60)) }
    /// How long after the clock's end of a track it is read (Spotify starts the next one).
    public static let trackEndGrace: Duration = .seconds(1)

    /// When the last read was started (nil: never).
    public private(set) var lastRead: Instant?
    /// A read is under way.
    public private(set) var reading = false
    /// Commands sent and not answered yet.
    public private(set) var commandsUnderWay = 0
    /// A command was answered since the last read: one read is due once none is under way.
    public private(set) var readAfterCommand = false
    /// Nothing is sent before this (a rate-limit pause or a quota wait).
    public private(set) var waitUntil: Instant?

    public init(interval: Duration = .seconds(30)) {
        self.interval = max(interval, .seconds(1))
    }

    /// `player_poll` in seconds (at least 1).
    public init(seconds: Int) {
        self.init(interval: .seconds(max(1, seconds)))
    }

    /// When the next read is due, given what the last one said (`playing`); nil while one is
    /// under way or a command is (its answer brings a read of its own).
    /// `now`: the first read is due at once.
    public func nextRead(playing: NowPlaying?, now: Instant) -> Instant? {
        guard !reading, commandsUnderWay == 0 else { return nil }
        guard let lastRead else { return max(now, waitUntil ?? now) }
        var due: Instant
        if readAfterCommand {
            due = lastRead
        } else if let playing, playing.isPlaying {
            due = lastRead.advanced(by: interval)
            // The track's end, once: a read after it sees the next track (and its new end).
            if let end = playing.endsAt?.advanced(by: Self.trackEndGrace), end > lastRead { due = min(due, end) }
        } else {
            due = lastRead.advanced(by: idleInterval)
        }
        if let waitUntil { due = max(due, waitUntil) }
        return due
    }

    /// Whether to read now (then call `readStarted`).
    public func shouldRead(at now: Instant, playing: NowPlaying?) -> Bool {
        guard let due = nextRead(playing: playing, now: now) else { return false }
        return due <= now
    }

    public mutating func readStarted(at now: Instant) {
        reading = true
        lastRead = now
        readAfterCommand = false
    }

    /// The read's answer (or failure) came.
    public mutating func readFinished() { reading = false }

    public mutating func commandSent() { commandsUnderWay += 1 }

    /// A command's answer (or failure) came: one read once no other command is under way.
    public mutating func commandAnswered() {
        commandsUnderWay = max(0, commandsUnderWay - 1)
        readAfterCommand = true
    }

    /// A command sent beside the interface (the MPRIS bridge) was answered: one read is due, once
    /// none of the interface's own is under way.
    public mutating func commandAnsweredElsewhere() { readAfterCommand = true }

    /// A rate-limit pause or quota wait in force for `seconds` from `now`: no read before it ends.
    public mutating func wait(_ seconds: Int, from now: Instant) {
        waitUntil = now.advanced(by: .seconds(max(0, seconds)))
    }

    /// Whether a wait is in force at `now`.
    public func waiting(at now: Instant) -> Bool { waitUntil.map { $0 > now } ?? false }
}
