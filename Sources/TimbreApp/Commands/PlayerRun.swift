import Foundation
import TimbreCore
import TimbreLibrary

extension PlayerPlan {
    /// Sends the verb's request(s) and says what happened: data (`now`, `devices`, `recent`) on
    /// stdout, confirmations on stderr.
    func run(_ player: PlayerAPI, context: AppContext, json: Bool) async throws -> ExitStatus {
        let console = context.console
        switch step {
        case .play(let ref, let track, let uri, let device):
            let target = try await device.asyncMap { try await Self.device($0, player: player) }
            let (what, said) = try playRequest(ref: ref, track: track, uri: uri, context: context)
            do {
                try await player.play(what, device: target?.id)
            } catch PlayerRefusal.restrictionViolated where what == .resume {
                // Spotify refuses to resume what plays, and to resume nothing: one read tells which.
                if try await player.state()?.isPlaying == true {
                    console.say("already playing")
                    return .success
                }
                throw NothingPlaying(doing: "resume", hint: "name what to play: `timbre play PLAYLIST` (or `--uri URI`)")
            }
            console.say(said + (target.map { " on \(TerminalText.sanitize($0.name ?? $0.id))" } ?? ""))
        case .pause:
            do {
                try await player.pause()
                console.say("paused")
            } catch PlayerRefusal.restrictionViolated {
                console.say("already paused")
            }
        case .next, .previous:
            let isNext: Bool = if case .next = step { true } else { false }
            do {
                try await isNext ? player.next() : player.previous()
                console.say(isNext ? "next" : "previous")
            } catch PlayerRefusal.restrictionViolated {
                console.say("nothing to skip: nothing is playing")
            }
        case .seek(let relative, let absolute):
            var target = absolute ?? 0
            if let relative {
                guard let state = try await player.state(), state.item != nil else { throw NothingPlaying(doing: "seek in") }
                target = max(0, state.progressMS + relative)
            }
            do {
                try await player.seek(toMS: target)
            } catch PlayerRefusal.restrictionViolated {
                throw NothingPlaying(doing: "seek in")
            }
            console.say("at \(ClockText.minutesSeconds(milliseconds: target))")
        case .volume(let relative, let absolute):
            var target = absolute ?? 0
            if let relative {
                guard let device = try await player.state()?.device else { throw PlayerRefusal.noActiveDevice }
                // A device without volume control: nothing to send, Spotify would refuse it.
                guard let volume = device.volume else { throw PlayerRefusal.volumeControlDisallowed(device: device.name) }
                target = min(100, max(0, volume + relative))
            }
            try await player.volume(target)
            console.say("volume \(target)")
        case .shuffle(let on):
            try await player.shuffle(on)
            console.say("shuffle \(on ? "on" : "off")")
        case .repeatMode(let mode):
            try await player.setRepeat(mode)
            console.say("repeat \(mode.rawValue)")
        case .queue(let items):
            for item in items { try await player.queue(item.uri) }
            console.say(items.count == 1 ? "queued \(items[0].uri)" : "queued \(items.count) items")
        case .devices:
            let devices = try await player.devices()
            if json {
                console.json(.array(devices.map(\.json)))
            } else if devices.isEmpty {
                console.say("no devices: open Spotify on a phone, computer or speaker (signed in to this account)")
            } else {
                console.lines(devices.map(Self.line))
            }
        case .transfer(let text, let play):
            let target = try await Self.device(text, player: player)
            try await player.transfer(to: target.id, play: play)
            console.say("playback moved to \(TerminalText.sanitize(target.name ?? target.id))")
        case .now:
            let state = try await player.state() ?? .idle
            if json {
                console.json(state.json)
            } else {
                console.line(Self.line(state))
            }
        case .recent(let limit):
            let played = try await player.recentlyPlayed(limit: limit)
            if json {
                console.json(.array(played.map(\.json)))
            } else if played.isEmpty {
                console.say("nothing played recently")
            } else {
                console.lines(played.map { "\(TerminalText.sanitize($0.playedAt))  \(Self.title($0.item))" })
            }
        }
        return .success
    }

