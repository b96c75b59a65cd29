import Foundation
import TimbreCore

/// `TIMBRE_REFRESH_TOKEN`: a refresh token given for this run (CI, headless servers). Read-only:
/// writes and deletes are no-ops, so the token is never written anywhere.
public struct EnvironmentSecretStore: SecretStore {
    public static let variable = "TIMBRE_REFRESH_TOKEN"
    public var source: SecretSource { .env }
    private let token: String?

    /// nil when the variable is unset or empty (then the store has nothing to offer).
    public init?(environment: [String: String]) {
        guard let token = environment[Self.variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            return nil
        }
        self.token = token
    }

    public func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        guard kind == .refreshToken, let token else { return nil }
        return SecretBytes(token)
    }

    public func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {}

    public func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {}
}
