import TimbreCore

/// `timbre paths`: where the config file, cache, log and credentials file of the profile live
/// (`--profile`; the JSON keys are the same for every profile, only the values differ).
public struct PathsCommand: Sendable {
    public var json: Bool

    public init(json: Bool) { self.json = json }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let paths = invocation.paths
        if json {
            invocation.console.json(paths.json)
        } else {
            invocation.console.lines([
                "profile:     \(ProfileName.text(in: invocation.environment))",
                "config:      \(paths.config)",
                "cache:       \(paths.cache)",
                "log:         \(paths.log)",
                "credentials: \(paths.credentials)",
                "data:        \(paths.data)",
            ])
        }
        return .success
    }
}
