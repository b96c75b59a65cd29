import Foundation
import Synchronization

public enum RefreshRotation: String, Sendable, CaseIterable {
    /// A new refresh token in every refresh response; the old one stops working.
    case rotate
    /// No `refresh_token` field; the old one stays valid.
    case omit
    /// The same refresh token is returned.
    case same
}

public struct SandboxConfiguration: Sendable {
    public var library: LibrarySize = .small
    public var seed: UInt64 = 42
    public var clientID = "0123456789abcdef0123456789abcdef"
    public var accessTokenTTL = 3_600
    public var refreshRotation: RefreshRotation = .rotate
    public var developmentMode = true
    public var legacy = false
    public var itemsLimitMax = 50
    /// Spotify-owned playlists added to the library (`--spotify-owned N`): listed in
    /// `/me/playlists`, 404 by id and for their items in development mode.
    public var spotifyOwned = 0
    /// Spotify's front end answers 411 to a `/v1` write without `Content-Length` (or a chunked
    /// body), as for a bodiless `PUT` or `DELETE` (spotify/web-api#859).
    public var requireContentLength = true
    /// Adds with a track or episode id the catalogue lacks are refused whole, 400 "Payload
    /// contains a non-existing ID", as Spotify answers; false (`--accept-unknown-ids`) takes them
    /// with generated names instead.
    public var refuseUnknownIDs = true
    public var latencyMilliseconds = 0
    /// Each access token answers "The access token expired" after this many API requests
    /// (nil: only its lifetime counts) — tokens that die mid-sync.
    public var accessTokenRequests: Int?
    /// The signed-in user's display name instead of the generated one (hostile names for tests).
    public var displayName: String?
    /// The signed-in user's id instead of `sandbox_user`.
    public var userID: String?
    /// `empty`: the signed-in user is a second account that owns, follows and likes nothing.
    public var account: SandboxAccount = .default
    /// Web API requests a sandbox day allows (`--daily-quota N`); nil: no daily quota. Past it every
    /// `/v1` request is answered 429 until the day ends (Quota.swift).
    public var dailyQuota: Int?
    /// The quota's 429 names `"reason": "QUOTA_EXCEEDED"` (Spotify's body since July 2026).
    public var quotaReason = false
    /// The length of a sandbox day in seconds (`--quota-day-seconds`).
    public var quotaDaySeconds = 86_400
    /// The account has Premium (`--no-premium`: player commands answer 403 `PREMIUM_REQUIRED`).
    public var premium = true
    /// The device (one of `PlayerDevice.defaultNames`, any case) that is active from the start
    /// (`--active-device`; `timbre demo` names its speaker): nil, none is.
    public var activeDevice: String?
    /// Where the request log is appended (JSON lines); nil keeps it in memory only.
    public var requestLogPath: String?
    /// The owner's secret (`ControlSecret`): control requests and `/authorize` without it in
    /// `X-Sandbox-Secret` get 403. `serve` always sets one; nil (no check) is for the service
    /// driven in-process, where nothing else can reach it.
    public var controlSecret: String?
    /// Lines for stderr; never given a secret.
    public var log: @Sendable (String) -> Void = { _ in }

    public init() {}
}

/// The sandbox's behaviour, independent of the HTTP server: requests in, responses out.
/// All state sits behind one mutex; handlers are fast (pages are encoded on demand).
public final class SandboxService: Sendable {
    public let configuration: SandboxConfiguration
    /// The pool by id (immutable: built once).
    let catalog: Catalog
    private let state: Mutex<State>
    /// The request log file; the mutex keeps concurrent requests' lines whole.
    private let logFile: Mutex<FileHandle?>

    struct AuthorizationCode {
        var redirectURI: String
        var challenge: String
        var expires: Date
        var scopes: [String]
    }

    struct State {
        var library: Library { didSet { answers.removeAll() } }
        var baseURL = "https://127.0.0.1:0" { didSet { answers.removeAll() } }
        /// Encoded `/v1` answers, until the library (or the base URL in their links) changes.
        var answers = AnswerCache()
        var accessTokens: [String: Date] = [:]
        /// The scopes each access token was granted.
        var accessScopes: [String: Set<String>] = [:]
        /// API requests made with each access token (for `accessTokenRequests`).
        var accessTokenUses: [String: Int] = [:]
        /// Live refresh tokens and the scopes they grant.
        var refreshTokens: [String: [String]] = [:]
        var revokedRefreshTokens: Set<String> = []
        var codes: [String: AuthorizationCode] = [:]
        var approve = true
        var faults = FaultQueue()
        var requestLog: [JSONValue] = []
        /// `/__sandbox/files/NAME`: bytes a test put there (pin documents and their signatures).
        var files: [String: [UInt8]] = [:]
        /// The sandbox clock (SandboxClock.swift): the player and the daily quota run on it.
        var clock = SandboxClock()
        var quota: QuotaState
        var player: PlayerState
    }

