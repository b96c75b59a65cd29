import TimbreCore

/// The pins timbre ships for the Spotify hosts (`Resources/default-pins.toml`, provenance in
/// `Resources/PINS.md`). Embedded in the binary so an installed `timbre` needs no resource files.
public enum DefaultPins {
    /// Byte-for-byte the content of Resources/default-pins.toml; a test checks it.
    public static let toml = #"""
        # Default certificate pins for the Spotify hosts. timbre applies them unless config.toml has its
        # own [[tls.pin]] table for the host. Provenance and the rotation guide: Resources/PINS.md.
        # Keep in sync with Sources/TimbreNet/DefaultPins.swift (a test compares them).

        [[tls.pin]]
        host = "accounts.spotify.com"
        pins = [
          "sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=", # DigiCert Global Root G2 (primary)
          "sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", # DigiCert Global Root CA (backup)
          "sha256/uUwZgwDOxcBXrQcntwu+kYFpkiVkOaezL0WYEZ3anJc=", # DigiCert Global Root G3 (backup)
        ]
        scope = "root"
        mode = "strict"

        [[tls.pin]]
        host = "api.spotify.com"
        pins = [
          "sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=", # DigiCert Global Root G2 (primary)
          "sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", # DigiCert Global Root CA (backup)
          "sha256/uUwZgwDOxcBXrQcntwu+kYFpkiVkOaezL0WYEZ3anJc=", # DigiCert Global Root G3 (backup)
        ]
        scope = "root"
        mode = "strict"
        """#

    /// Parsed once. The text is ours and covered by a test, so a failure here is a build defect.
    public static let rules: [PinRule] = {
        do {
            return try Config.parse(toml, path: "Resources/default-pins.toml").tls.pins
        } catch {
            preconditionFailure("shipped default pins do not parse: \(error)")
        }
    }()
}
