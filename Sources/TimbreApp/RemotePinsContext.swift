import Foundation
import TimbreAuth
import TimbreCore
import TimbreNet

/// The signed remote pin set and the trust journal, as the composition root puts them together.
extension AppContext {
    /// Where the HMAC key for `[tls.remote] hmac = true` may come from instead of the keyring.
    public static let pinsHMACKeyVariable = "TIMBRE_PINS_HMAC_KEY"

    /// trust.jsonl under the state folder: every pin decision of this run's transports.
    public var trustJournal: TrustJournal { TrustJournal(path: paths.trustEvents) }

    public var remotePinStore: RemotePinStore { RemotePinStore(path: paths.remotePins) }

    /// The key pin documents must verify with: `[tls.remote] public_key`, or for `hmac = true` the
    /// key in `TIMBRE_PINS_HMAC_KEY`, else the keyring item of kind `pins_hmac_key` for this profile.
    public func remotePinKey() async throws(RemotePinError) -> PinDocumentKey {
        guard let remote = config.tls.remote else { throw .notConfigured }
        switch remote.key {
        case .publicKey(let path):
            return .publicKey(try SignerPublicKey.load(path: path))
        case .hmac:
            if let value = environment[Self.pinsHMACKeyVariable], !value.isEmpty {
                return .hmac(try HMACKey(bytes: Array(value.utf8), origin: Self.pinsHMACKeyVariable))
            }
            let secret: SecretBytes?
            do {
                secret = try await keyring().read(.pinsHMACKey, profile: profile)
            } catch {
                throw .keyUnusable("no HMAC key for pin documents: \(Self.pinsHMACKeyVariable) is unset and the keyring could not be read (\(error.message))")
            }
            guard let secret, !secret.isEmpty else {
                throw .keyUnusable("no HMAC key for pin documents: set \(Self.pinsHMACKeyVariable), or store it in the keyring (README: Pin updates)")
            }
            return .hmac(try HMACKey(bytes: secret.withUnsafeBytes { Array($0) }, origin: "the keyring"))
        }
    }

    /// The applied remote set, verified again with today's key. Never "no pins": anything wrong
    /// is `.ignored`, and config.toml and the shipped defaults apply.
    public func loadRemotePins(now: Date = Date()) async -> RemotePinStore.Loaded {
        let store = remotePinStore
        guard FileManager.default.fileExists(atPath: store.path) else { return .none }
        do {
            return store.load(key: try await remotePinKey(), now: now)
        } catch {
            return .ignored("the applied remote pin set \(store.path) cannot be verified (\(error.reason)); it is ignored")
        }
    }

    /// The rules of all three layers, given the remote set as loaded.
    public func pinPolicy(remote: RemotePinStore.Loaded) -> PinPolicySet {
        var settings = TransportSettings(config: config).pins
        if case .applied(let set) = remote { settings.remote = set.parsed.rules }
        return settings
    }

    /// What the transport calls once, on its first request: the remote rules, or none with a warning.
    func remotePinRules() async -> [PinRule] {
        switch await loadRemotePins() {
        case .none: return []
        case .applied(let set): return set.parsed.rules
        case .ignored(let reason):
            console.warning(reason)
            return []
        }
    }
}
