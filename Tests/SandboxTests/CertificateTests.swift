import Foundation
import Testing
import TimbreTestSupport

@testable import SandboxCore

@Suite(.tags(.integration), .integrationTier) struct CertificateTests {
    static func shell(_ command: String) throws -> String {
        try ChildProcess.run(["/bin/sh", "-c", command]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func generatesAVerifiableChainWithOpenSSLCompatiblePins() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-certs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try SandboxCertificates.loadOrCreate(in: directory)

        for (file, pin) in [("ca.pem", certificates.pins.root), ("intermediate.pem", certificates.pins.intermediate), ("leaf.pem", certificates.pins.leaf)] {
            let expected = try Self.shell(
                "openssl x509 -in '\(directory)/\(file)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
            )
            #expect(pin == "sha256/" + expected)
        }
        let verify = try Self.shell("openssl verify -CAfile '\(directory)/ca.pem' -untrusted '\(directory)/intermediate.pem' '\(directory)/leaf.pem'")
        #expect(verify.hasSuffix(": OK"))
        let text = try Self.shell("openssl x509 -in '\(directory)/leaf.pem' -noout -text")
        #expect(text.contains("IP Address:127.0.0.1"))
        #expect(text.contains("DNS:localhost"))
        #expect(text.contains("TLS Web Server Authentication"))
        let root = try Self.shell("openssl x509 -in '\(directory)/ca.pem' -noout -text")
        #expect(root.contains("CA:TRUE"))
        #expect(root.contains("Certificate Sign, CRL Sign"))

        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/leaf.key")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let chainPins = try SPKIPin.pins(ofPEM: String(contentsOfFile: directory + "/chain.pem", encoding: .utf8))
        #expect(chainPins == [certificates.pins.leaf, certificates.pins.intermediate])

        // A second call reuses what is there.
        #expect(try SandboxCertificates.loadOrCreate(in: directory).pins == certificates.pins)
    }
}