    /// `play`'s body and what to say once it is sent.
    func playRequest(ref: String?, track: Int?, uri: String?, context: AppContext) throws -> (PlayerAPI.Play, String) {
        let entry = try uri.map { try Self.playable($0).uri }
        guard let ref else {
            if let entry { return (.uris([entry], offset: nil), "playing \(entry)") }
            return (.resume, "playing")
        }
        let reference = try context.playlistRef(ref)
        let cache = try context.existingCache()
        switch reference {
        case .playlist(let id):
            let cached = try cache?.playlist(reference)
            let name = cached.map { "'\(TerminalText.sanitize($0.name))'" } ?? id.rawValue
            if let track, let count = try cache?.entries(of: reference)?.count, track > count {
                throw UsageError(
                    message: "\(name) has \(count) entries in the cache: there is no entry \(track)", hint: "`timbre tracks \(id.rawValue)` lists them")
            }
            let offset: PlayerAPI.Play.Offset? = track.map { .position($0 - 1) } ?? entry.map { .uri($0) }
            return (.context(uri: "spotify:playlist:\(id.rawValue)", offset: offset), "playing \(name)" + (track.map { " from entry \($0)" } ?? ""))
        case .liked:
            // Liked Songs has no context URI on Spotify: its entries from the one asked for on.
            guard let entries = try cache?.entries(of: .liked) else {
                throw NotCached(reference: .liked)
            }
            var from = entries
            if let track { from = entries.filter { $0.position >= track - 1 } }
            if let entry {
                guard let index = entries.firstIndex(where: { $0.uri == entry }) else {
                    throw UsageError(message: "\(entry) is not in Liked Songs", hint: "`timbre tracks liked` lists them")
                }
                from = Array(entries[index...])
            }
            let uris = from.map(\.uri).filter { $0.hasPrefix("spotify:track:") || $0.hasPrefix("spotify:episode:") }
            guard !uris.isEmpty else {
                throw UsageError(message: track.map { "Liked Songs has no playable entry from \($0) on" } ?? "Liked Songs has nothing playable")
            }
            let sent = Array(uris.prefix(PlayerAPI.maxURIs))
            return (.uris(sent, offset: nil), "playing Liked Songs" + (track.map { " from entry \($0)" } ?? "") + " (\(sent.count) tracks)")
        }
    }

    /// A device by id (40 hex digits: no look-up), exact name, or unique start of a name, any case.
    static func device(_ text: String, player: PlayerAPI) async throws -> (id: String, name: String?) {
        if isDeviceID(text) { return (text, nil) }
        let devices = try await player.devices()
        let folded = text.trimmingCharacters(in: .whitespaces).lowercased()
        var found = devices.filter { $0.id == text }
        if found.isEmpty { found = devices.filter { $0.name.lowercased() == folded } }
        if found.isEmpty, !folded.isEmpty { found = devices.filter { $0.name.lowercased().hasPrefix(folded) } }
        let listing = devices.map { "  \(TerminalText.sanitize($0.name))  \($0.id ?? "(no id)")" }.joined(separator: "\n")
        guard found.count == 1, let device = found.first else {
            if found.isEmpty {
                throw UsageError(
                    message: "no device is named '\(TerminalText.preview(text, limit: 60))'",
                    hint: devices.isEmpty ? "no device is online: open Spotify on one" : "the devices:\n\(listing)")
            }
            let names = found.map { "  \(TerminalText.sanitize($0.name))  \($0.id ?? "(no id)")" }.joined(separator: "\n")
            throw UsageError(
                message: "'\(TerminalText.preview(text, limit: 60))' names \(found.count) devices:\n\(names)", hint: "type more of the name, or the id")
        }
        guard let id = device.id else { throw PlayerRefusal.deviceNotControllable }
        return (id, device.name)
    }

    /// `now`'s line for a status bar: `▶ Title — Artist · Device · 1:23/3:45 · shuffle · repeat`.
    static func line(_ state: PlaybackState) -> String {
        guard let item = state.item else {
            return state.device == nil ? "nothing playing" : "nothing playing on \(TerminalText.sanitize(state.device?.name ?? ""))"
        }
        var parts = [(state.isPlaying ? "▶ " : "⏸ ") + title(item)]
        if let device = state.device { parts.append(TerminalText.sanitize(device.name)) }
        parts.append("\(ClockText.minutesSeconds(milliseconds: state.progressMS))/\(ClockText.minutesSeconds(milliseconds: item.durationMS))")
        if state.shuffle { parts.append("shuffle") }
        switch state.repeatState {
        case .off: break
        case .track: parts.append("repeat track")
        case .context: parts.append("repeat")
        }
        return parts.joined(separator: " · ")
    }

    static func title(_ item: PlayingItem) -> String {
        TerminalText.sanitize(item.artists.isEmpty ? item.name : "\(item.name) — \(item.artists.joined(separator: ", "))")
    }

    /// `devices`' line: active marker, name, type, volume, id.
    static func line(_ device: PlayerDevice) -> String {
        let volume = device.volume.map { "\($0)%" } ?? "no volume control"
        let marks = [device.isActive ? "active" : nil, device.restricted ? "takes no commands" : nil].compactMap { $0 }
        return "\(device.isActive ? "*" : " ") \(TerminalText.sanitize(device.name))  \(TerminalText.sanitize(device.type))  \(volume)"
            + (marks.isEmpty ? "" : "  (\(marks.joined(separator: ", ")))") + "  \(device.id ?? "(no id)")"
    }
}

/// A command that needs something playing, with nothing playing.
struct NothingPlaying: UserFacingError {
    var doing: String
    var hint: String? = "start something: `timbre play PLAYLIST`, or `timbre now` to see the player"
    var message: String { "nothing is playing to \(doing)" }
    var exitStatus: ExitStatus { .failure }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
