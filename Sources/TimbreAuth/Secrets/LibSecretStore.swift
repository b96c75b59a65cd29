import CLibSecret
import Foundation
import TimbreCore

/// Secrets in the desktop keyring, through libsecret and the Secret Service D-Bus API. It and its
/// `KeyringSession` (KeyringSession.swift) are the only owners of libsecret/GLib pointers: none
/// leaves those two files.
///
/// Items use the schema `io.github.timbre.Secret` with the attributes `profile`, `kind` and `tier`;
/// labels name the kind and profile, never the value ("timbre refresh token (profile default)").
///
/// Tiers:
/// - `standard`, `high`: the default collection (the login keyring). A missing service is
///   `.serviceUnavailable`; callers may keep `standard` secrets in memory only then, never `high` ones.
/// - `sensitive`: a collection labelled `timbre-sensitive`, created when missing (the keyring prompts
///   for its password) and locked again after every use, so every read needs the user to unlock it
///   (`.sensitiveLocked`, exit 4, when that does not happen).
///
/// A write removes the kind for the profile from the other tiers, so one copy exists; a read prefers
/// the `sensitive` copy, then `high`, then `standard`.
///
/// Every D-Bus exchange runs on a thread of its own and is cancelled after `timeout` (3 s) with
/// `.timeout`. Waiting for the user at an unlock or create prompt gets `promptTimeout` instead.
public struct LibSecretStore: SecretStore {
    public static let schemaName = "io.github.timbre.Secret"
    public static let sensitiveCollectionLabel = "timbre-sensitive"

    public var source: SecretSource { .keyring }
    public let timeout: Double
    public let promptTimeout: Double

    public init(timeout: Double = 3, promptTimeout: Double = 120) {
        self.timeout = timeout
        self.promptTimeout = promptTimeout
    }

    public func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        let session = KeyringSession()
        let found = try await phase(session, timeout) { () throws(SecretStoreError) -> ReadPlan in
            try session.connect()
            let items = try session.search(profile: profile, kind: kind)
            guard let best = items.max(by: { $0.tier.rank < $1.tier.rank }) else { return .none }
            if best.tier == .sensitive {
                session.target = best.object
                return try session.prepareSensitive(create: false) ? .sensitive : .none
            }
            guard !best.locked else { throw .locked(detail: "the item is in a locked collection") }
            return .secret(try session.loadSecret(best.object))
        }
        switch found {
        case .none: return nil
        case .secret(let bytes): return bytes
        case .sensitive:
            try await unlockSensitiveIfNeeded(session)
            return try await phase(session, timeout) { () throws(SecretStoreError) -> SecretBytes in
                defer { session.lockSensitive() }
                guard let item = session.target else { throw .keyring(detail: "the item disappeared") }
                return try session.loadSecret(item)
            }
        }
    }

    public func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {
        let session = KeyringSession()
        let label = Self.label(kind: kind, profile: profile)
        guard tier == .sensitive else {
            let lockedCopies = try await phase(session, timeout) { () throws(SecretStoreError) -> Bool in
                try session.connect()
                try session.store(secret, profile: profile, kind: kind, tier: tier, label: label, collection: "default")
                return try session.removeCopies(profile: profile, kind: kind, except: tier)
            }
            if lockedCopies { try await removeLockedSensitiveCopies(session, profile: profile, kind: kind) }
            return
        }
        let exists = try await phase(session, timeout) { () throws(SecretStoreError) -> Bool in
            try session.connect()
            return try session.prepareSensitive(create: false)
        }
        if !exists {
            try await phase(session, promptTimeout) { () throws(SecretStoreError) in
                _ = try session.prepareSensitive(create: true)
            }
        }
        try await unlockSensitiveIfNeeded(session)
        try await phase(session, timeout) { () throws(SecretStoreError) in
            defer { session.lockSensitive() }
            guard let path = session.sensitivePath else { throw .sensitiveCollectionUnavailable(detail: "it disappeared") }
            try session.store(secret, profile: profile, kind: kind, tier: .sensitive, label: label, collection: path)
            _ = try session.removeCopies(profile: profile, kind: kind, except: .sensitive)
        }
    }

    public func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        let session = KeyringSession()
        let lockedCopies = try await phase(session, timeout) { () throws(SecretStoreError) -> Bool in
            try session.connect()
            return try session.removeCopies(profile: profile, kind: kind, except: nil)
        }
        if lockedCopies { try await removeLockedSensitiveCopies(session, profile: profile, kind: kind) }
    }

    /// The keyring refuses to delete a locked item, so removing a `sensitive` copy needs the user to
    /// unlock the collection too; it is locked again afterwards.
    private func removeLockedSensitiveCopies(_ session: KeyringSession, profile: String, kind: SecretKind) async throws(SecretStoreError) {
        guard try await phase(session, timeout, { () throws(SecretStoreError) -> Bool in try session.prepareSensitive(create: false) })
        else { return }
        try await unlockSensitiveIfNeeded(session)
        try await phase(session, timeout) { () throws(SecretStoreError) in
            defer { session.lockSensitive() }
            if try session.removeCopies(profile: profile, kind: kind, except: nil) {
                throw .sensitiveLocked(detail: "the collection is still locked")
            }
        }
    }

    /// The item label: what and whose, never the value.
    public static func label(kind: SecretKind, profile: String) -> String {
        let what: String
        switch kind {
        case .refreshToken: what = "refresh token"
        case .session: what = "session"
        case .clientID: what = "client id"
        case .pinsHMACKey: what = "pin document HMAC key"
        case .clientCertPassword: what = "client certificate password"
        }
        return "timbre \(what) (profile \(profile))"
    }

    private enum ReadPlan: Sendable {
        case none
        case secret(SecretBytes)
        case sensitive
    }

    private func unlockSensitiveIfNeeded(_ session: KeyringSession) async throws(SecretStoreError) {
        guard session.sensitiveLocked else { return }
        do {
            try await phase(session, promptTimeout) { () throws(SecretStoreError) in try session.unlockSensitive() }
        } catch .timeout {
            throw .sensitiveLocked(detail: "no unlock within \(Int(promptTimeout)) s")
        }
    }

    private func phase<T: Sendable>(
        _ session: KeyringSession, _ seconds: Double, _ work: @escaping @Sendable () throws(SecretStoreError) -> T
    ) async throws(SecretStoreError) -> T {
        try await runWithDeadline(seconds: seconds, cancel: { session.cancel() }, work)
    }
}

extension SecretTier {
    fileprivate var rank: Int {
        switch self {
        case .standard: return 0
        case .high: return 1
        case .sensitive: return 2
        }
    }
}
