import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary

/// `timbre play|pause|next|prev|seek|volume|shuffle|repeat|queue|devices|transfer|now|recent`:
/// Spotify Connect control through the Web API's player (CONTRACT.md, Round 4). Every verb is one
/// request where the API allows: a device named by name costs one read of the devices first (an
/// id does not), a relative seek or volume one read of the player.
public struct PlayerCommand: Sendable {
    public enum Verb: Sendable, Equatable {
        case play(ref: String?, track: Int?, uri: String?, device: String?)
        case pause, next, previous
        case seek(String)
        case volume(String)
        case shuffle(String)
        case repeatMode(String)
        case queue([String])
        case devices
        case transfer(String, play: Bool)
        case now
        case recent(limit: Int)
    }

    public var verb: Verb
    public var json: Bool

    public init(_ verb: Verb, json: Bool = false) {
        self.verb = verb
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        // Arguments are checked before anything is read or sent.
        let plan = try PlayerPlan(verb)
        let context = try invocation.context()
        let player = try await context.player(needs: plan.scopes)
        return try await plan.run(player, context: context, json: json)
    }
}

/// A verb with its arguments read: what to send, and the scopes it needs.
struct PlayerPlan {
    enum Step {
        case play(ref: String?, track: Int?, uri: String?, device: String?)
        case pause, next, previous
        case seek(relative: Int?, absolute: Int?)
        case volume(relative: Int?, absolute: Int?)
        case shuffle(Bool)
        case repeatMode(PlaybackState.Repeat)
        case queue([ItemRef])
        case devices
        case transfer(String, play: Bool)
        case now
        case recent(Int)
    }

    var step: Step
    var scopes: [String]

    static let read = "user-read-playback-state"
    static let modify = "user-modify-playback-state"
    static let recent = "user-read-recently-played"

    init(_ verb: PlayerCommand.Verb) throws {
        switch verb {
        case .play(let ref, let track, let uri, let device):
            if let track {
                guard ref != nil else { throw UsageError(message: "--track needs a playlist to play", hint: "`timbre play \"Road Trip\" --track 4`") }
                guard track >= 1 else {
                    throw UsageError(message: "--track \(track): entries count from 1 (the first entry is 1, as `timbre tracks` shows)")
                }
                guard uri == nil else { throw UsageError(message: "'--track' and '--uri' cannot be used together") }
            }
            if let uri { _ = try Self.playable(uri) }
            step = .play(ref: ref, track: track, uri: uri, device: device)
            scopes = device.map { Self.isDeviceID($0) ? [Self.modify] : [Self.modify, Self.read] } ?? [Self.modify]
        case .pause: (step, scopes) = (.pause, [Self.modify])
        case .next: (step, scopes) = (.next, [Self.modify])
        case .previous: (step, scopes) = (.previous, [Self.modify])
        case .seek(let text):
            let (sign, milliseconds) = try Self.seekTime(text)
            step = sign == 0 ? .seek(relative: nil, absolute: milliseconds) : .seek(relative: sign * milliseconds, absolute: nil)
            scopes = sign == 0 ? [Self.modify] : [Self.modify, Self.read]
        case .volume(let text):
            let (sign, amount) = try Self.volumeAmount(text)
            step = sign == 0 ? .volume(relative: nil, absolute: amount) : .volume(relative: sign * amount, absolute: nil)
            scopes = sign == 0 ? [Self.modify] : [Self.modify, Self.read]
        case .shuffle(let text):
            switch text.lowercased() {
            case "on", "true": step = .shuffle(true)
            case "off", "false": step = .shuffle(false)
            default: throw UsageError(message: "shuffle takes on or off, not '\(TerminalText.preview(text, limit: 20))'")
            }
            scopes = [Self.modify]
        case .repeatMode(let text):
            guard let mode = PlaybackState.Repeat(rawValue: text.lowercased()) else {
                throw UsageError(message: "repeat takes off, track or context, not '\(TerminalText.preview(text, limit: 20))'")
            }
            (step, scopes) = (.repeatMode(mode), [Self.modify])
        case .queue(let items):
            guard !items.isEmpty else { throw UsageError(message: "nothing to queue", hint: "name tracks or episodes as spotify:track:ID or links") }
            (step, scopes) = (.queue(try items.map(Self.playable)), [Self.modify])
        case .devices: (step, scopes) = (.devices, [Self.read])
        case .transfer(let device, let play):
            step = .transfer(device, play: play)
            scopes = Self.isDeviceID(device) ? [Self.modify] : [Self.modify, Self.read]
        case .now: (step, scopes) = (.now, [Self.read])
        case .recent(let limit):
            guard (1...50).contains(limit) else { throw UsageError(message: "--limit must be 1–50") }
            (step, scopes) = (.recent(limit), [Self.recent])
        }
    }

