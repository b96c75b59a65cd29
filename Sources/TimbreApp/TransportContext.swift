import Foundation
import TimbreAuth
import TimbreCore
import TimbreNet

/// What the transport takes from the run besides config.toml: the proxy (from this invocation's
/// environment, never the process's) and the client certificate's password.
extension AppContext {
    /// The password of `[tls] client_cert`; else the keyring item of kind `client_cert_password`.
    public static let clientCertPasswordVariable = "TIMBRE_CLIENT_CERT_PASSWORD"

    /// config.toml's TLS settings and pins, the applied remote pin set, the proxy and the client certificate.
    func transportSettings() -> TransportSettings {
        var settings = TransportSettings(config: config, remotePins: { [self] in await remotePinRules() })
        settings.proxy = ProxySettings(environment: environment)
        settings.clientCertificate = clientCertificateSettings
        return settings
    }

    /// `[tls] client_cert` with its password lookup; nil when none is configured.
    public var clientCertificateSettings: ClientCertificateSettings? {
        guard let path = config.tls.clientCert else { return nil }
        return ClientCertificateSettings(path: path, passwordHelp: clientCertPasswordHelp) { [self] in await clientCertificatePassword() }
    }

    /// Where the password goes, naming this profile's keyring item.
    var clientCertPasswordHelp: String {
        "set \(Self.clientCertPasswordVariable) or store it in the keyring with "
            + "`secret-tool store --label='timbre client certificate password' xdg:schema \(LibSecretStore.schemaName) "
            + "profile \(profile) kind \(SecretKind.clientCertPassword.rawValue) tier high` (it reads the password from standard input)"
    }

    /// TIMBRE_CLIENT_CERT_PASSWORD, else the keyring; never config.toml or the command line.
    func clientCertificatePassword() async -> ClientCertificatePassword {
        if let value = environment[Self.clientCertPasswordVariable], !value.isEmpty {
            return .found(bytes: Array(value.utf8), origin: Self.clientCertPasswordVariable)
        }
        do {
            guard let secret = try await keyring().read(.clientCertPassword, profile: profile), !secret.isEmpty else {
                return .missing(note: nil)
            }
            return .found(bytes: secret.withUnsafeBytes { Array($0) }, origin: "the keyring")
        } catch {
            return .missing(
                note:
                    "\(Self.clientCertPasswordVariable) is unset and the keyring could not be read: \(error.message.trimmingCharacters(in: CharacterSet(charactersIn: ".")))"
            )
        }
    }
}
