import TimbreCore

/// Why a connection was not trusted. Every case ends the process with exit code 5.
public struct TrustFailure: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// No `[[tls.pin]]` rule (nor a shipped default) covers the host.
        case noPolicy
        /// The chain verified, but none of its keys in the rule's scope matched a pin.
        case pinMismatch(expected: [SPKIPin], scope: PinScope, presented: [ChainEntry])
        /// Ordinary chain or hostname verification failed.
        case certificateInvalid(String)
        /// The server would not speak the minimum TLS version.
        case protocolTooOld(minimum: TLSVersion, detail: String)
        /// The configured CA file could not be loaded.
        case caFileUnusable(String)
        /// `[tls] client_cert` could not be loaded; nothing was sent.
        case clientCertificate(ClientCertificateError)
        /// The server ended the handshake after timbre presented its client certificate.
        case clientCertificateRejected(subject: String, path: String, alert: String)
        /// The server asked for a client certificate, none is configured, and it ended the handshake.
        case clientCertificateRequired(alert: String)
    }

    public var host: String
    public var reason: Reason

    public init(host: String, reason: Reason) {
        self.host = host
        self.reason = reason
    }
}

/// Failures below HTTP: no response was received.
public enum TransportError: UserFacingError, Equatable {
    case trust(TrustFailure)
    /// The connection failed, was reset, or timed out. `retryable` says whether sending again
    /// could help.
    case connection(host: String, kind: ConnectionFailureKind, detail: String)
    case invalidRequest(String)
    case responseTooLarge(host: String, limit: Int)

    public enum ConnectionFailureKind: String, Sendable, Equatable {
        case refused, dns, reset, timeout, tls, other
    }

    public var isRetryable: Bool {
        guard case .connection(_, let kind, _) = self else { return false }
        return kind != .dns && kind != .tls
    }

    public var exitStatus: ExitStatus {
        if case .trust = self { return .trustFailure }
        return .failure
    }

    public var message: String {
        switch self {
        case .trust(let failure):
            switch failure.reason {
            case .noPolicy:
                return "refused to connect to \(failure.host): no certificate pin policy covers this host"
            case .pinMismatch(let expected, let scope, let presented):
                let got = presented.map { "\($0.position.rawValue) \($0.pin)" }.joined(separator: ", ")
                return
                    "TLS trust failure for \(failure.host): no certificate (scope \(scope.rawValue)) matches the \(expected.count) pinned key(s); the server presented \(got)"
            case .certificateInvalid(let detail):
                return "TLS trust failure for \(failure.host): the certificate is not valid for this host (\(TerminalText.preview(detail)))"
            case .protocolTooOld(let minimum, let detail):
                return "TLS trust failure for \(failure.host): the server does not offer TLS \(minimum.rawValue) or newer (\(TerminalText.preview(detail)))"
            case .caFileUnusable(let detail):
                return "TLS trust failure for \(failure.host): the CA file could not be used (\(TerminalText.preview(detail)))"
            case .clientCertificate(let error):
                return error.message
            case .clientCertificateRejected(let subject, let path, let alert):
                return "\(failure.host) rejected the client certificate \(subject) from \(TerminalText.preview(path)) (TLS alert: \(alert))"
            case .clientCertificateRequired(let alert):
                return
                    "the server asked for a client certificate; set [tls] client_cert in config.toml to your PKCS#12 file (\(failure.host) ended the handshake: \(alert))"
            }
        case .connection(let host, let kind, let detail):
            let what: String
            switch kind {
            case .refused: what = "the connection was refused"
            case .dns: what = "the host name could not be resolved"
            case .reset: what = "the connection was dropped"
            case .timeout: what = "the request timed out"
            case .tls: what = "the TLS handshake failed"
            case .other: what = "the request failed"
            }
            return "cannot reach \(host): \(what) (\(TerminalText.preview(detail)))"
        case .invalidRequest(let detail):
            return "invalid request: \(detail)"
        case .responseTooLarge(let host, let limit):
            return "\(host) sent a response larger than \(limit / 1_048_576) MiB; refused"
        }
    }

    public var hint: String? {
        switch self {
        case .trust(let failure):
            switch failure.reason {
            case .noPolicy:
                return "add a [[tls.pin]] table for \(failure.host) to config.toml; `timbre pins https://\(failure.host)` prints the pins of its chain"
            case .pinMismatch:
                return
                    "if the certificates were rotated legitimately, check them with `timbre pins https://\(failure.host)` and update [[tls.pin]] in config.toml"
            case .certificateInvalid, .caFileUnusable:
                return "check the system clock and [tls] ca_file in config.toml"
            case .protocolTooOld:
                return "the server must support TLS 1.2 or newer; tls.min_version in config.toml sets the minimum"
            case .clientCertificate(let error):
                return error.hint
            case .clientCertificateRejected:
                return "check that the server trusts the certificate's issuer and accepts this certificate; `timbre doctor` shows its subject and expiry"
            case .clientCertificateRequired:
                return "README: Client certificates shows how to make a .p12 file and where its password goes"
            }
        case .connection:
            return "check your network connection, then try again"
        default:
            return nil
        }
    }
}
