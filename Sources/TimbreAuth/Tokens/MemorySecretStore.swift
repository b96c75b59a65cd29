import TimbreCore

/// Secrets that live only as long as the process: the demo's throwaway profile, and tests.
public final class MemorySecretStore: SecretStore, Sendable {
    public let source: SecretSource = .keyring
    private let values = Locked<[String: [UInt8]]>([:])

    public init() {}

    public func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        values.current["\(profile)/\(kind.rawValue)"].map { SecretBytes(bytes: $0) }
    }

    public func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {
        let bytes = secret.withUnsafeBytes { Array($0) }
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = bytes }
    }

    public func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = nil }
    }
}
