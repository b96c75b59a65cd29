import Foundation
import Testing

@testable import TimbreCore

/// `[tls.remote]` in config.toml, and the three layers of pin rules.
@Suite struct RemotePinConfigTests {
    @Test func publicKeyAndHMACFormsParse() throws {
        let signed = try Config.parse(
            """
            [tls.remote]
            url = "https://pins.example.org/timbre-pins.json"
            public_key = "/etc/timbre/signer.pem"
            """)
        #expect(
            signed.tls.remote
                == RemotePinSettings(url: URL(string: "https://pins.example.org/timbre-pins.json"), key: .publicKey(path: "/etc/timbre/signer.pem")))
        #expect(signed.tls.remote?.signatureURL?.absoluteString == "https://pins.example.org/timbre-pins.json.sig")
        #expect(signed.tls.remote?.allowHostRemoval == false)

        let hmac = try Config.parse(
            """
            [tls.remote]
            hmac = true
            allow_host_removal = true
            """)
        #expect(hmac.tls.remote == RemotePinSettings(url: nil, key: .hmac, allowHostRemoval: true))
        #expect(try Config.parse("").tls.remote == nil)
    }

    @Test(arguments: [
        ("[tls.remote]\nurl = \"https://p.example/x.json\"", "needs public_key"),
        ("[tls.remote]\nhmac = false", "timbre never applies an unsigned pin document"),
        ("[tls.remote]\npublic_key = \"/k.pem\"\nhmac = true", "sets both public_key and hmac = true"),
        ("[tls.remote]\nurl = \"http://p.example/x.json\"\nhmac = true", "tls.remote.url = \"http://p.example/x.json\" must be an https:// URL"),
        ("[tls.remote]\npublic_key = \" \"", "tls.remote.public_key is empty"),
        ("[tls.remote]\nhmac = \"yes\"", "tls.remote.hmac"),
    ])
    func badRemoteTablesAreRefusedWithTheReason(text: String, expected: String) {
        let error = #expect(throws: ConfigError.self) { try Config.parse(text) }
        #expect(error?.message.contains(expected) == true, "\(String(describing: error?.message))")
        #expect(error?.exitStatus == .usage)
    }

    static func rule(_ host: String, _ byte: UInt8) -> PinRule {
        PinRule(host: HostPattern(host)!, pins: [SPKIPin(digest: [UInt8](repeating: byte, count: 32))])
    }

    @Test func configBeatsRemoteBeatsDefaults() {
        let set = PinPolicySet(
            configured: [Self.rule("a.example.com", 1)],
            remote: [Self.rule("a.example.com", 2), Self.rule("b.example.com", 2), Self.rule("*.example.net", 2)],
            defaults: [Self.rule("b.example.com", 3), Self.rule("c.example.com", 3), Self.rule("x.example.net", 3)])
        #expect(set.resolve("a.example.com")?.origin == .config)
        #expect(set.rule(for: "a.example.com") == Self.rule("a.example.com", 1))
        #expect(set.resolve("b.example.com")?.origin == .remote)
        #expect(set.rule(for: "b.example.com") == Self.rule("b.example.com", 2))
        #expect(set.resolve("c.example.com")?.origin == .default)
        // The remote layer's wildcard comes before the defaults' exact rule: layers first, then patterns.
        #expect(set.resolve("x.example.net")?.origin == .remote)
        #expect(set.rule(for: "d.example.com") == nil)
        #expect(
            set.effectiveRules.map { "\($0.rule.host.text) \($0.origin.rawValue)" }
                == ["a.example.com config", "b.example.com remote", "*.example.net remote", "c.example.com default", "x.example.net default"])
    }

    @Test func pathsForTheJournalAndTheAppliedSet() {
        let paths = Paths.resolve(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d"])
        #expect(paths.trustEvents == "/s/timbre/trust.jsonl")
        #expect(paths.remotePins == "/d/timbre/remote-pins.json")
        #expect(Paths.resolve(environment: ["HOME": "/home/u"]).trustEvents == "/home/u/.local/state/timbre/trust.jsonl")
    }
}
