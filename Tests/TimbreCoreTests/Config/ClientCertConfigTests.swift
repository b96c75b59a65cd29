import Foundation
import Testing

@testable import TimbreCore

/// `[tls] client_cert` is the one mTLS key; a password in the file is refused, wherever it is.
@Suite struct ClientCertConfigTests {
    @Test func clientCertIsReadAndTildeExpanded() throws {
        #expect(try Config.parse("").tls.clientCert == nil)
        #expect(try Config.parse("[tls]\nclient_cert = \"/etc/timbre/me.p12\"").tls.clientCert == "/etc/timbre/me.p12")
        let home = NSHomeDirectory()
        #expect(try Config.parse("[tls]\nclient_cert = \"~/me.p12\"").tls.clientCert == home + "/me.p12")
    }

    @Test(arguments: [
        "[tls]\nclient_cert = \"/a.p12\"\nclient_cert_password = \"hunter2\"",
        "client_cert_password = \"hunter2\"\n[tls]\nclient_cert = \"/a.p12\"",
        "[tls]\nclient_cert_password = 12345",
    ])
    func aPasswordInTheFileIsRefusedWithWhereItGoes(_ text: String) {
        do {
            _ = try Config.parse(text, path: "/x/config.toml")
            Issue.record("expected a refusal for \(text)")
        } catch {
            #expect(
                error.message
                    == "config file /x/config.toml sets client_cert_password, which timbre never reads from a file: remove that line and put the PKCS#12 password in the environment variable TIMBRE_CLIENT_CERT_PASSWORD or in the keyring (README: Client certificates)"
            )
            #expect(!error.message.contains("hunter2") && !error.message.contains("12345"))
            #expect(error.exitStatus == .usage)
        }
    }

    @Test func anEmptyPathIsRefused() {
        #expect(throws: ConfigError.self) { try Config.parse("[tls]\nclient_cert = \" \"") }
    }
}
