import TimbreCore

/// Everything that can go wrong keeping a secret. Exit status `.failure` unless said otherwise.
public enum SecretStoreError: UserFacingError, Equatable {
    /// No Secret Service is reachable (no D-Bus session, nobody provides org.freedesktop.secrets).
    /// `detail` is libsecret's own message, for logs and `timbre doctor`, never the headline.
    ///
    /// Callers downgrade this for the `standard` tier: such secrets (client id, access-token
    /// session) may then be kept in memory only for the run. `high` and `sensitive` secrets have no
    /// fallback, so it reaches the user with the fixes in `hint`.
    case serviceUnavailable(detail: String)
    /// The default collection (login keyring) is locked and timbre cannot store or read there.
    case locked(detail: String)
    /// The keyring did not answer within the deadline (a hung Secret Service).
    case timeout(seconds: Double)
    /// The `timbre-sensitive` collection stayed locked (unlock prompt dismissed or impossible).
    /// Exit status `.authenticationRequired`.
    case sensitiveLocked(detail: String)
    /// The `timbre-sensitive` collection was missing and could not be created.
    case sensitiveCollectionUnavailable(detail: String)
    /// Any other refusal by the Secret Service.
    case keyring(detail: String)
    /// `--insecure-storage` file readable by group or others.
    case unsafePermissions(path: String, mode: UInt16)
    /// The credentials file could not be read or written.
    case fileIO(path: String, detail: String)
    /// The credentials file is not the JSON timbre writes.
    case malformedFile(path: String, detail: String)

    public var message: String {
        switch self {
        case .serviceUnavailable:
            return "No keyring (Secret Service) is reachable to keep your Spotify credentials."
        case .locked:
            return "Your login keyring is locked, so timbre cannot use the credentials kept there."
        case .timeout(let seconds):
            return "The keyring (Secret Service) did not answer within \(Self.format(seconds)) seconds."
        case .sensitiveLocked:
            return "unlock the timbre-sensitive keyring to use your Spotify session"
        case .sensitiveCollectionUnavailable(let detail):
            return "timbre could not create the timbre-sensitive keyring: \(detail)"
        case .keyring(let detail):
            return "The keyring refused the request: \(detail)"
        case .unsafePermissions(let path, let mode):
            return "Refusing to read \(path): other users can read it (mode \(String(mode, radix: 8)))."
        case .fileIO(let path, let detail):
            return "Cannot use the credentials file \(path): \(detail)"
        case .malformedFile(let path, let detail):
            return "The credentials file \(path) is not valid: \(detail)"
        }
    }

    public var hint: String? {
        switch self {
        case .serviceUnavailable:
            return "install and unlock a keyring (gnome-keyring, or KeePassXC with its Secret Service integration), "
                + "or set TIMBRE_REFRESH_TOKEN for headless runs, "
                + "or run `timbre login --insecure-storage` to keep the token in a plain-text file"
        case .locked:
            return "unlock your login keyring (log in to your desktop session, or unlock it in Seahorse / your keyring app), then try again"
        case .timeout:
            return "check that your keyring daemon is running and responsive (e.g. restart gnome-keyring-daemon), then try again"
        case .sensitiveLocked:
            return "run the command again and unlock the timbre-sensitive keyring when your desktop asks"
        case .sensitiveCollectionUnavailable:
            return "accept the keyring's prompt to create it, or set secret_tier_refresh_token = \"high\" in config.toml"
        case .keyring:
            return nil
        case .unsafePermissions(let path, _):
            return "run `chmod 600 \(path)` if the file is yours, then try again"
        case .fileIO, .malformedFile:
            return "run `timbre logout` to remove it, then `timbre login --insecure-storage` again"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .sensitiveLocked: return .authenticationRequired
        default: return .failure
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
