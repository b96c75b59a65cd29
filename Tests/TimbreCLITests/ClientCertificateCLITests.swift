import Foundation
import Testing
import TimbreAuth
import TimbreCore
import TimbreTestSupport

/// Client certificates made by the openssl CLI (Tests/Fixtures/make-client-pki.sh), independent of
/// timbre's own code, with a password of this run's making.
struct ClientPKI: Sendable {
    let directory: URL
    let password: String

    func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The sandbox's side: the CA it trusts, and a certificate its control calls present.
    var sandboxTLS: SandboxClientTLS {
        SandboxClientTLS(caFile: file("client-ca.pem"), certificateFile: file("client.pem"), keyFile: file("client.key"))
    }

    static func make() async throws -> ClientPKI {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-client-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let password = "p12-" + UUID().uuidString
        try Data(password.utf8).write(to: directory.appendingPathComponent("p12-password"))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/make-client-pki.sh").path
        let result = try await offThePool { try ChildProcess.run(["/bin/bash", script, directory.path], mergeStderr: true) }
        guard result.status == 0 else { throw FixtureFailure("make-client-pki.sh: \(result.output)") }
        return ClientPKI(directory: directory, password: password)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// `[tls] client_cert` against a sandbox that requires client certificates (`serve --client-ca`),
/// over real TLS on loopback.
@Suite(.serialized, .tags(.integration), .integrationTier) struct ClientCertificateCLITests {
    struct Setup {
        let sandbox: SandboxProcess
        let cli: TimbreCLI
        let pki: ClientPKI

        /// The trust events of the profile this CLI runs in.
        var journal: URL { URL(fileURLWithPath: Paths.resolve(environment: cli.environment).trustEvents) }

        /// config.toml for the sandbox, with `client_cert` in [tls] when given.
        func configure(clientCert: String?, pin: String? = nil) throws {
            var text = sandbox.info.configTOML(pins: pin.map { [$0] }, top: "client_id = \"\(sandbox.info.clientID)\"\nredirect_port = 0")
            if let clientCert { text = text.replacingOccurrences(of: "[tls]\n", with: "[tls]\nclient_cert = \"\(clientCert)\"\n") }
            try cli.writeConfig(text)
        }

        /// trust.jsonl's lines of one kind, as objects.
        func events(_ kind: String) -> [[String: Any]] {
            let text = (try? String(contentsOf: journal, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.filter { $0["event"] as? String == kind }
        }
    }

    func withSetup(latencyMs: Int = 0, _ body: (Setup) async throws -> Void) async throws {
        let pki = try await ClientPKI.make()
        try await withCleanup({ pki.remove() }) {
            let sandbox = try await SandboxProcess.start(
                extraArguments: ["--refresh-rotation", "same", "--latency-ms", String(latencyMs)],
                clientTLS: pki.sandboxTLS)
            try await withCleanup({ await sandbox.stop() }) {
                let cli = try TimbreCLI(extraEnvironment: [
                    "TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken(),
                    // Its own keyring entries: nothing of another test's profile is found or left.
                    "TIMBRE_PROFILE": "mtls-\(UUID().uuidString.prefix(8))",
                ])
                let setup = Setup(sandbox: sandbox, cli: cli, pki: pki)
                try setup.configure(clientCert: pki.file("client.p12"))
                try await withCleanup({ cli.remove() }) { try await body(setup) }
            }
        }
    }

    @Test func aSyncWorksWithTheRightCertificateAndPassword() async throws {
        try await withSetup { s in
            let result = await s.cli.invoke(["sync", "--quiet"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            #expect(result.status == 0, "\(result.stderr)")
            let logged = try await s.sandbox.requests()
            #expect(logged.contains { $0.path == "/v1/me/playlists" })
            let used = s.events("client_cert_used")
            #expect(!used.isEmpty)
            #expect(used.allSatisfy { $0["detail"] as? String == "presented CN=timbre test client" && $0["host"] as? String == "127.0.0.1" })
            #expect(s.events("client_cert_rejected").isEmpty)
        }
    }

    @Test func thePasswordMayComeFromTheKeyring() async throws {
        try await withSetup { s in
            let profile = s.cli.environment["TIMBRE_PROFILE"] ?? ""
            try await LibSecretStore().write(SecretBytes(s.pki.password), kind: .clientCertPassword, tier: .high, profile: profile)
            try await withCleanup({ try? await LibSecretStore().delete(.clientCertPassword, profile: profile) }) {
                let result = await s.cli.invoke(["sync", "--quiet"])
                #expect(result.status == 0, "\(result.stderr)")
                // `timbre logout` signs out; the certificate's password is not part of a sign-in.
                #expect(await s.cli.invoke(["logout"]).status == 0)
                let kept = try await LibSecretStore().read(.clientCertPassword, profile: profile)
                #expect(kept != nil)
            }
        }
    }

    @Test func aWrongPasswordFailsWithExit5AndNothingReachesTheServer() async throws {
        try await withSetup { s in
            try await s.sandbox.clearRequests()
            let result = await s.cli.invoke(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": "not-" + s.pki.password])
            #expect(result.status == 5)
            #expect(
                result.stderr.contains(
                    "the PKCS#12 password for \(s.pki.file("client.p12")) is wrong (it came from TIMBRE_CLIENT_CERT_PASSWORD): set TIMBRE_CLIENT_CERT_PASSWORD or store it in the keyring with `secret-tool store"
                ),
                "\(result.stderr)")
            let logged = try await s.sandbox.requests()
            #expect(logged.isEmpty)
            #expect(s.events("pin_match").isEmpty, "no connection was even opened")
        }
    }

    @Test func aProtectedFileWithNoPasswordAnywhereSaysWhereItGoes() async throws {
        try await withSetup { s in
            let result = await s.cli.invoke(["sync"])
            #expect(result.status == 5)
            #expect(result.stderr.contains("the PKCS#12 file \(s.pki.file("client.p12")) needs a password"), "\(result.stderr)")
            #expect(result.stderr.contains("kind client_cert_password"), "\(result.stderr)")
        }
    }

    @Test func aDamagedOrMissingFileIsNamed() async throws {
        try await withSetup { s in
            try s.configure(clientCert: s.pki.file("garbage.p12"))
            let garbage = await s.cli.invoke(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            #expect(garbage.status == 5)
            #expect(
                garbage.stderr.contains("the client certificate file \(s.pki.file("garbage.p12")) ([tls] client_cert) is not a PKCS#12 (.p12) file"),
                "\(garbage.stderr)")

            try s.configure(clientCert: s.pki.file("missing.p12"))
            let missing = await s.cli.invoke(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            #expect(missing.status == 5)
            #expect(missing.stderr.contains("\(s.pki.file("missing.p12")) ([tls] client_cert) cannot be read: no such file"), "\(missing.stderr)")
        }
    }

    @Test func aFileWithoutPasswordNeedsNone() async throws {
        try await withSetup { s in
            try s.configure(clientCert: s.pki.file("open.p12"))
            let result = await s.cli.invoke(["sync", "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!s.events("client_cert_used").isEmpty)
        }
    }

    @Test func aServerThatRequiresACertificateWhenNoneIsConfigured() async throws {
        try await withSetup { s in
            try s.configure(clientCert: nil)
            let result = await s.cli.invoke(["sync"])
            #expect(result.status == 5)
            #expect(result.stderr.contains("the server asked for a client certificate; set [tls] client_cert"), "\(result.stderr)")
            let rejected = s.events("client_cert_rejected")
            #expect(rejected.count >= 1)
            #expect(rejected.first?["pin"] is NSNull)
            #expect((rejected.first?["detail"] as? String)?.contains("[tls] client_cert is not set") == true)
        }
    }

    @Test func aCertificateFromAnotherCAIsRejected() async throws {
        try await withSetup { s in
            try s.configure(clientCert: s.pki.file("other.p12"))
            let result = await s.cli.invoke(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            #expect(result.status == 5)
            #expect(
                result.stderr.contains("127.0.0.1 rejected the client certificate CN=stranger from \(s.pki.file("other.p12")) (TLS alert: "), "\(result.stderr)"
            )
            #expect(!result.stderr.contains("pin"), "not a pin problem: \(result.stderr)")
            #expect(s.events("client_cert_rejected").first?["detail"] as? String == "presented CN=stranger; the server sent the TLS alert \"unknown CA\"")
            #expect(s.events("client_cert_used").isEmpty)
        }
    }

    /// The pin is checked before a client certificate goes out: a wrong pin is a pin mismatch, and
    /// the certificate is never presented.
    @Test func aPinMismatchIsNotAClientCertificateProblem() async throws {
        try await withSetup { s in
            try s.configure(clientCert: s.pki.file("client.p12"), pin: "sha256/" + Data(repeating: 7, count: 32).base64EncodedString())
            let result = await s.cli.invoke(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            #expect(result.status == 5)
            #expect(result.stderr.contains("no certificate (scope any) matches the 1 pinned key(s)"), "\(result.stderr)")
            #expect(s.events("client_cert_used").isEmpty && s.events("client_cert_rejected").isEmpty)
            #expect(!s.events("pin_mismatch").isEmpty)
        }
    }

    @Test func doctorShowsTheClientCertificate() async throws {
        try await withSetup { s in
            let good = await s.cli.invoke(["doctor", "--online"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            let line = good.stdout.split(separator: "\n").first { $0.contains("client cert") }.map(String.init) ?? ""
            #expect(line.hasPrefix("ok"), "\(good.stdout)")
            #expect(
                line.contains(
                    "\(s.pki.file("client.p12")) loads: CN=timbre test client, issued by CN=timbre test client CA with 1 chain certificate, expires 20"),
                "\(line)")
            #expect(good.stdout.contains("TLS and pins ok"), "\(good.stdout)")

            let bad = await s.cli.invoke(["doctor"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": "wrong"])
            let failed = bad.stdout.split(separator: "\n").first { $0.contains("client cert") }.map(String.init) ?? ""
            #expect(failed.hasPrefix("fail"), "\(bad.stdout)")
            #expect(failed.contains("is wrong (it came from TIMBRE_CLIENT_CERT_PASSWORD)"), "\(failed)")
        }
    }

    /// The password is in the environment only: not in argv (what `ps` shows), not in the log
    /// (TIMBRE_LOG=debug), not in any file under the test's home, not in what timbre prints.
    @Test func thePasswordNeverShowsInArgvLogsOrOutput() async throws {
        try await withSetup(latencyMs: 100) { s in
            let binary = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            async let run = s.cli.run(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            // While it runs, what `ps` shows of every timbre process.
            var seen: [String] = []
            for _ in 0..<200 {
                let listing = try await offThePool { try ChildProcess.run(["/bin/ps", "-eww", "-o", "args="]).output }
                seen += listing.split(separator: "\n").map(String.init).filter { $0.contains(binary) }
                if !seen.isEmpty { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            let result = try await run
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!seen.isEmpty, "the running sync was never seen in ps")
            #expect(!seen.contains { $0.contains(s.pki.password) })
            #expect(!result.stdout.contains(s.pki.password) && !result.stderr.contains(s.pki.password))
            #expect(s.cli.filesContaining(s.pki.password) == [])

            let doctor = await s.cli.invoke(["doctor"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password])
            #expect(!doctor.stdout.contains(s.pki.password) && !doctor.stderr.contains(s.pki.password))
            let wrong = await s.cli.invoke(["sync"], environment: ["TIMBRE_CLIENT_CERT_PASSWORD": s.pki.password + "x"])
            #expect(!wrong.stderr.contains(s.pki.password))
        }
    }

    @Test func aPasswordInConfigTomlIsRefused() async throws {
        try await withSetup { s in
            let text = (try String(contentsOf: s.cli.configFile, encoding: .utf8))
                .replacingOccurrences(of: "[tls]\n", with: "[tls]\nclient_cert_password = \"\(s.pki.password)\"\n")
            try s.cli.writeConfig(text)
            let result = await s.cli.invoke(["sync"])
            #expect(result.status == 2)
            #expect(
                result.stderr.contains(
                    "sets client_cert_password, which timbre never reads from a file: remove that line and put the PKCS#12 password in the environment variable TIMBRE_CLIENT_CERT_PASSWORD or in the keyring"
                ), "\(result.stderr)")
            #expect(!result.stderr.contains(s.pki.password))
            let logged = try await s.sandbox.requests()
            #expect(logged.isEmpty)
        }
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