    /// A track or episode (URI or link): what the player takes one at a time.
    static func playable(_ text: String) throws -> ItemRef {
        let item = try ItemRef.parse(text)
        guard item.kind != .album else {
            throw UsageError(message: "'\(TerminalText.preview(text, limit: 60))' is an album: name a track or an episode")
        }
        return item
    }

    /// Spotify's device ids are 40 hex digits: one given as such needs no look-up.
    static func isDeviceID(_ text: String) -> Bool {
        text.count == 40 && text.allSatisfy(\.isHexDigit)
    }

    /// `[+|-]TIME`: seconds (`90`, `1.5`) or `m:ss` (`1:30`); the sign (0: absolute) and the milliseconds.
    static func seekTime(_ text: String) throws -> (Int, Int) {
        let (sign, rest) = signed(text)
        let bad = UsageError(message: "seek takes [+|-]TIME: seconds (90) or m:ss (1:30), not '\(TerminalText.preview(text, limit: 20))'")
        guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == ":") }) else { throw bad }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let seconds = Double(rest), seconds.isFinite, seconds >= 0, seconds < 1e7 else { throw bad }
            return (sign, Int((seconds * 1000).rounded()))
        case 2:
            guard let minutes = Int(parts[0]), minutes >= 0, minutes < 100_000, parts[1].count == 2, let seconds = Int(parts[1]),
                (0..<60).contains(seconds)
            else { throw bad }
            return (sign, (minutes * 60 + seconds) * 1000)
        default:
            throw bad
        }
    }

    /// `[+|-]N`: the sign (0: absolute) and N.
    static func volumeAmount(_ text: String) throws -> (Int, Int) {
        let (sign, rest) = signed(text)
        guard rest.allSatisfy({ $0.isASCII && $0.isNumber }), let amount = Int(rest), (0...100).contains(amount) else {
            throw UsageError(message: "volume takes [+|-]N with N from 0 to 100, not '\(TerminalText.preview(text, limit: 20))'")
        }
        return (sign, amount)
    }

    private static func signed(_ text: String) -> (Int, String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("+") { return (1, String(trimmed.dropFirst())) }
        if trimmed.hasPrefix("-") { return (-1, String(trimmed.dropFirst())) }
        return (0, trimmed)
    }
}

extension AppContext {
    /// The player over the live API: signed in, with the scopes `needs` names. A sign-in from
    /// before playback existed is told so before anything is sent (as editing does).
    func player(needs scopes: [String], vault given: CredentialVault? = nil) async throws -> PlayerAPI {
        let vault = given ?? self.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        let api = try spotify(vault: vault)
        _ = try await api.tokens.accessToken()
        if let granted = await api.tokens.currentSession()?.scopes, !granted.isEmpty, !Set(scopes).isSubset(of: Set(granted)) {
            throw MissingPlaybackScopes()
        }
        return PlayerAPI(api: api)
    }
}

/// A sign-in from before timbre could play: its token reads the library but not the player.
struct MissingPlaybackScopes: UserFacingError {
    var message: String { "your sign-in does not allow controlling playback; nothing was sent" }
    var hint: String? { "sign in again to control playback: `timbre login`" }
    var exitStatus: ExitStatus { .authenticationRequired }
}
