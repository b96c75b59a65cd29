import Foundation
import TimbreAuth
import TimbreCore
import TimbreNet

/// `TIMBRE_RECORD=DIR` and `TIMBRE_REPLAY=DIR`: which transport Web API and accounts calls go
/// through (README "Reporting a bug").
enum ExchangeLog {
    /// The folder a variable names, relative to the working directory; nil when unset or blank.
    static func directory(_ environment: [String: String], _ variable: String) -> URL? {
        guard let text = environment[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return URL(fileURLWithPath: text)
    }

    /// What a recording has where a secret was, and what a replay signs in with (its refresh
    /// token; its client id when config.toml has none).
    static let placeholder = "REDACTED"
}

extension AppContext {
    /// The recording this run answers from (`TIMBRE_REPLAY`), if any.
    public var replayDirectory: URL? { ExchangeLog.directory(environment, "TIMBRE_REPLAY") }

    /// The folder this run records its exchanges in (`TIMBRE_RECORD`), if any.
    public var recordDirectory: URL? { ExchangeLog.directory(environment, "TIMBRE_RECORD") }

    /// What the executor sends through: the pinned transport; the same wrapped by a recorder
    /// (the pins stay in force: the recorder only watches); or, replaying, the recording alone —
    /// then no transport that could reach the network exists in this run.
    public func exchangeTransport() -> any HTTPTransport {
        if let replay = replayDirectory { return ReplayTransport(directory: replay) }
        let pinned = transport()
        if let record = recordDirectory { return RecordingTransport(inner: pinned, directory: record) }
        return pinned
    }

    /// A replay's secrets: a stand-in refresh token (`REDACTED`, as the recording has it), kept in
    /// this run's memory — a replay never reads or writes the keyring or the credentials file, so
    /// the redacted tokens it is answered with cannot replace a real sign-in.
    func replayVault(warnings: (@Sendable (String) -> Void)? = nil) -> CredentialVault {
        CredentialVault(profile: profile, refreshTier: .high,
                        environment: EnvironmentSecretStore(environment: [EnvironmentSecretStore.variable: ExchangeLog.placeholder]),
                        keyring: MemorySecretStore(), file: MemorySecretStore(), insecureStorage: false, warnings: warnings ?? console.warnings)
    }
}
