import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

@Suite struct DefaultPinsTests {
    @Test func embeddedPinsMatchTheResourcesFile() throws {
        let file = try String(contentsOf: Repo.root.appendingPathComponent("Resources/default-pins.toml"), encoding: .utf8)
        #expect(DefaultPins.toml.trimmingCharacters(in: .whitespacesAndNewlines) == file.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func spotifyHostsArePinnedWithAPrimaryAndBackups() throws {
        for host in ["api.spotify.com", "accounts.spotify.com"] {
            let rule = try #require(PinPolicySet(configured: [], defaults: DefaultPins.rules).rule(for: host))
            #expect(rule.pins.count >= 2)
            #expect(rule.mode == .strict)
        }
        #expect(PinPolicySet(configured: [], defaults: DefaultPins.rules).rule(for: "example.com") == nil)
    }

    static let debianBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// Skipped, not passed, where the bundle is missing.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: DefaultPinsTests.debianBundle), "no CA bundle at \(DefaultPinsTests.debianBundle)"))
    func defaultPinsNameCertificatesShippedInDebiansStore() throws {
        // The provenance claim in Resources/PINS.md: each default pin is a root in ca-certificates.
        let bundle = Self.debianBundle
        let roots = Set(Certificate.describeFileChain(try Certificate.parsePEM(Data(contentsOf: URL(fileURLWithPath: bundle)))).map(\.pin))
        for rule in DefaultPins.rules {
            for pin in rule.pins { #expect(roots.contains(pin), "\(pin) for \(rule.host) is not in \(bundle)") }
        }
    }
}
