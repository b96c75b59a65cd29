import TimbreCore

/// `timbre paths`: every file the profile has — config, cache, log, credentials, user data (the
/// edit journal and folders), trust events and the applied remote pin set — whether it exists
/// yet or not (`--profile`; the JSON keys are the same for every profile, only the values differ).
public struct PathsCommand: Sendable {
    public var json: Bool

    public init(json: Bool) { self.json = json }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let paths = invocation.paths
        let files = Self.files(paths)
        if json {
            invocation.console.json(.object(files.map { ($0.key, .string($0.path)) }))
        } else {
            invocation.console.lines(
                ["profile:     \(ProfileName.text(in: invocation.environment))"]
                    + files.map { "\(($0.label + ":").padding(toLength: 12, withPad: " ", startingAt: 0)) \($0.path)" })
        }
        return .success
    }

    /// Each file: its `--json` key, its text label, its path.
    static func files(_ paths: Paths) -> [(key: String, label: String, path: String)] {
        [
            ("config", "config", paths.config), ("cache", "cache", paths.cache), ("log", "log", paths.log),
            ("credentials", "credentials", paths.credentials), ("data", "data", paths.data),
            ("journal", "journal", paths.data), ("trust", "trust", paths.trustEvents), ("remote_pins", "remote pins", paths.remotePins),
        ]
    }
}
