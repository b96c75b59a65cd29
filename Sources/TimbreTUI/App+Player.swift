import Foundation
import TimbreCore

/// Why a player command was not done.
enum PlayerFailure: Sendable {
    /// Spotify said no device is active: a play or resume opens the device picker.
    case noDevice
    /// A rate-limit pause or quota wait in force: nothing was sent.
    case wait(PlayerWait)
    case message(String)
}

/// Playback: commands and reads of the player, each in a `Task` off the interface's thread, their
/// answers through the mailbox; when to read is `PlayerPoll`'s to say.
extension TUIApp {
    /// Reads the player when the poll policy says it is due.
    func pollPlayer() {
        guard let player = services?.player else { return }
        // A media key (MPRIS) was answered since: one read, as after the interface's own keys.
        if player.elsewhere.take() { poll.commandAnsweredElsewhere() }
        let now = ContinuousClock.now
        guard poll.shouldRead(at: now, playing: state.player.nowPlaying) else { return }
        read(player, at: now)
    }

    /// `c` while the last read said nothing plays (a play may have started elsewhere since): the
    /// player is read first — one request, or the read under way — and `c` acts on what it says.
    func playPauseAfterRead() {
        guard let player = services?.player else {
            state.setMessage(TUIState.signInFirst)
            return
        }
        playPauseWhenRead = true
        if !poll.reading { read(player, at: .now) }
    }

    /// One read of the player, its answer through the mailbox.
    private func read(_ player: TUIPlayer, at now: ContinuousClock.Instant) {
        poll.readStarted(at: now)
        let mailbox = self.mailbox
        Task.detached {
            if let wait = await player.wait() {
                mailbox.withLock { $0.append(.playerWait(wait, at: .now, read: true)) }
                return
            }
            do {
                let playing = try await player.state()
                mailbox.withLock { $0.append(.playerState(playing, at: .now)) }
            } catch is NoActiveDevice {
                mailbox.withLock { $0.append(.playerState(nil, at: .now)) }
            } catch {
                mailbox.withLock { $0.append(.playerReadFailed(Self.sentence(for: error))) }
            }
        }
    }

    /// Whether the now-playing line reads otherwise than when it was painted (a second went by).
    func playerLineChanged() -> Bool {
        guard state.player.enabled else { return false }
        return Screen.nowPlayingLine(state, width: state.columns)?.text != paintedPlayerLine
    }

    /// Sends a command (a volume or seek joins the one waiting to be sent); after its answer the
    /// player is read once.
    func sendPlayer(_ request: PlayerRequest) {
        guard let player = services?.player else {
            state.setMessage(TUIState.signInFirst)
            return
        }
        if let lastPlayerRequest, lastPlayerRequest.join(request) { return }
        let joins = PendingPlayerRequest.joins(request)
        let pending = PendingPlayerRequest(request)
        lastPlayerRequest = joins ? pending : nil
        poll.commandSent()
        let mailbox = self.mailbox
        _ = playerCommands.enqueue { _ in
            let request = joins ? await pending.settle() : request
            if let wait = await player.wait() {
                mailbox.withLock { $0.append(.playerAnswered(request, .wait(wait))) }
                return
            }
            do {
                try await player.perform(request)
                mailbox.withLock { $0.append(.playerAnswered(request, nil)) }
            } catch is NoActiveDevice {
                mailbox.withLock { $0.append(.playerAnswered(request, .noDevice)) }
            } catch {
                mailbox.withLock { $0.append(.playerAnswered(request, .message(Self.sentence(for: error)))) }
            }
        }
    }

    /// `D`, or a play with no active device: the devices, then `showDevices`.
    func loadDevices(then request: PlayerRequest?) {
        guard let player = services?.player else {
            state.setMessage(TUIState.signInFirst)
            return
        }
        let mailbox = self.mailbox
        Task.detached {
            if let wait = await player.wait() {
                mailbox.withLock { $0.append(.playerWait(wait, at: .now, read: false)) }
                return
            }
            do {
                let devices = try await player.devices()
                mailbox.withLock { $0.append(.playerDevices(devices, then: request)) }
            } catch {
                mailbox.withLock { $0.append(.playerDevicesFailed(Self.sentence(for: error))) }
            }
        }
    }

    /// The player's events; false for the others.
    func apply(playerEvent event: Event) -> Bool {
        switch event {
        case .playerState(var playing, let at):
            poll.readFinished()
            playing?.readAt = at
            lastPlayerProblem = nil
            state.setNowPlaying(playing)
            if playPauseWhenRead {
                playPauseWhenRead = false
                for case .player(let request) in state.playPauseAfterRead() { sendPlayer(request) }
            }
        case .playerReadFailed(let message):
            poll.readFinished()
            if playPauseWhenRead {
                playPauseWhenRead = false
                state.reportError("reading the player failed: \(message); nothing was sent")
            }
            if message != lastPlayerProblem { state.addMessage("reading the player failed: " + message) }
            lastPlayerProblem = message
        case .playerWait(let wait, let at, let read):
            // A read (or a devices list) that did not go out; a command's wait comes with its answer.
            if read { poll.readFinished() }
            applyWait(wait, at: at)
            if read, playPauseWhenRead {
                playPauseWhenRead = false
                state.setMessage(
                    (wait.quota ? "Spotify's daily quota is used up" : "rate-limited") + ": nothing was sent for \(Screen.waitText(wait.seconds))")
            }
        case .playerAnswered(let request, let failure):
            poll.commandAnswered()
            if lastPlayerRequest?.isSent(request) == true { lastPlayerRequest = nil }
            switch failure {
            case nil: break
            case .noDevice:
                switch request {
                case .play, .resume: loadDevices(then: request)
                default: state.reportError("no device is active: D picks one; nothing was sent")
                }
            case .wait(let wait):
                applyWait(wait, at: .now)
                state.setMessage(
                    (wait.quota ? "Spotify's daily quota is used up" : "rate-limited") + ": nothing was sent for \(Screen.waitText(wait.seconds))")
            case .message(let message): state.reportError(message)
            }
        case .playerDevices(let devices, let request):
            for case .player(let next) in state.showDevices(devices, then: request) { sendPlayer(next) }
        case .playerDevicesFailed(let message):
            state.reportError("reading the devices failed: " + message)
        default: return false
        }
        return true
    }

    private func applyWait(_ wait: PlayerWait, at: ContinuousClock.Instant) {
        poll.wait(wait.seconds, from: at)
        state.setPlayerWait(until: at.advanced(by: .seconds(wait.seconds)), quota: wait.quota)
    }
}