    public init(configuration: SandboxConfiguration) {
        self.configuration = configuration
        var library = Library(size: configuration.library, seed: configuration.seed)
        if configuration.account == .empty { library.makeAccountEmpty() }
        if let name = configuration.displayName { library.users[0].displayName = name }
        if let id = configuration.userID { library.users[0].id = id }
        library.addSpotifyOwned(count: configuration.spotifyOwned)
        catalog = Catalog(pool: library.pool)
        var player = PlayerState(seed: configuration.seed)
        player.premium = configuration.premium
        if let name = configuration.activeDevice?.lowercased() {
            player.activeDeviceID = player.devices.first { $0.name.lowercased() == name }?.id
        }
        let quota = QuotaState(limit: configuration.dailyQuota, reason: configuration.quotaReason, daySeconds: configuration.quotaDaySeconds)
        state = Mutex(State(library: library, quota: quota, player: player))
        if let path = configuration.requestLogPath {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            logFile = Mutex(FileHandle(forWritingAtPath: path))
        } else {
            logFile = Mutex(nil)
        }
    }

    /// Set once the listening port is known: `https://127.0.0.1:PORT`.
    public func setBaseURL(_ url: String) {
        withState { $0.baseURL = url }
    }

    public var baseURL: String { withState { $0.baseURL } }
    public var userID: String { withState { $0.library.me.id } }

    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }

    // MARK: Dispatch

    /// How long to hold `request` before handling it (`hold` faults, consumed here): the caller
    /// waits that long, then calls `handle` — even if the client went away meanwhile.
    public func holdBeforeHandling(_ request: SandboxRequest) -> Int {
        guard !(request.path.hasPrefix("/__sandbox/") || request.path == "/__sandbox") else { return 0 }
        let target = request.query.isEmpty ? request.path : request.path + "?" + request.query
        return withState { $0.faults.takeHolds(target: target, path: request.path, method: request.method) }
    }

    public func handle(_ request: SandboxRequest, now: Date = Date()) -> SandboxResponse {
        if request.path.hasPrefix("/__sandbox/") || request.path == "/__sandbox" {
            // Only the files a test serves (pin documents a client fetches) are public.
            if request.method == "GET", request.path.hasPrefix("/__sandbox/files/") { return handleControl(request, now: now) }
            return ownerOnly(request) ?? handleControl(request, now: now)
        }
        if request.path == "/authorize", let refusal = ownerOnly(request) {
            // Approving without asking anyone is the owner's shortcut, not everyone's.
            record(request, response: refusal, now: now)
            return refusal
        }
        if configuration.requireContentLength, request.lacksLength {
            // Google's front end, before the API sees the request: an HTML page, not the API's JSON.
            let response = SandboxResponse(
                status: 411, headers: [("Content-Type", "text/html; charset=UTF-8")],
                body: Array(
                    "<!DOCTYPE html><title>Error 411 (Length Required)!!1</title><p><b>411.</b> That’s an error.<p>\(request.method) requests require a <code>Content-length</code> header. That’s all we know."
                        .utf8)
            )
            record(request, response: response, now: now)
            return response
        }
        if request.path == "/v1" || request.path.hasPrefix("/v1/"), let refusal = chargeQuota(now: now) {
            var response = refusal
            response.delayMilliseconds = configuration.latencyMilliseconds
            record(request, response: response, now: now)
            return response
        }
        let target = request.query.isEmpty ? request.path : request.path + "?" + request.query
        let decision = withState { s in
            let decision = s.faults.take(target: target, path: request.path, method: request.method, now: now)
            // `delete_playlist`: the playlist is gone before this request is handled.
            for id in decision.deletions { s.library.delete(id) }
            return decision
        }
        var response: SandboxResponse
        switch decision.fault?.kind {
        case .status?:
            let status = decision.fault?.status ?? 500
            var headers: [(String, String)] = []
            if status == 429 { headers.append(("Retry-After", String(decision.fault?.retryAfter ?? 1))) }
            response = .apiError(status, Fault.statusMessage(status), headers: headers, reason: decision.fault?.reason)
        case .applyThenStatus?:
            // The write is applied; the answer says it failed.
            _ = route(request, now: now, emptyItems: nil)
            let status = decision.fault?.status ?? 503
            response = .apiError(status, Fault.statusMessage(status), reason: decision.fault?.reason)
        case .emptyItems?:
            response = route(request, now: now, emptyItems: decision.fault)
        default:
            response = route(request, now: now, emptyItems: nil)
        }
        switch decision.fault?.kind {
        case .reset?:
            response.resetAfterBytes = max(1, response.body.count / 2)
        case .applyThenReset?:
            response.closeWithoutAnswer = true
        case .malformed?:
            response.status = 200
            let cut = max(1, response.body.count / 2)
            response.body = Array(response.body.prefix(cut)) + Array(",\"broken\":".utf8)
            response.headers = [SandboxResponse.jsonType]
        default:
            break
        }
        response.delayMilliseconds = configuration.latencyMilliseconds + decision.delayMilliseconds
        // Spotify's answers carry `date:`; a write's `added_at` is that second (the clock `now`
        // the write was applied at), so a client can stamp what it liked without reading it back.
        if request.path.hasPrefix("/v1/") { response.headers.append(("Date", Self.httpDate(now))) }
        record(request, response: response, now: now)
        return response
    }

    /// `Sun, 22 Nov 2026 10:00:00 GMT` (RFC 9110's IMF-fixdate), whole seconds rounded down.
    static func httpDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: Date(timeIntervalSince1970: seconds))
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let weekday = days[((parts.weekday ?? 1) - 1 + 7) % 7]
        let month = months[((parts.month ?? 1) - 1 + 12) % 12]
        return "\(weekday), \(two(parts.day)) \(month) \(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }

    /// nil when the request carries the owner's secret (or none is set), else the 403 to send.
    func ownerOnly(_ request: SandboxRequest) -> SandboxResponse? {
        guard let secret = configuration.controlSecret else { return nil }
        if ControlSecret.matches(request.headers[ControlSecret.header.lowercased()], secret) { return nil }
        return .apiError(
            403,
            "\(request.path) is for the sandbox's owner: send the secret from the state folder's \(ControlSecret.fileName) file in an \(ControlSecret.header) header"
        )
    }

    private func route(_ request: SandboxRequest, now: Date, emptyItems: Fault?) -> SandboxResponse {
        switch request.path {
        case "/authorize":
            guard request.method == "GET" else { return .text(405, "Method not allowed") }
            return authorize(request.parameters, now: now)
        case "/api/token":
            guard request.method == "POST" else { return .accountsError("invalid_request", "Method not allowed", status: 405) }
            return token(FormEncoding.decode(String(decoding: request.body, as: UTF8.self)), now: now)
        default:
            if request.path == "/v1" || request.path.hasPrefix("/v1/") {
                return api(request, now: now, emptyItems: emptyItems)
            }
            return .apiError(404, "Service not found")
        }
    }

    // MARK: Request log

    private func record(_ request: SandboxRequest, response: SandboxResponse, now: Date) {
        let auth = (request.headers["authorization"] ?? "").lowercased().hasPrefix("bearer ") ? "bearer" : "none"
        let bytes = response.closeWithoutAnswer ? 0 : response.resetAfterBytes.map { min($0, response.body.count) } ?? response.body.count
        let entry: JSONValue = .object([
            ("ts", .string(ISODate.formatMilliseconds(now))),
            ("method", .string(request.method)),
            ("path", .string(request.path)),
            ("query", .string(FormEncoding.redacted(request.query))),
            ("status", .int(response.status)),
            ("auth", .string(auth)),
            ("bytes", .int(bytes)),
            ("request_bytes", .int(request.body.count)),
            ("content_length", request.headers["content-length"].map(JSONValue.string) ?? .null),
        ])
        var line = entry.serialized()
        line.append(0x0A)
        withState { $0.requestLog.append(entry) }
        logFile.withLock { $0?.write(Data(line)) }
        configuration.log("\(request.method) \(request.path) \(response.status) \(bytes)B" + (response.closeWithoutAnswer ? " (dropped)" : ""))
    }
}

extension ISODate {
    static func formatMilliseconds(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1_000 : (milliseconds - 999) / 1_000
        let base = format(seconds)
        let fraction = Int(milliseconds - seconds * 1_000)
        return String(base.dropLast()) + "." + String(repeating: "0", count: 3 - String(fraction).count) + String(fraction) + "Z"
    }
}

/// The bodies of successful `/v1` GETs by path and query. Like a real API's cache, it saves
/// rendering and encoding the same page again (most of the sandbox's CPU time when several
/// clients sync the large library in a row); auth, faults, latency and the request log still
/// apply to every request. Bounded: past `limit` bytes new answers are not kept.
struct AnswerCache {
    static let limit = 384 << 20
    private var bodies: [String: [UInt8]] = [:]
    private var bytes = 0

    func body(for target: String) -> [UInt8]? { bodies[target] }

    mutating func store(_ body: [UInt8], for target: String) {
        guard bytes + body.count <= Self.limit, bodies[target] == nil else { return }
        bodies[target] = body
        bytes += body.count
    }

    mutating func removeAll() {
        bodies.removeAll()
        bytes = 0
    }
}
