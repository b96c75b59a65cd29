import Foundation
import TimbreCore

/// The secret stores of one run, in the order they are read.
///
/// Rules:
/// 1. `TIMBRE_REFRESH_TOKEN` (`EnvironmentSecretStore`) comes first and only answers for the
///    refresh token. It is read-only: writes and deletes are no-ops, so it is never written anywhere.
/// 2. The keyring (`LibSecretStore`) is next, always.
/// 3. The plain-text file (`FileSecretStore`) is read only when it exists or `--insecure-storage`
///    was given.
///
/// Writes go to the file with `--insecure-storage`, otherwise to the keyring (`writeStore`).
/// `deleteEverywhere` (logout) clears the keyring and the file, whichever hold something.
/// A keyring that is unreachable or times out does not hide a secret the file holds; when nothing
/// else answers, its error is thrown.
public struct SecretStores: Sendable {
    public let environment: EnvironmentSecretStore?
    public let keyring: LibSecretStore
    /// Always present so logout can clear it; in `readOrder` only under rule 3.
    public let file: FileSecretStore
    public let readOrder: [any SecretStore]
    public let writeStore: any SecretStore

    public init(environment: EnvironmentSecretStore?, keyring: LibSecretStore, file: FileSecretStore, insecureStorage: Bool) {
        self.environment = environment
        self.keyring = keyring
        self.file = file
        var order: [any SecretStore] = []
        if let environment { order.append(environment) }
        order.append(keyring)
        if insecureStorage || file.exists { order.append(file) }
        readOrder = order
        writeStore = insecureStorage ? file : keyring
    }

    public static func resolve(
        environment: [String: String], paths: Paths, insecureStorage: Bool,
        warn: @escaping @Sendable (String) -> Void = FileSecretStore.standardErrorSink
    ) -> SecretStores {
        SecretStores(
            environment: EnvironmentSecretStore(environment: environment),
            keyring: LibSecretStore(),
            file: FileSecretStore(path: paths.credentials, warn: warn),
            insecureStorage: insecureStorage)
    }

    /// The first secret found in `readOrder`, with where it came from.
    public func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> (secret: SecretBytes, source: SecretSource)? {
        var deferred: SecretStoreError?
        for store in readOrder {
            do {
                if let secret = try await store.read(kind, profile: profile) { return (secret, store.source) }
            } catch {
                switch error {
                case .serviceUnavailable, .timeout: deferred = deferred ?? error
                default: throw error
                }
            }
        }
        if let deferred { throw deferred }
        return nil
    }

    /// Removes the kind for the profile from the keyring and the file. Missing = fine; an
    /// unreachable keyring is only an error when the file did not exist either.
    public func deleteEverywhere(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        var keyringError: SecretStoreError?
        do { try await keyring.delete(kind, profile: profile) } catch { keyringError = error }
        let hadFile = file.exists
        try await file.delete(kind, profile: profile)
        if let keyringError {
            switch keyringError {
            case .serviceUnavailable where hadFile: return
            default: throw keyringError
            }
        }
    }
}
