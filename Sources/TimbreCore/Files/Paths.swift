import Foundation

/// Where timbre keeps its files, following the XDG base directory spec (docs/CLI.md "Files").
///
/// The profile `default` keeps the folders timbre has always used (`$XDG_CONFIG_HOME/timbre/…`);
/// any other profile NAME has its own folder in each place, `…/timbre/profiles/NAME/`, so its
/// config, cache, user data, log, trust events and credentials file are its own.
public struct Paths: Sendable, Equatable, Codable {
    public var config: String
    public var cache: String
    public var log: String
    public var credentials: String
    /// The user's own data — the edit journal: not re-fetchable, so cache recovery never touches it.
    public var data: String

    public init(config: String, cache: String, log: String, credentials: String, data: String) {
        self.config = config
        self.cache = cache
        self.log = log
        self.credentials = credentials
        self.data = data
    }

    /// Resolves every path from an environment (injectable so tests need not touch the real one),
    /// for the profile `TIMBRE_PROFILE` names. `Root.run` has refused an invalid name before
    /// anything gets here; should one slip through, `ProfileName.folder` still keeps it inside
    /// timbre's folders.
    public static func resolve(environment env: [String: String]) -> Paths {
        resolve(environment: env, profile: ProfileName.text(in: env))
    }

    static func resolve(environment env: [String: String], profile: String) -> Paths {
        let home = nonEmpty(env["HOME"]) ?? NSHomeDirectory()
        let tail = profile == ProfileName.defaultName ? "/timbre" : "/timbre/profiles/" + ProfileName.folder(profile)
        let config = (nonEmpty(env["XDG_CONFIG_HOME"]) ?? home + "/.config") + tail
        let cache = (nonEmpty(env["XDG_CACHE_HOME"]) ?? home + "/.cache") + tail
        let state = (nonEmpty(env["XDG_STATE_HOME"]) ?? home + "/.local/state") + tail
        let data = (nonEmpty(env["XDG_DATA_HOME"]) ?? home + "/.local/share") + tail
        return Paths(
            config: nonEmpty(env["TIMBRE_CONFIG"]) ?? config + "/config.toml",
            cache: cache + "/library.sqlite",
            log: state + "/timbre.log",
            credentials: config + "/credentials.json",
            data: data + "/timbre.sqlite"
        )
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// Creates the parent folder of `path` with mode 0700 (it may hold secrets or private data).
    public static func ensureParentDirectory(of path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}

extension Paths {
    /// The profile's state folder (`$XDG_STATE_HOME/timbre[/profiles/NAME]`): the log, trust
    /// events, and the demo's sandbox.
    public var stateDirectory: String { (log as NSString).deletingLastPathComponent }

    /// The interface's order of each playlist's view (`s`, `:sort`), kept across restarts.
    public var viewOrders: String { stateDirectory + "/view-orders.json" }

    /// The lock one refresh of the profile's Spotify session holds across processes (`flock`).
    public var sessionLock: String { stateDirectory + "/session.lock" }

    /// The trust events, JSON lines (`$XDG_STATE_HOME/timbre/trust.jsonl`, beside the log).
    public var trustEvents: String { stateDirectory + "/trust.jsonl" }

    /// The applied signed remote pin set (`$XDG_DATA_HOME/timbre/remote-pins.json`): user data,
    /// not re-fetchable without the signer, so it lives beside the journal, not in the cache.
    public var remotePins: String { (data as NSString).deletingLastPathComponent + "/remote-pins.json" }

    /// `timbre paths --json`.
    public var json: JSONValue {
        .object([
            ("config", .string(config)), ("cache", .string(cache)), ("log", .string(log)), ("credentials", .string(credentials)),
            ("data", .string(data)),
        ])
    }
}

/// A profile: a name for one complete, separate setup — config, cache, user data, log and secrets
/// (`--profile NAME`, `TIMBRE_PROFILE`). Names are 1 to 64 letters, digits, `-` or `_`, so a name
/// is always a plain folder name and a plain keyring attribute.
public struct ProfileName: Sendable, Equatable, Hashable, CustomStringConvertible {
    public static let defaultName = "default"
    public static let `default` = ProfileName(checked: defaultName)
    public static let maximumLength = 64

    public let rawValue: String

    private init(checked: String) { rawValue = checked }

    /// `source` names where the text came from, for the message (`--profile`, `TIMBRE_PROFILE`).
    public init(validating text: String, source: String = "--profile") throws(ProfileNameError) {
        guard Self.isValid(text) else { throw ProfileNameError(name: text, source: source) }
        rawValue = text
    }

    public var isDefault: Bool { rawValue == Self.defaultName }
    public var description: String { rawValue }

    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength && text.utf8.allSatisfy(isNameByte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
    }

    /// The profile `TIMBRE_PROFILE` names (surrounding spaces ignored), else `default`.
    public static func from(environment: [String: String]) throws(ProfileNameError) -> ProfileName {
        let text = Self.text(in: environment)
        return text == defaultName ? .default : try ProfileName(validating: text, source: "TIMBRE_PROFILE")
    }

    /// The name as `TIMBRE_PROFILE` gives it, unchecked; `default` when unset or blank.
    public static func text(in environment: [String: String]) -> String {
        let text = environment["TIMBRE_PROFILE"]?.trimmingCharacters(in: .whitespaces) ?? ""
        return text.isEmpty ? defaultName : text
    }

    /// A folder name for any text: a valid name as it is; anything else with every byte outside
    /// `[A-Za-z0-9_-]` percent-escaped, so no name can point outside the profiles folder.
    static func folder(_ text: String) -> String {
        if isValid(text) { return text }
        return "invalid-"
            + text.utf8.prefix(maximumLength).map { byte in
                isNameByte(byte) ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }.joined()
    }
}

/// A profile name that is not 1 to 64 letters, digits, `-` or `_` (exit 2).
public struct ProfileNameError: UserFacingError, Equatable {
    public let name: String
    public let source: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }

    public var message: String {
        "\(source) \"\(TerminalText.preview(name))\" is not a profile name: use 1 to \(ProfileName.maximumLength) letters, digits, '-' or '_'"
    }
    public var hint: String? { "for example `--profile work`; `timbre paths` shows where a profile keeps its files" }
    public var exitStatus: ExitStatus { .usage }
}
