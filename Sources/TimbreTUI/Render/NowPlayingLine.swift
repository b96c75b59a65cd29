import Foundation
import TimbreCore

/// The now-playing line above the status line, while the interface has a player: "▶ title —
/// artist · device · 1:23/3:45 · shuffle · repeat", "⏸" when paused, the progress drawn from
/// the local clock; a rate-limit pause or quota wait said at its end (the clock runs on).
extension Screen {
    static func nowPlayingLine(_ state: TUIState, width: Int) -> Segment? {
        let player = state.player
        guard player.enabled else { return nil }
        var waitNote = ""
        if let until = player.waitUntil, let now = player.now, until > now {
            let seconds = Int(((until - now) / .seconds(1)).rounded(.up))
            waitNote = player.waitIsQuota ? "quota used up: not read for \(waitText(seconds))" : "rate-limited: not read for \(waitText(seconds))"
        }
        guard let playing = player.nowPlaying else {
            let idle = (player.known ? " nothing playing" : " player not read yet") + (waitNote.isEmpty ? "" : " · " + waitNote)
            let hinted = idle + " — Enter on an entry plays it, D picks a device"
            let text = TextWidth.width(of: hinted) <= width ? hinted : idle
            return Segment(TextWidth.pad(TextWidth.fit(text, columns: width), columns: width), .dim)
        }
        let now = player.now ?? playing.readAt
        let time =
            ClockText.minutesSeconds(milliseconds: playing.progress(at: now)) + "/" + ClockText.minutesSeconds(milliseconds: playing.durationMS)
        var marks: [String] = []
        if playing.shuffle { marks.append("shuffle") }
        switch playing.repeatMode {
        case .off: break
        case .track: marks.append("repeat one")
        case .context: marks.append("repeat")
        }
        if let volume = playing.volumePercent { marks.append("vol \(volume)%") }
        if !waitNote.isEmpty { marks.append(waitNote) }
        let head = " " + (playing.isPlaying ? "▶" : "⏸") + " "
        let artists = playing.artists.joined(separator: ", ")
        let what = TerminalText.sanitize(playing.title) + (artists.isEmpty ? "" : " — " + TerminalText.sanitize(artists))
        // The title is cut before the device, the marks and the time are dropped (the time last).
        let device = playing.deviceName.map { TerminalText.sanitize($0) }
        var tails: [[String]] = [
            [device].compactMap { $0 } + [time] + marks,
            [time] + marks,
            [time] + marks.filter { $0 == waitNote },
            [time],
        ]
        tails = tails.filter { !$0.isEmpty }
        var text = head + what
        for parts in tails {
            let tail = " · " + parts.joined(separator: " · ")
            let room = width - TextWidth.width(of: head) - TextWidth.width(of: tail) - 1
            if room >= min(16, TextWidth.width(of: what)) || parts == tails.last {
                text = head + TextWidth.fit(what, columns: max(1, room)) + tail
                break
            }
        }
        return Segment(TextWidth.pad(TextWidth.fit(text, columns: width), columns: width), .header)
    }

    /// `42 s`, `12 min`, `3 h 10 min`.
    static func waitText(_ seconds: Int) -> String {
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\((seconds + 59) / 60) min" }
        return "\(seconds / 3600) h \(((seconds % 3600) + 59) / 60) min"
    }
}
