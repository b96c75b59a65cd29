import Foundation
import TOMLKit

public enum TLSVersion: String, Sendable, Codable {
    case tls12 = "1.2"
    case tls13 = "1.3"
}

/// Protection tier of a secret in the keyring (issue: sign-in).
public enum SecretTier: String, Sendable, Codable, CaseIterable {
    case standard, high, sensitive
}

public struct TLSSettings: Sendable, Equatable {
    public var caFile: String?
    public var minVersion: TLSVersion
    public var pins: [PinRule]
    /// `[tls.remote]`: signed remote pin updates; nil when not configured.
    public var remote: RemotePinSettings?
    /// `client_cert`: a PKCS#12 file presented when a server asks for a client certificate (mTLS).
    /// Its password is never read from this file (env TIMBRE_CLIENT_CERT_PASSWORD, else the keyring).
    public var clientCert: String?

    public init(
        caFile: String? = nil, minVersion: TLSVersion = .tls12, pins: [PinRule] = [], remote: RemotePinSettings? = nil,
        clientCert: String? = nil
    ) {
        self.clientCert = clientCert
        self.caFile = caFile
        self.minVersion = minVersion
        self.pins = pins
        self.remote = remote
    }
}

/// `[tls.remote]`: where signed pin documents come from and the key they must be signed with.
public struct RemotePinSettings: Sendable, Equatable {
    public enum Key: Sendable, Equatable {
        /// `public_key = "/path/signer.pem"`: an ECDSA P-256 or Ed25519 public key (PEM).
        case publicKey(path: String)
        /// `hmac = true`: HMAC-SHA256 with a key from `TIMBRE_PINS_HMAC_KEY` or the keyring.
        case hmac
    }

    /// `url`: the document; its signature is at `url + ".sig"`. nil: only `pins update --file` works.
    public var url: URL?
    public var key: Key
    /// `allow_host_removal = true`: a document may drop every pin of a host the applied set pins.
    public var allowHostRemoval: Bool

    public init(url: URL?, key: Key, allowHostRemoval: Bool = false) {
        self.url = url
        self.key = key
        self.allowHostRemoval = allowHostRemoval
    }

    /// Where the signature of `url` is published.
    public var signatureURL: URL? { url.flatMap { URL(string: $0.absoluteString + ".sig") } }
}

/// config.toml, validated. Every key is optional; environment variables override the file.
public struct Config: Sendable, Equatable {
    public static let defaultAccountsURL = "https://accounts.spotify.com"
    public static let defaultAPIURL = "https://api.spotify.com/v1"
    public static let defaultRedirectPort = 8974
    /// Seconds of rate-limit waiting a command accepts by default before it gives up.
    public static let defaultRateLimitBudget = 120

    public var clientID: String?
    public var redirectPort: Int
    public var accountsURL: URL
    public var apiURL: URL
    public var refreshTokenTier: SecretTier
    /// `rate_limit_budget`: seconds of 429 pauses one command accepts without a successful answer
    /// in between (a stall, not the sum of every pause of the run).
    public var rateLimitBudget: Int = Config.defaultRateLimitBudget
    /// `request_timeout`: seconds one request may take in all before the transport gives up on it
    /// (also how long an edit finished after a crash waits for a write the stopped process may
    /// still have had in flight).
    public var requestTimeout: Int = Config.defaultRequestTimeout
    public static let defaultRequestTimeout = 60
    /// `player_poll`: the longest time, in seconds, between two reads of the player while the
    /// interface shows something playing (reads also follow each command and each track's end).
    public var playerPoll: Int = Config.defaultPlayerPoll
    public static let defaultPlayerPoll = 30
    /// `reorder = "rewrite"`: shuffle and sort rewrite the list (⌈n/100⌉ writes, every date added
    /// reset) unless told otherwise; the default, `"moves"`, keeps every date added.
    public var reorderByRewrite = false
    /// `history_keep = "365d"`: how long playlist versions are kept, in seconds (the newest 20 of
    /// each playlist always are). Default: a year.
    public var historyKeepSeconds = Config.defaultHistoryKeepSeconds
    public static let defaultHistoryKeepSeconds = 365 * 86_400
    public var tls: TLSSettings
    /// `[keys]`: key → command text, read by the TUI.
    public var keys: [String: String]
    /// Where this config came from, if a file existed.
    public var sourcePath: String?

    public init(
        clientID: String? = nil, redirectPort: Int = Config.defaultRedirectPort,
        accountsURL: URL = URL(string: Config.defaultAccountsURL)!, apiURL: URL = URL(string: Config.defaultAPIURL)!,
        refreshTokenTier: SecretTier = .high, tls: TLSSettings = TLSSettings(), keys: [String: String] = [:],
        sourcePath: String? = nil
    ) {
        self.clientID = clientID
        self.redirectPort = redirectPort
        self.accountsURL = accountsURL
        self.apiURL = apiURL
        self.refreshTokenTier = refreshTokenTier
        self.tls = tls
        self.keys = keys
        self.sourcePath = sourcePath
    }

