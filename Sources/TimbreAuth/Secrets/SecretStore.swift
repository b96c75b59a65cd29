import TimbreCore

/// What timbre keeps secret, one entry per kind and profile.
public enum SecretKind: String, Sendable, CaseIterable {
    case refreshToken = "refresh_token"
    /// JSON with the access token, its expiry, user id/name and scopes (written by the token layer).
    case session
    case clientID = "client_id"
    /// The shared key `[tls.remote] hmac = true` verifies pin documents with. Not part of a sign-in:
    /// `timbre logout` leaves it.
    case pinsHMACKey = "pins_hmac_key"
    /// The password of `[tls] client_cert` (a PKCS#12 file). Not part of a sign-in either.
    case clientCertPassword = "client_cert_password"

    /// What `timbre logout` removes.
    public static let signIn: [SecretKind] = [.refreshToken, .session, .clientID]
}

/// Where a secret was found (`timbre auth status` shows it).
public enum SecretSource: String, Sendable {
    case keyring, file, env
}

/// One place secrets can live. Implementations: `LibSecretStore` (Secret Service), `FileSecretStore`
/// (`--insecure-storage`), `EnvironmentSecretStore` (`TIMBRE_REFRESH_TOKEN`, read-only).
public protocol SecretStore: Sendable {
    var source: SecretSource { get }
    /// The stored secret, or nil when this store holds none for that kind and profile.
    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes?
    /// Stores (or replaces) the secret. The tier decides how carefully a keyring keeps it; stores
    /// without tiers ignore it.
    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError)
    /// Removes that kind for the profile from every place this store could have put it (every tier).
    /// Missing = fine.
    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError)
}
