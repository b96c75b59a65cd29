import Testing

@testable import TimbreTUI

/// When the interface reads the player (#43 item 4), with an injected clock: the app asks
/// `shouldRead` every 100 ms (its loop's tick) and the read is answered at once.
@Suite struct PlayerPollTests {
    let t0 = ContinuousClock.now

    func track(at start: ContinuousClock.Instant, durationMS: Int, progressMS: Int = 0, playing: Bool = true) -> NowPlaying {
        NowPlaying(
            uri: "spotify:track:x", title: "X", artists: [], album: "", durationMS: durationMS, progressMS: progressMS, readAt: start,
            isPlaying: playing, deviceName: "Kitchen", deviceID: "d", volumePercent: 50)
    }

    /// Ticks the loop from `from` for `seconds`; each due read is answered by `answer(now)`.
    /// Returns the instants of the reads.
    func run(
        _ poll: inout PlayerPoll, from: ContinuousClock.Instant, seconds: Int, playing: inout NowPlaying?,
        answer: (ContinuousClock.Instant) -> NowPlaying?
    ) -> [Duration] {
        var reads: [Duration] = []
        for tick in 0..<(seconds * 10) {
            let now = from.advanced(by: .milliseconds(100 * tick))
            if poll.shouldRead(at: now, playing: playing) {
                poll.readStarted(at: now)
                reads.append(now - t0)
                playing = answer(now)
                poll.readFinished()
            }
        }
        return reads
    }

    /// A media key answered (MPRIS, beside the interface): one read at the next tick, none more —
    /// and not while the interface's own command or read is under way.
    @Test func aCommandAnsweredElsewhereBringsOneRead() {
        var poll = PlayerPoll(seconds: 3600)
        let song = track(at: t0, durationMS: 3_600_000)
        var playing: NowPlaying? = song
        _ = run(&poll, from: t0, seconds: 1, playing: &playing) { _ in song }
        let later = t0.advanced(by: .seconds(10))
        #expect(!poll.shouldRead(at: later, playing: playing), "player_poll 3600: no read due")
        poll.commandAnsweredElsewhere()
        #expect(poll.shouldRead(at: later, playing: playing))
        let reads = run(&poll, from: later, seconds: 20, playing: &playing) { _ in song }
        #expect(reads == [.seconds(10)], "one read, at once: \(reads)")
        // While the interface's own read is under way: after it.
        poll.readStarted(at: later.advanced(by: .seconds(30)))
        poll.commandAnsweredElsewhere()
        #expect(!poll.shouldRead(at: later.advanced(by: .seconds(30)), playing: playing))
        poll.readFinished()
        #expect(poll.shouldRead(at: later.advanced(by: .seconds(31)), playing: playing), "the read under way may predate the command")
        // During a rate-limit pause: after it.
        var waiting = PlayerPoll(seconds: 3600)
        waiting.readStarted(at: t0)
        waiting.readFinished()
        waiting.wait(20, from: t0)
        waiting.commandAnsweredElsewhere()
        #expect(!waiting.shouldRead(at: t0.advanced(by: .seconds(19)), playing: playing))
        #expect(waiting.shouldRead(at: t0.advanced(by: .seconds(20)), playing: playing))
    }

    @Test func anIdleMinuteWithNothingPlayingIsOneRead() {
        var poll = PlayerPoll(seconds: 30)
        var playing: NowPlaying?
        let reads = run(&poll, from: t0, seconds: 60, playing: &playing) { _ in nil }
        #expect(reads == [.zero], "the read at the start, then none for a minute")
        let more = run(&poll, from: t0.advanced(by: .seconds(60)), seconds: 180, playing: &playing) { _ in nil }
        #expect(more.count == 3, "once a minute: \(more)")
    }

    @Test func fiveMinutesOfOneLongTrackAreTenReads() {
        var poll = PlayerPoll(seconds: 30)
        var playing: NowPlaying?
        let reads = run(&poll, from: t0, seconds: 300, playing: &playing) { now in
            self.track(at: now, durationMS: 3_600_000, progressMS: Int((now - self.t0) / .milliseconds(1)))
        }
        #expect(reads.count <= 10, "\(reads)")
        #expect(reads.count == 10, "every 30 s: \(reads)")
        #expect(zip(reads, reads.dropFirst()).allSatisfy { $1 - $0 == .seconds(30) })
    }

    @Test func theTracksEndIsReadOnce() {
        var poll = PlayerPoll(seconds: 30)
        var playing: NowPlaying?
        // A track with 12 s left, then a long one.
        let reads = run(&poll, from: t0, seconds: 60, playing: &playing) { now in
            now == self.t0
                ? self.track(at: now, durationMS: 200_000, progressMS: 188_000)
                : self.track(at: now, durationMS: 3_600_000, progressMS: 0)
        }
        #expect(reads == [.zero, .seconds(13), .seconds(43)], "start, the end (+1 s), then every 30 s: \(reads)")
    }

    @Test func aCommandIsFollowedByOneReadOnceAnswered() {
        var poll = PlayerPoll(seconds: 30)
        let playing = track(at: t0, durationMS: 3_600_000)
        poll.readStarted(at: t0)
        poll.readFinished()
        let later = t0.advanced(by: .seconds(5))
        poll.commandSent()
        poll.commandSent()
        #expect(!poll.shouldRead(at: later, playing: playing), "not while commands are under way")
        poll.commandAnswered()
        #expect(!poll.shouldRead(at: later, playing: playing), "nor while one still is")
        poll.commandAnswered()
        #expect(poll.shouldRead(at: later, playing: playing), "one read once both are answered")
        poll.readStarted(at: later)
        #expect(!poll.shouldRead(at: later, playing: playing), "not two at once")
        poll.readFinished()
        #expect(!poll.shouldRead(at: later.advanced(by: .seconds(29)), playing: playing))
        #expect(poll.shouldRead(at: later.advanced(by: .seconds(30)), playing: playing))
    }

    @Test func nothingIsReadWhileAWaitIsInForce() {
        var poll = PlayerPoll(seconds: 30)
        poll.wait(120, from: t0)
        var playing: NowPlaying? = track(at: t0, durationMS: 20_000)
        #expect(poll.waiting(at: t0.advanced(by: .seconds(119))))
        let reads = run(&poll, from: t0, seconds: 150, playing: &playing) { now in self.track(at: now, durationMS: 3_600_000) }
        #expect(reads.first == .seconds(120), "the first read waits for the end of the wait, the track's end too: \(reads)")
        // A command's answer does not jump the wait either.
        var waiting = PlayerPoll(seconds: 30)
        waiting.readStarted(at: t0)
        waiting.readFinished()
        waiting.wait(60, from: t0)
        waiting.commandSent()
        waiting.commandAnswered()
        #expect(!waiting.shouldRead(at: t0.advanced(by: .seconds(59)), playing: nil))
        #expect(waiting.shouldRead(at: t0.advanced(by: .seconds(60)), playing: nil))
    }

    @Test func thePollIsAParameter() {
        var poll = PlayerPoll(seconds: 10)
        var playing: NowPlaying?
        let reads = run(&poll, from: t0, seconds: 60, playing: &playing) { now in self.track(at: now, durationMS: 3_600_000) }
        #expect(reads.count == 6)
        #expect(PlayerPoll(seconds: 120).idleInterval == .seconds(120), "idle: a minute, or the poll when longer")
        #expect(PlayerPoll().interval == .seconds(30))
    }
}
