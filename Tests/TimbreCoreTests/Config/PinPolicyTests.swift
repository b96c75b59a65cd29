import Testing

@testable import TimbreCore

@Suite struct HostPatternTests {
    @Test func exactHostMatchesCaseInsensitivelyAndIgnoresTrailingDot() throws {
        let pattern = try #require(HostPattern("API.Spotify.com"))
        #expect(pattern.matches("api.spotify.com"))
        #expect(pattern.matches("api.spotify.com."))
        #expect(!pattern.matches("accounts.spotify.com"))
        #expect(!pattern.matches("xapi.spotify.com"))
    }

    @Test(arguments: [
        ("api.spotify.com", "api.spotify.com"), ("API.Spotify.COM.", "api.spotify.com"), (" api.spotify.com\t", "api.spotify.com"),
        ("127.0.0.1", "127.0.0.1"), ("[::1]", "::1"), ("::1", "::1"), ("a-b.example.", "a-b.example"), ("", ""),
        ("ÄPI.example", "äpi.example"),
    ])
    func hostsAreNormalizedAlikeWithOrWithoutTheFastPath(_ host: String, _ expected: String) {
        #expect(HostPattern.normalize(host) == expected)
    }

    @Test func wildcardMatchesExactlyOneLabel() throws {
        let pattern = try #require(HostPattern("*.example.com"))
        #expect(pattern.matches("a.example.com"))
        #expect(!pattern.matches("example.com"))
        #expect(!pattern.matches("a.b.example.com"))
        #expect(!pattern.matches(".example.com"))
        #expect(!pattern.matches("aexample.com"))
    }

    @Test func ipAddressesMatchExactly() throws {
        #expect(try #require(HostPattern("127.0.0.1")).matches("127.0.0.1"))
        #expect(!(try #require(HostPattern("127.0.0.1")).matches("127.0.0.10")))
        #expect(try #require(HostPattern("[::1]")).matches("::1"))
    }

    @Test(arguments: ["", "*", "*.com", "a.*.com", "**.example.com", "exa mple.com", "https://x.com", "*example.com"])
    func rejectsMalformedPatterns(_ text: String) {
        #expect(HostPattern(text) == nil)
    }
}

@Suite struct SPKIPinTests {
    @Test func parsesSha256Base64() throws {
        let pin = try #require(SPKIPin("sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY="))
        #expect(pin.digest.count == 32)
        #expect(pin.description == "sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=")
    }

    @Test(arguments: [
        "i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=",  // no prefix
        "sha1/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=",  // wrong hash
        "sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl",  // too short
        "sha256/not base64!!",
        "sha256/" + String(repeating: "A", count: 60),
    ])
    func rejectsMalformedPins(_ text: String) {
        #expect(SPKIPin(text) == nil)
    }
}

@Suite struct PinPolicySetTests {
    let pinA = SPKIPin(digest: Array(repeating: 1, count: 32))
    let pinB = SPKIPin(digest: Array(repeating: 2, count: 32))

    @Test func configuredRuleOverridesDefaultForSameHost() throws {
        let set = PinPolicySet(
            configured: [PinRule(host: try #require(HostPattern("api.spotify.com")), pins: [pinA])],
            defaults: [
                PinRule(host: try #require(HostPattern("api.spotify.com")), pins: [pinB]),
                PinRule(host: try #require(HostPattern("accounts.spotify.com")), pins: [pinB]),
            ])
        #expect(set.rule(for: "api.spotify.com")?.pins == [pinA])
        #expect(set.rule(for: "accounts.spotify.com")?.pins == [pinB])
        #expect(set.rule(for: "evil.example") == nil)
    }

    @Test func exactRuleBeatsEarlierWildcard() throws {
        let set = PinPolicySet(configured: [
            PinRule(host: try #require(HostPattern("*.example.com")), pins: [pinA]),
            PinRule(host: try #require(HostPattern("api.example.com")), pins: [pinB]),
        ])
        #expect(set.rule(for: "api.example.com")?.pins == [pinB])
        #expect(set.rule(for: "www.example.com")?.pins == [pinA])
    }
}
