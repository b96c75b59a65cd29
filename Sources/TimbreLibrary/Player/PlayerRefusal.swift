import Foundation
import TimbreCore
import TimbreNet

/// Spotify's player said no, for a reason a person can act on. Spotify's error body names the
/// reason (`{"error": {"status", "message", "reason"}}`, the description's `PlayerError`); its
/// message says the same in words ("Player command failed: No active device found"), which is what
/// the executor keeps, so both spellings are recognised.
public enum PlayerRefusal: UserFacingError, Equatable {
    /// `NO_ACTIVE_DEVICE`: no device named and none active (or the named one is not the active one).
    case noActiveDevice
    /// `PREMIUM_REQUIRED`: player commands need Premium.
    case premiumRequired
    /// `VOLUME_CONTROL_DISALLOW`: the device has no volume control.
    case volumeControlDisallowed(device: String?)
    /// `DEVICE_NOT_CONTROLLABLE`: the device takes no Web API command.
    case deviceNotControllable
    /// 404 "Device not found": the device id is not (any more) one of the account's.
    case deviceNotFound
    /// `UNKNOWN` "Restriction violated": the command would change nothing (pause while paused),
    /// or there is nothing to apply it to. Commands say which.
    case restrictionViolated

    /// The refusal `error` is, if it is one of the player's.
    public init?(_ error: SpotifyError) {
        guard case .api(let status, let message, _) = error else { return nil }
        let text = message.lowercased()
        if text.contains("no active device") || text.contains("no_active_device") {
            self = .noActiveDevice
        } else if text.contains("premium required") || text.contains("premium_required") {
            self = .premiumRequired
        } else if text.contains("cannot control device volume") || text.contains("volume_control_disallow") {
            self = .volumeControlDisallowed(device: nil)
        } else if text.contains("not controllable") || text.contains("device_not_controllable") {
            self = .deviceNotControllable
        } else if status == 404, text.contains("device not found") {
            self = .deviceNotFound
        } else if text.contains("restriction violated") {
            self = .restrictionViolated
        } else {
            return nil
        }
    }

    public var message: String {
        switch self {
        case .noActiveDevice:
            return "no Spotify device is playing: name one with --device, or start Spotify on a phone, computer or speaker"
        case .premiumRequired:
            return "Spotify lets only Premium accounts control playback; this account is not Premium"
        case .volumeControlDisallowed(let device):
            let name = device.map { "'\(TerminalText.preview($0, limit: 60))'" } ?? "the device"
            return "\(name) cannot change its volume from timbre (Spotify: the device does not allow volume control)"
        case .deviceNotControllable:
            return "that device does not accept remote control (Spotify: device not controllable)"
        case .deviceNotFound:
            return "Spotify does not know that device (any more)"
        case .restrictionViolated:
            return "Spotify refused: there is nothing to do that to right now (Restriction violated)"
        }
    }

    public var hint: String? {
        switch self {
        case .noActiveDevice:
            return "`timbre devices` lists them; then `timbre play --device NAME` or `timbre transfer NAME`"
        case .premiumRequired:
            return "`timbre now`, `timbre devices` and `timbre recent` still work; playing needs Spotify Premium"
        case .volumeControlDisallowed:
            return "change the volume on the device itself, or play on another (`timbre devices`)"
        case .deviceNotControllable, .deviceNotFound:
            return "pick another with `timbre devices`, or open Spotify on the device"
        case .restrictionViolated:
            return "`timbre now` shows what plays"
        }
    }

    public var exitStatus: ExitStatus { .failure }
}