    /// Reads the config file at `paths.config` (a missing file is an empty config) and applies the
    /// environment overrides.
    public static func load(paths: Paths, environment: [String: String]) throws(ConfigError) -> Config {
        var config: Config
        // What is checked is the file actually opened, links followed, and every folder on the way.
        if let text = try FilePermissions.readTrustedConfig(paths.config) {
            config = try parse(text, path: paths.config)
        } else {
            config = Config()
        }
        if let id = environment["TIMBRE_CLIENT_ID"], !id.isEmpty { config.clientID = id }
        return config
    }

    public static func parse(_ text: String, path: String = "config.toml") throws(ConfigError) -> Config {
        let raw: RawConfig
        do {
            raw = try TOMLDecoder().decode(RawConfig.self, from: text)
        } catch let error as TOMLParseError {
            throw ConfigError(
                path: path, detail: "is not valid TOML at line \(error.source.begin.line), column \(error.source.begin.column): \(error.description)")
        } catch let error as DecodingError {
            throw ConfigError(path: path, detail: Self.describe(error))
        } catch {
            throw ConfigError(path: path, detail: "cannot be parsed: \(error)")
        }
        return try raw.validated(path: path)
    }

    private static func describe(_ error: DecodingError) -> String {
        func keyPath(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let ctx):
            return "key '\(keyPath(ctx.codingPath))' has the wrong type (expected \(type))"
        case .valueNotFound(_, let ctx):
            return "key '\(keyPath(ctx.codingPath))' has no value"
        case .keyNotFound(let key, let ctx):
            return "'\(keyPath(ctx.codingPath + [key]))' is required in that table"
        case .dataCorrupted(let ctx):
            return "key '\(keyPath(ctx.codingPath))': \(ctx.debugDescription)"
        @unknown default:
            return "cannot be decoded: \(error)"
        }
    }
}

extension Config {
    /// Seconds of a duration written `365d`, `52w` or `1y` (a year is 365 days); nil otherwise.
    public static func durationSeconds(_ text: String) -> Int? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = text.last, let number = Int(text.dropLast()), number >= 0, number <= 100_000 else { return nil }
        switch unit {
        case "d": return number * 86_400
        case "w": return number * 7 * 86_400
        case "y": return number * 365 * 86_400
        default: return nil
        }
    }
}

public struct ConfigError: UserFacingError, Equatable {
    public let path: String
    public let detail: String
    public var message: String { "config file \(path) \(detail)" }
    public var hint: String? { "fix that line, or run `timbre doctor` to check the whole file" }
    public var exitStatus: ExitStatus { .usage }
}

// MARK: - The file as written

private struct RawConfig: Decodable {
    var client_id: String?
    var redirect_port: Int?
    var accounts_url: String?
    var api_url: String?
    var secret_tier_refresh_token: String?
    var rate_limit_budget: Int?
    var request_timeout: Int?
    var player_poll: Int?
    var reorder: String?
    var history_keep: String?
    var tls: RawTLS?
    var keys: [String: String]?
    /// Refused wherever it appears (see `Present`).
    var client_cert_password: Present?

    struct RawTLS: Decodable {
        var ca_file: String?
        var min_version: String?
        var pin: [RawPin]?
        var remote: RawRemote?
        var client_cert: String?
        var client_cert_password: Present?
    }

    /// A key that is there, whatever its value: enough to refuse it without reading it.
    struct Present: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    static let passwordRefusal =
        "sets client_cert_password, which timbre never reads from a file: remove that line and put the PKCS#12 password in the environment variable TIMBRE_CLIENT_CERT_PASSWORD or in the keyring (README: Client certificates)"

    struct RawRemote: Decodable {
        var url: String?
        var public_key: String?
        var hmac: Bool?
        var allow_host_removal: Bool?
    }

    struct RawPin: Decodable {
        var host: String
        var pins: [String]
        var scope: String?
        var mode: String?
    }

