import Foundation

/// Where timbre keeps its files, following the XDG base directory spec (docs/CLI.md "Files").
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

    /// Resolves every path from an environment (injectable so tests need not touch the real one).
    public static func resolve(environment env: [String: String] = ProcessInfo.processInfo.environment) -> Paths {
        let home = nonEmpty(env["HOME"]) ?? NSHomeDirectory()
        let configHome = nonEmpty(env["XDG_CONFIG_HOME"]) ?? home + "/.config"
        let cacheHome = nonEmpty(env["XDG_CACHE_HOME"]) ?? home + "/.cache"
        let stateHome = nonEmpty(env["XDG_STATE_HOME"]) ?? home + "/.local/state"
        let dataHome = nonEmpty(env["XDG_DATA_HOME"]) ?? home + "/.local/share"
        return Paths(
            config: nonEmpty(env["TIMBRE_CONFIG"]) ?? configHome + "/timbre/config.toml",
            cache: cacheHome + "/timbre/library.sqlite",
            log: stateHome + "/timbre/timbre.log",
            credentials: configHome + "/timbre/credentials.json",
            data: dataHome + "/timbre/timbre.sqlite"
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
    /// The trust events, JSON lines (`$XDG_STATE_HOME/timbre/trust.jsonl`, beside the log).
    public var trustEvents: String { (log as NSString).deletingLastPathComponent + "/trust.jsonl" }

    /// The applied signed remote pin set (`$XDG_DATA_HOME/timbre/remote-pins.json`): user data,
    /// not re-fetchable without the signer, so it lives beside the journal, not in the cache.
    public var remotePins: String { (data as NSString).deletingLastPathComponent + "/remote-pins.json" }

    /// `timbre paths --json`.
    public var json: JSONValue {
        .object([("config", .string(config)), ("cache", .string(cache)), ("log", .string(log)), ("credentials", .string(credentials)),
                 ("data", .string(data))])
    }
}
