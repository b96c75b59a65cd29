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
        CredentialVault(
            profile: profile, refreshTier: .high,
            environment: EnvironmentSecretStore(environment: [EnvironmentSecretStore.variable: ExchangeLog.placeholder]),
            keyring: MemorySecretStore(), file: MemorySecretStore(), insecureStorage: false, warnings: warnings ?? console.warnings)
    }
}

/// A replayed run's state (`TIMBRE_REPLAY`): a throwaway copy of the profile's cache, journal and
/// applied pin set in a private temporary folder, which the run's paths point at. A replay's
/// answers are a recording's, not Spotify's: written into the real journal, a replayed edit could
/// later be "undone" for real by a live `timbre undo`. The copy is removed when the run ends.
public final class ReplayState: Sendable {
    public let folder: String

    private init(folder: String) { self.folder = folder }

    /// The invocation with its cache and user-data folders moved into the copy, and the copy; nil
    /// when the run is not a replay. Says on stderr that it works on a copy.
    public static func prepare(_ invocation: Invocation) throws -> (Invocation, ReplayState)? {
        guard let replay = ExchangeLog.directory(invocation.environment, "TIMBRE_REPLAY") else { return nil }
        let real = invocation.paths
        var template = Array((NSTemporaryDirectory() + "/timbre-replay-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw ReplayError.unreadable(
                directory: replay.path, detail: "no temporary folder for the replay's copy of the profile's state (\(String(cString: strerror(errno))))")
        }
        let state = ReplayState(folder: String(cString: made))
        var environment = invocation.environment
        environment["XDG_CACHE_HOME"] = state.folder + "/cache"
        environment["XDG_DATA_HOME"] = state.folder + "/data"
        let copy = Paths.resolve(environment: environment)
        do {
            try state.copy(real.cache, to: copy.cache, sideFiles: ["-wal"])
            try state.copy(real.data, to: copy.data, sideFiles: ["-wal", "-journal"])
            try state.copy(real.remotePins, to: copy.remotePins, sideFiles: [])
            try state.copy(RemotePinStore(path: real.remotePins).floorPath, to: RemotePinStore(path: copy.remotePins).floorPath, sideFiles: [])
        } catch {
            state.discard()
            throw ReplayError.unreadable(
                directory: replay.path, detail: "the profile's state could not be copied for the replay: \(error.localizedDescription)")
        }
        invocation.console.warning(
            "replaying \(replay.path): this run works on a throwaway copy of the profile's cache and journal, "
                + "removed when it ends — nothing it does changes the profile's own files")
        return (Invocation(console: invocation.console, environment: environment, services: invocation.services), state)
    }

    private func copy(_ source: String, to target: String, sideFiles: [String]) throws {
        let files = FileManager.default
        for suffix in [""] + sideFiles where files.fileExists(atPath: source + suffix) {
            try Paths.ensureParentDirectory(of: target)
            try files.copyItem(atPath: source + suffix, toPath: target + suffix)
        }
    }

    /// Removes the copy.
    public func discard() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