    func validated(path: String) throws(ConfigError) -> Config {
        func fail(_ detail: String) -> ConfigError { ConfigError(path: path, detail: detail) }
        var config = Config(sourcePath: path)
        if client_cert_password != nil || tls?.client_cert_password != nil { throw fail(Self.passwordRefusal) }
        if let id = client_id?.trimmingCharacters(in: .whitespaces), !id.isEmpty { config.clientID = id }
        if let port = redirect_port {
            guard (0...65535).contains(port) else { throw fail("redirect_port \(port) is not a port number (0–65535; 0 = any free port)") }
            config.redirectPort = port
        }
        if let text = accounts_url { config.accountsURL = try Self.httpsURL(text, key: "accounts_url", fail: fail) }
        if let text = api_url { config.apiURL = try Self.httpsURL(text, key: "api_url", fail: fail) }
        if let text = secret_tier_refresh_token {
            guard let tier = SecretTier(rawValue: text) else {
                throw fail("secret_tier_refresh_token = \"\(text)\" is not one of standard, high, sensitive")
            }
            config.refreshTokenTier = tier
        }
        if let budget = rate_limit_budget {
            guard (0...86_400).contains(budget) else {
                throw fail("rate_limit_budget = \(budget) must be a number of seconds from 0 to 86400 (default \(Config.defaultRateLimitBudget))")
            }
            config.rateLimitBudget = budget
        }
        if let timeout = request_timeout {
            guard (1...600).contains(timeout) else {
                throw fail("request_timeout = \(timeout) must be a number of seconds from 1 to 600 (default \(Config.defaultRequestTimeout))")
            }
            config.requestTimeout = timeout
        }
        if let poll = player_poll {
            guard (5...3600).contains(poll) else {
                throw fail("player_poll = \(poll) must be a number of seconds from 5 to 3600 (default \(Config.defaultPlayerPoll))")
            }
            config.playerPoll = poll
        }
        if let reorder {
            guard reorder == "moves" || reorder == "rewrite" else {
                throw fail(
                    "reorder = \"\(reorder)\" must be \"moves\" (shuffle and sort keep every date added; the default) or \"rewrite\" (fewer requests, every date reset)"
                )
            }
            config.reorderByRewrite = reorder == "rewrite"
        }
        if let text = history_keep {
            guard let seconds = Config.durationSeconds(text) else {
                throw fail(
                    "history_keep = \"\(text)\" must be a number and a unit: d (days), w (weeks) or y (years of 365 days), like \"365d\" or \"1y\" (default \"1y\")"
                )
            }
            config.historyKeepSeconds = seconds
        }
        if let tls {
            if let ca = tls.ca_file { config.tls.caFile = (ca as NSString).expandingTildeInPath }
            if let text = tls.min_version {
                guard let version = TLSVersion(rawValue: text) else { throw fail("tls.min_version = \"\(text)\" must be \"1.2\" or \"1.3\"") }
                config.tls.minVersion = version
            }
            for (index, pin) in (tls.pin ?? []).enumerated() {
                config.tls.pins.append(try Self.rule(pin, number: index + 1, fail: fail))
            }
            if let remote = tls.remote { config.tls.remote = try Self.remote(remote, fail: fail) }
            if let cert = tls.client_cert {
                guard !cert.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw fail("tls.client_cert is empty; give the path of a PKCS#12 (.p12) file, or remove the line")
                }
                config.tls.clientCert = (cert as NSString).expandingTildeInPath
            }
        }
        config.keys = keys ?? [:]
        return config
    }

    private static func httpsURL(_ text: String, key: String, fail: (String) -> ConfigError) throws(ConfigError) -> URL {
        guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text),
            url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty
        else { throw fail("\(key) = \"\(text)\" must be an https:// URL (every call goes through the pinned TLS transport)") }
        return url
    }

    private static func remote(_ raw: RawRemote, fail: (String) -> ConfigError) throws(ConfigError) -> RemotePinSettings {
        let url = try raw.url.map { (text: String) throws(ConfigError) -> URL in try httpsURL(text, key: "tls.remote.url", fail: fail) }
        let key: RemotePinSettings.Key
        switch (raw.public_key, raw.hmac ?? false) {
        case (let path?, false):
            guard !path.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail("tls.remote.public_key is empty; give the path of the signer's PEM public key")
            }
            key = .publicKey(path: (path as NSString).expandingTildeInPath)
        case (nil, true):
            key = .hmac
        case (_?, true):
            throw fail("[tls.remote] sets both public_key and hmac = true; pin documents are verified with one key: keep one of them")
        case (nil, false):
            throw fail(
                "[tls.remote] needs public_key = \"/path/signer.pem\" (ECDSA P-256 or Ed25519) or hmac = true (key from TIMBRE_PINS_HMAC_KEY or the keyring); timbre never applies an unsigned pin document"
            )
        }
        return RemotePinSettings(url: url, key: key, allowHostRemoval: raw.allow_host_removal ?? false)
    }

    private static func rule(_ raw: RawPin, number: Int, fail: (String) -> ConfigError) throws(ConfigError) -> PinRule {
        let at = "[[tls.pin]] #\(number)"
        guard let host = HostPattern(raw.host) else {
            throw fail("\(at): host \"\(raw.host)\" must be a host name, an IP address, or *.example.com")
        }
        guard !raw.pins.isEmpty else { throw fail("\(at) (\(raw.host)): pins is empty; give at least one sha256/… pin") }
        var pins: [SPKIPin] = []
        for text in raw.pins {
            guard let pin = SPKIPin(text) else {
                throw fail("\(at) (\(raw.host)): \"\(text)\" is not an SPKI pin; expected sha256/ followed by 44 base64 characters (`timbre pins` prints them)")
            }
            pins.append(pin)
        }
        let scope =
            try raw.scope.map { (s: String) throws(ConfigError) -> PinScope in
                guard let v = PinScope(rawValue: s) else { throw fail("\(at): scope \"\(s)\" must be leaf, intermediate, root or any") }
                return v
            } ?? .any
        let mode =
            try raw.mode.map { (s: String) throws(ConfigError) -> PinMode in
                guard let v = PinMode(rawValue: s) else { throw fail("\(at): mode \"\(s)\" must be strict or permissive") }
                return v
            } ?? .strict
        return PinRule(host: host, pins: pins, scope: scope, mode: mode)
    }
}
