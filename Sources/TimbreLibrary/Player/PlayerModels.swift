import Foundation
import TimbreCore

/// The player's answers, read tolerantly: a field missing or of an unexpected type reads as absent
/// (Spotify's player objects have many nullable fields: `device.id`, `volume_percent`, `item`,
/// `context`, `progress_ms`), never as a failed command.
enum PlayerJSON {
    static func object(_ data: Data) -> [String: Any]? {
        guard !data.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    static func int(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: return number
        case let number as Double where number.isFinite && abs(number) < 1e15: return Int(number)
        default: return nil
        }
    }

    static func bool(_ value: Any?) -> Bool? { value as? Bool }
}

/// A Spotify Connect device (`GET /me/player/devices`, `device` of `GET /me/player`).
public struct PlayerDevice: Sendable, Equatable {
    /// Spotify's id; nil for a device Spotify names but gives no id (its docs: "can be null").
    public var id: String?
    public var name: String
    public var type: String
    public var isActive: Bool
    /// nil: the device has no volume control.
    public var volume: Int?
    /// `is_restricted`: the device takes no Web API command.
    public var restricted: Bool
    public var supportsVolume: Bool

    public init(id: String?, name: String, type: String, isActive: Bool, volume: Int?, restricted: Bool, supportsVolume: Bool) {
        self.id = id
        self.name = name
        self.type = type
        self.isActive = isActive
        self.volume = volume
        self.restricted = restricted
        self.supportsVolume = supportsVolume
    }

    init?(_ object: [String: Any]) {
        guard let name = object["name"] as? String else { return nil }
        let volume = PlayerJSON.int(object["volume_percent"])
        self.init(
            id: object["id"] as? String, name: name, type: object["type"] as? String ?? "Unknown",
            isActive: PlayerJSON.bool(object["is_active"]) ?? false, volume: volume,
            restricted: PlayerJSON.bool(object["is_restricted"]) ?? false,
            supportsVolume: PlayerJSON.bool(object["supports_volume"]) ?? (volume != nil))
    }

    /// `devices --json`'s element (CONTRACT.md, Round 4).
    public var json: JSONValue {
        .object([
            ("id", .optional(id)), ("name", .string(name)), ("type", .string(type)), ("is_active", .bool(isActive)),
            ("volume", volume.map { .int($0) } ?? .null), ("restricted", .bool(restricted)),
        ])
    }
}

/// What plays: a track or an episode (`item` of the player, `track` of recently played).
public struct PlayingItem: Sendable, Equatable {
    public var uri: String
    public var name: String
    /// For an episode: its show.
    public var artists: [String]
    /// For an episode: its show.
    public var album: String?
    public var durationMS: Int

    public init(uri: String, name: String, artists: [String], album: String?, durationMS: Int) {
        self.uri = uri
        self.name = name
        self.artists = artists
        self.album = album
        self.durationMS = durationMS
    }

    init?(_ object: [String: Any]) {
        guard let uri = object["uri"] as? String else { return nil }
        let show = (object["show"] as? [String: Any])?["name"] as? String
        let artists = (object["artists"] as? [Any] ?? []).compactMap { ($0 as? [String: Any])?["name"] as? String }
        self.init(
            uri: uri, name: object["name"] as? String ?? "", artists: artists.isEmpty ? (show.map { [$0] } ?? []) : artists,
            album: ((object["album"] as? [String: Any])?["name"] as? String) ?? show,
            durationMS: PlayerJSON.int(object["duration_ms"]) ?? 0)
    }

    /// `now --json`'s `item` (CONTRACT.md, Round 4).
    public var json: JSONValue {
        .object([
            ("uri", .string(uri)), ("name", .string(name)), ("artists", .array(artists.map(JSONValue.string))),
            ("album", .optional(album)), ("duration_ms", .int(durationMS)),
        ])
    }
}

/// `GET /me/player`: what plays where. Spotify answers 204 (no state at all) while no device is
/// active; that is `nil` where this is asked for, not a value.
public struct PlaybackState: Sendable, Equatable {
    public enum Repeat: String, Sendable, CaseIterable { case off, track, context }

    public var isPlaying: Bool
    /// nil: nothing loaded, or something the API does not describe (an ad, an unknown type).
    public var item: PlayingItem?
    public var progressMS: Int
    public var device: PlayerDevice?
    public var contextURI: String?
    public var shuffle: Bool
    public var repeatState: Repeat

    public init(
        isPlaying: Bool, item: PlayingItem?, progressMS: Int, device: PlayerDevice?, contextURI: String?, shuffle: Bool,
        repeatState: Repeat
    ) {
        self.isPlaying = isPlaying
        self.item = item
        self.progressMS = progressMS
        self.device = device
        self.contextURI = contextURI
        self.shuffle = shuffle
        self.repeatState = repeatState
    }

    init(_ object: [String: Any]) {
        self.init(
            isPlaying: PlayerJSON.bool(object["is_playing"]) ?? false,
            item: (object["item"] as? [String: Any]).flatMap(PlayingItem.init),
            progressMS: max(0, PlayerJSON.int(object["progress_ms"]) ?? 0),
            device: (object["device"] as? [String: Any]).flatMap(PlayerDevice.init),
            contextURI: (object["context"] as? [String: Any])?["uri"] as? String,
            shuffle: PlayerJSON.bool(object["shuffle_state"]) ?? false,
            repeatState: (object["repeat_state"] as? String).flatMap(Repeat.init(rawValue:)) ?? .off)
    }

    /// Nothing plays: what `now --json` prints for a 204.
    public static let idle = PlaybackState(
        isPlaying: false, item: nil, progressMS: 0, device: nil, contextURI: nil, shuffle: false, repeatState: .off)

    /// `now --json` (CONTRACT.md, Round 4).
    public var json: JSONValue {
        .object([
            ("is_playing", .bool(isPlaying)), ("item", item?.json ?? .null), ("progress_ms", .int(progressMS)),
            (
                "device",
                device.map { device in
                    .object([
                        ("id", .optional(device.id)), ("name", .string(device.name)), ("type", .string(device.type)),
                        ("volume", device.volume.map { .int($0) } ?? .null),
                    ])
                } ?? .null
            ),
            ("context", contextURI.map { .object([("uri", .string($0))]) } ?? .null), ("shuffle", .bool(shuffle)),
            ("repeat", .string(repeatState.rawValue)),
        ])
    }
}

/// One entry of `GET /me/player/recently-played` (tracks that played to their end).
public struct PlayedTrack: Sendable, Equatable {
    public var item: PlayingItem
    /// ISO 8601, as Spotify gives it.
    public var playedAt: String
    public var contextURI: String?

    public init(item: PlayingItem, playedAt: String, contextURI: String?) {
        self.item = item
        self.playedAt = playedAt
        self.contextURI = contextURI
    }

    init?(_ object: [String: Any]) {
        guard let item = (object["track"] as? [String: Any]).flatMap(PlayingItem.init) else { return nil }
        self.init(
            item: item, playedAt: object["played_at"] as? String ?? "",
            contextURI: (object["context"] as? [String: Any])?["uri"] as? String)
    }

    /// `recent --json`'s element: when, what (the shape of `now --json`'s item), and from where.
    public var json: JSONValue {
        .object([
            ("played_at", .string(playedAt)), ("item", item.json),
            ("context", contextURI.map { .object([("uri", .string($0))]) } ?? .null),
        ])
    }
}
