import TimbreAuth
import TimbreCore

/// The demo profile's keyring: none. Its secrets (a sandbox account's) live in the profile's
/// credentials file only — the refresh token and the session with its access token, so every
/// `timbre --profile demo …` reuses a valid access token instead of refreshing it (a keyring that
/// kept the session in one process's memory made each command send a token request).
struct DemoNoKeyring: SecretStore {
    let source: SecretSource = .keyring

    private var refusal: SecretStoreError { .serviceUnavailable(detail: "the demo profile keeps no secret in the keyring") }

    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? { throw refusal }

    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) { throw refusal }

    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) { throw refusal }
}
