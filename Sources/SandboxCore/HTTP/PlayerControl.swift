import Foundation

/// `/__sandbox/clock`, `/__sandbox/quota` and `/__sandbox/player…`: move the sandbox clock, read
/// and set the daily quota, read the player, add devices, switch Premium.
extension SandboxService {
    func playerControl(_ method: String, _ name: String, _ request: SandboxRequest, now: Date = Date()) -> SandboxResponse {
        let body: [String: Any]? =
            request.body.isEmpty ? [:] : (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
        guard let body else { return .apiError(400, "Expected a JSON object") }
        let parameters = request.parameters
        switch (method, name) {
        case ("GET", "clock"):
            return .json(200, withState { clockJSON($0, now: now) })
        case ("POST", "clock"):
            var advance: Int64?
            if let text = parameters["advance_ms"] {
                guard let ms = Int64(text) else { return .apiError(400, "advance_ms must be a whole number of milliseconds") }
                advance = ms
            } else if let ms = body["advance_ms"] as? Int {
                advance = Int64(ms)
            }
            let freeze = parameters["freeze"].map { $0 == "true" } ?? body["freeze"] as? Bool
            return withState { s in
                if let freeze {
                    let wall = SandboxClock.ms(now)
                    if freeze, s.clock.frozenAtMs == nil {
                        s.clock.frozenAtMs = wall
                    } else if !freeze, let frozen = s.clock.frozenAtMs {
                        // Time goes on from where it stood.
                        s.clock.offsetMs += frozen - wall
                        s.clock.frozenAtMs = nil
                    }
                }
                if let ms = advance {
                    guard ms >= 0 else { return .apiError(400, "The sandbox clock only moves forward") }
                    s.clock.offsetMs += ms
                }
                s.player.settle(to: s.clock.milliseconds(at: now), duration: playDuration)
                return .json(200, clockJSON(s, now: now))
            }
        case ("GET", "quota"):
            return .json(200, withState { $0.quota.json(at: $0.clock.milliseconds(at: now)) })
        case ("POST", "quota"):
            return withState { s in
                if body.keys.contains("limit") {
                    if body["limit"] is NSNull {
                        s.quota.limit = nil
                    } else if let limit = body["limit"] as? Int, limit >= 0 {
                        s.quota.limit = limit
                    } else {
                        return .apiError(400, "limit must be a number ≥ 0 or null")
                    }
                }
                if let reason = body["reason"] as? Bool { s.quota.reason = reason }
                if let seconds = body["day_seconds"] as? Int {
                    guard seconds > 0 else { return .apiError(400, "day_seconds must be positive") }
                    s.quota.daySeconds = seconds
                }
                if body["reset"] as? Bool == true {
                    s.quota.dayStart = nil
                    s.quota.used = 0
                    s.quota.refused = 0
                }
                return .json(200, s.quota.json(at: s.clock.milliseconds(at: now)))
            }
        case ("GET", "player"):
            return withState { s in
                let time = s.clock.milliseconds(at: now)
                s.player.settle(to: time, duration: playDuration)
                return .json(200, playerStateJSON(s.player, at: time))
            }
        case ("POST", "player/devices"):
            guard let deviceName = body["name"] as? String, !deviceName.isEmpty else { return .apiError(400, "A device needs a \"name\"") }
            return withState { s in
                let id = body["id"] as? String ?? PlayerDevice.makeID(seed: configuration.seed, index: s.player.devices.count)
                guard !s.player.devices.contains(where: { $0.id == id }) else { return .apiError(400, "A device with id \(id) exists") }
                let supportsVolume = body["supports_volume"] as? Bool ?? true
                var device = PlayerDevice(
                    id: id, name: deviceName, type: body["type"] as? String ?? "Speaker", supportsVolume: supportsVolume,
                    volumePercent: supportsVolume ? (body["volume_percent"] as? Int ?? 50) : nil,
                    isRestricted: body["is_restricted"] as? Bool ?? false)
                device.isPrivateSession = body["is_private_session"] as? Bool ?? false
                s.player.devices.append(device)
                if body["active"] as? Bool == true { s.player.activeDeviceID = id }
                return .json(200, deviceJSON(device, active: s.player.activeDeviceID))
            }
        case ("POST", "player/premium"):
            guard let premium = body["premium"] as? Bool else { return .apiError(400, "Expected {\"premium\":true|false}") }
            withState { $0.player.premium = premium }
            return .json(200, .object([("premium", .bool(premium))]))
        default:
            return .apiError(404, "Unknown control endpoint \(method) /__sandbox/\(name)")
        }
    }

    private func clockJSON(_ s: State, now: Date) -> JSONValue {
        let time = s.clock.milliseconds(at: now)
        let pairs: [(String, JSONValue)] = [
            ("now_ms", JSONValue.int(Int(time))),
            ("now", JSONValue.string(ISODate.formatMilliseconds(ms: time))),
            ("offset_ms", JSONValue.int(Int(s.clock.offsetMs))),
            ("frozen", JSONValue.bool(s.clock.frozenAtMs != nil)),
        ]
        return .object(pairs)
    }

    /// A value or null.
    private func optional<T>(_ value: T?, _ make: (T) -> JSONValue) -> JSONValue {
        value.map(make) ?? .null
    }

    /// The player as the sandbox holds it: what a test asserts after a client's command.
    private func playerStateJSON(_ player: PlayerState, at time: Int64) -> JSONValue {
        let current = player.current
        let contextIndex: Int? = current == nil || player.currentFromQueue ? nil : player.listIndex
        let recent: [JSONValue] = player.recent.map { play in
            let pairs: [(String, JSONValue)] = [
                ("uri", JSONValue.string(playItemURI(play.item))),
                ("played_at_ms", JSONValue.int(Int(play.playedAt))),
                ("context_uri", optional(play.contextURI, JSONValue.string)),
            ]
            return JSONValue.object(pairs)
        }
        var pairs: [(String, JSONValue)] = []
        pairs.append(("premium", JSONValue.bool(player.premium)))
        pairs.append(("active_device", optional(player.activeDevice?.name, JSONValue.string)))
        pairs.append(("active_device_id", optional(player.activeDeviceID, JSONValue.string)))
        pairs.append(("devices", JSONValue.array(player.devices.map { deviceJSON($0, active: player.activeDeviceID) })))
        pairs.append(("context_uri", optional(player.contextURI, JSONValue.string)))
        pairs.append(("item_uri", optional(current.map(playItemURI), JSONValue.string)))
        pairs.append(("duration_ms", optional(current.map(playDuration), JSONValue.int)))
        pairs.append(("from_queue", JSONValue.bool(player.currentFromQueue)))
        pairs.append(("context_index", optional(contextIndex, JSONValue.int)))
        pairs.append(("is_playing", JSONValue.bool(player.isPlaying)))
        pairs.append(("progress_ms", JSONValue.int(Int(player.progress(at: time)))))
        pairs.append(("repeat_state", JSONValue.string(player.repeatState.rawValue)))
        pairs.append(("shuffle_state", JSONValue.bool(player.shuffle)))
        pairs.append(("queue", JSONValue.array(player.queue.map { JSONValue.string(playItemURI($0)) })))
        pairs.append(("recently_played", JSONValue.array(recent)))
        pairs.append(("clock_ms", JSONValue.int(Int(time))))
        return .object(pairs)
    }
}
