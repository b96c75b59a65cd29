import Foundation
import Testing
import TimbreTestSupport

/// `timbre pins update|status` against the sandbox over real TLS, with documents signed by the
/// `openssl` commands README.md gives operators ("Pin updates").
///
/// The sandbox answers as 127.0.0.1 (the API) and as localhost (the pin document): config.toml
/// pins only localhost, so 127.0.0.1's pins can only come from the remote set.
@Suite(.serialized, .tags(.integration), .integrationTier) struct PinsUpdateCLITests {
    struct Setup {
        let sandbox: SandboxProcess
        let cli: TimbreCLI
        let keys: String

        var documentURL: String { "https://localhost:\(sandbox.info.port)/__sandbox/files/pins.json" }
        var appliedSet: String { cli.home.appendingPathComponent("data/timbre/remote-pins.json").path }
        var trustLog: String { cli.home.appendingPathComponent("state/timbre/trust.jsonl").path }
        var appliedBytes: Data? { FileManager.default.contents(atPath: appliedSet) }

        /// `[tls.remote]` lines below the sandbox's endpoints, its CA, and a pin for localhost only.
        func configure(remote: String) throws {
            try cli.writeConfig(
                """
                client_id = "\(sandbox.info.clientID)"
                redirect_port = 0
                accounts_url = "\(sandbox.info.accountsURL)"
                api_url = "\(sandbox.info.apiURL)"

                [tls]
                ca_file = "\(sandbox.info.caFile)"

                [[tls.pin]]
                host = "localhost"
                pins = ["\(sandbox.info.pins.root)"]
                scope = "root"

                [tls.remote]
                \(remote)
                """)
        }

        func trustEvents() -> [[String: Any]] {
            let text = (try? String(contentsOfFile: trustLog, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func cleanUp() async {
            await sandbox.stop()
            cli.remove()
            try? FileManager.default.removeItem(atPath: keys)
        }
    }

    func setUp() async throws -> Setup {
        let sandbox = try await SandboxProcess.start(extraArguments: ["--refresh-rotation", "same"])
        do {
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
            let keys = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-signer-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
            return Setup(sandbox: sandbox, cli: cli, keys: keys)
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    /// Runs a shell script in the keys folder (the README's openssl commands); fails the test on a non-zero exit.
    @discardableResult
    func shell(_ s: Setup, _ script: String) throws -> String {
        let result = try ChildProcess.run(["/bin/sh", "-c", "set -e; cd '\(s.keys)'; " + script], mergeStderr: true)
        guard result.status == 0 else { throw ShellFailure(script: script, output: result.output) }
        return result.output
    }

    struct ShellFailure: Error, CustomStringConvertible {
        let script: String, output: String
        var description: String { "`\(script)` failed: \(output)" }
    }

    /// A pin document; `hosts`: host, pins, scope.
    func document(version: Int, expires: String = "2099-01-01T00:00:00Z", _ hosts: [(String, [String], String)]) -> String {
        let entries = hosts.map { host, pins, scope in
            "{\"host\": \"\(host)\", \"pins\": [\(pins.map { "\"\($0)\"" }.joined(separator: ", "))], \"scope\": \"\(scope)\", \"mode\": \"strict\"}"
        }
        return "{\"version\": \(version), \"expires_at\": \"\(expires)\", \"pins\": [\(entries.joined(separator: ", "))]}\n"
    }

    static let wrongPin = "sha256/" + Data(repeating: 3, count: 32).base64EncodedString()

    /// README: `openssl genpkey … ; openssl pkey -pubout` for ECDSA P-256.
    func makeECDSAKey(_ s: Setup) throws {
        try shell(
            s, "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out signer-key.pem; openssl pkey -in signer-key.pem -pubout -out signer.pem")
    }

    /// README: `openssl dgst -sha256 -sign KEY -out SIG.bin DOC; openssl base64 -A -in SIG.bin -out DOC.sig`.
    func signECDSA(_ s: Setup, _ text: String, name: String = "pins.json") throws -> Data {
        try Data(text.utf8).write(to: URL(fileURLWithPath: s.keys + "/" + name))
        try shell(s, "openssl dgst -sha256 -sign signer-key.pem -out \(name).sig.bin \(name); openssl base64 -A -in \(name).sig.bin -out \(name).sig")
        return try Data(contentsOf: URL(fileURLWithPath: s.keys + "/\(name).sig"))
    }

    func publish(_ s: Setup, _ text: String, signature: Data?) async throws {
        try await s.sandbox.putFile("pins.json", Data(text.utf8))
        if let signature { try await s.sandbox.putFile("pins.json.sig", signature) }
    }

    @Test func aDocumentFetchedFromTheSandboxPinsTheAPIAndAWrongPinInItStopsTheSync() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            try makeECDSAKey(s)
            try s.configure(remote: "url = \"\(s.documentURL)\"\npublic_key = \"\(s.keys)/signer.pem\"")

            // No rule for 127.0.0.1 anywhere yet: every request to it is refused.
            let before = await s.cli.invoke(["sync", "--quiet"])
            #expect(before.status == 5, "\(before.stderr)")
            #expect(before.stderr.contains("no certificate pin policy covers this host"), "\(before.stderr)")

            let first = document(version: 1, [("127.0.0.1", [s.sandbox.info.pins.root], "root")])
            try await publish(s, first, signature: try signECDSA(s, first))
            let update = await s.cli.invoke(["pins", "update"])
            #expect(update.status == 0, "\(update.stderr)")
            #expect(update.stdout == "applied remote pin set version 1 from \(s.documentURL) (1 host: 127.0.0.1; expires 2099-01-01T00:00:00Z)\n")
            var info = stat()
            #expect(stat(s.appliedSet, &info) == 0 && info.st_mode & 0o777 == 0o600)

            let status = await s.cli.invoke(["pins", "status", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            let remote = try #require(object["remote"] as? [String: Any])
            #expect(remote["version"] as? Int == 1)
            #expect(remote["expires_at"] as? String == "2099-01-01T00:00:00Z")
            #expect(remote["source"] as? String == s.documentURL)
            #expect((remote["applied_at"] as? String)?.hasSuffix("Z") == true)
            let hosts = object["hosts"] as? [[String: Any]] ?? []
            let byHost = Dictionary(hosts.map { ($0["host"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byHost["127.0.0.1"]?["from"] as? String == "remote")
            #expect(byHost["127.0.0.1"]?["pins"] as? [String] == [s.sandbox.info.pins.root])
            #expect(byHost["127.0.0.1"]?["scope"] as? String == "root")
            #expect(byHost["127.0.0.1"]?["mode"] as? String == "strict")
            #expect(byHost["localhost"]?["from"] as? String == "config")
            #expect(byHost["api.spotify.com"]?["from"] as? String == "default")
            #expect(hosts.first.map { Array($0.keys).sorted() } == ["from", "host", "mode", "pins", "scope"])

            let sync = await s.cli.invoke(["sync", "--json"])
            #expect(sync.status == 0, "the remote set's pin for 127.0.0.1 lets the sync through: \(sync.stderr)")
            var events = s.trustEvents()
            #expect(events.contains { $0["event"] as? String == "remote_applied" && $0["host"] as? String == "localhost" })
            #expect(
                events.contains {
                    $0["event"] as? String == "pin_match" && $0["host"] as? String == "127.0.0.1"
                        && $0["pin"] as? String == s.sandbox.info.pins.root
                })
            #expect(!events.contains { $0["event"] as? String == "pin_mismatch" })

            // Version 2 pins a key the sandbox does not have: applied (it is signed and newer), and
            // from then on the API is refused inside the handshake.
            let second = document(version: 2, [("127.0.0.1", [Self.wrongPin], "any")])
            try await publish(s, second, signature: try signECDSA(s, second))
            #expect(await s.cli.invoke(["pins", "update"]).status == 0)
            try await s.sandbox.clearRequests()
            let refused = await s.cli.invoke(["sync", "--quiet"])
            #expect(refused.status == 5, "\(refused.stderr)")
            #expect(refused.stderr.contains("TLS trust failure for 127.0.0.1"), "\(refused.stderr)")
            #expect(try await s.sandbox.requests().isEmpty, "nothing reaches the API past a wrong pin")
            events = s.trustEvents()
            let mismatch = try #require(events.last { $0["event"] as? String == "pin_mismatch" })
            #expect(mismatch["host"] as? String == "127.0.0.1")
            #expect(mismatch["pin"] as? String == s.sandbox.info.pins.leaf)

            let doctor = await s.cli.invoke(["doctor"])
            let trust = doctor.stdout.split(separator: "\n").first { $0.contains("trust") && $0.contains("last mismatch") }
            #expect(trust?.hasPrefix("warn") == true, "\(doctor.stdout)")
            #expect(trust?.contains("last mismatch: 127.0.0.1 presented \(s.sandbox.info.pins.leaf) at ") == true, "\(doctor.stdout)")
            #expect(doctor.stdout.contains("remote pin set version 2"), "\(doctor.stdout)")
        }
    }

    @Test func refusedDocumentsExitFiveNameWhyAndLeaveTheAppliedSetAlone() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            try makeECDSAKey(s)
            try s.configure(remote: "url = \"\(s.documentURL)\"\npublic_key = \"\(s.keys)/signer.pem\"")
            let root = s.sandbox.info.pins.root
            let good = document(version: 5, [("127.0.0.1", [root], "root"), ("b.example.com", [Self.wrongPin], "any")])
            try await publish(s, good, signature: try signECDSA(s, good))
            #expect(await s.cli.invoke(["pins", "update"]).status == 0)
            let applied = try #require(s.appliedBytes)

            func expectRefused(_ arguments: [String], _ reason: String, line: Int = #line) async {
                let result = await s.cli.invoke(arguments)
                #expect(result.status == 5, "line \(line): \(result.stderr)")
                #expect(result.stderr.contains("pin document refused: \(reason)"), "line \(line): \(result.stderr)")
                #expect(result.stderr.contains("the current pin set stays in place"), "line \(line)")
                #expect(s.appliedBytes == applied, "line \(line): the applied set changed")
                #expect(s.trustEvents().last?["event"] as? String == "remote_refused", "line \(line)")
            }

            // Fetched: a document with no .sig next to it.
            let unsigned = document(version: 6, [("127.0.0.1", [root], "root"), ("b.example.com", [Self.wrongPin], "any")])
            try await s.sandbox.putFile("pins.json", Data(unsigned.utf8))
            try await s.sandbox.control("DELETE", "files/pins.json.sig")
            await expectRefused(["pins", "update"], "it is unsigned")
            // Fetched: an older document, validly signed.
            let older = document(version: 4, [("127.0.0.1", [root], "root"), ("b.example.com", [Self.wrongPin], "any")])
            try await publish(s, older, signature: try signECDSA(s, older))
            await expectRefused(["pins", "update"], "its version 4 is not newer than the applied version 5")

            // From files.
            let path = s.keys + "/doc.json"
            let next = document(version: 6, [("127.0.0.1", [root], "root"), ("b.example.com", [Self.wrongPin], "any")])
            let signature = try signECDSA(s, next, name: "doc.json")
            try Data(next.replacingOccurrences(of: "root\"", with: "any\"").utf8).write(to: URL(fileURLWithPath: path))
            await expectRefused(
                ["pins", "update", "--file", path, "--signature", path + ".sig"], "the ECDSA P-256 signature does not verify with \(s.keys)/signer.pem")
            try Data(next.utf8).write(to: URL(fileURLWithPath: path))
            await expectRefused(["pins", "update", "--file", path], "it is unsigned")
            try Data().write(to: URL(fileURLWithPath: s.keys + "/empty.sig"))
            await expectRefused(["pins", "update", "--file", path, "--signature", s.keys + "/empty.sig"], "it is unsigned")
            try Data(signature.prefix(40)).write(to: URL(fileURLWithPath: s.keys + "/short.sig"))
            await expectRefused(["pins", "update", "--file", path, "--signature", s.keys + "/short.sig"], "the signature is not one whole DER ECDSA signature")
            let equal = document(version: 5, [("127.0.0.1", [root], "root"), ("b.example.com", [Self.wrongPin], "any")])
            _ = try signECDSA(s, equal, name: "equal.json")
            await expectRefused(
                ["pins", "update", "--file", s.keys + "/equal.json", "--signature", s.keys + "/equal.json.sig"],
                "its version 5 is not newer than the applied version 5")
            let expired = document(version: 7, expires: "2020-01-01T00:00:00Z", [("127.0.0.1", [root], "root"), ("b.example.com", [Self.wrongPin], "any")])
            _ = try signECDSA(s, expired, name: "expired.json")
            await expectRefused(
                ["pins", "update", "--file", s.keys + "/expired.json", "--signature", s.keys + "/expired.json.sig"],
                "it expired at 2020-01-01T00:00:00Z")
            let dropsHost = document(version: 8, [("127.0.0.1", [root], "root")])
            _ = try signECDSA(s, dropsHost, name: "drops.json")
            await expectRefused(
                ["pins", "update", "--file", s.keys + "/drops.json", "--signature", s.keys + "/drops.json.sig"],
                "it would remove every pin of b.example.com")
            // Another signer's key.
            try shell(
                s,
                "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out other-key.pem; openssl dgst -sha256 -sign other-key.pem -out doc.json.other doc.json; openssl base64 -A -in doc.json.other -out other.sig"
            )
            await expectRefused(["pins", "update", "--file", path, "--signature", s.keys + "/other.sig"], "the ECDSA P-256 signature does not verify")

            // Allowed explicitly, the host may go.
            try s.configure(remote: "url = \"\(s.documentURL)\"\npublic_key = \"\(s.keys)/signer.pem\"\nallow_host_removal = true")
            let allowed = await s.cli.invoke(["pins", "update", "--file", s.keys + "/drops.json", "--signature", s.keys + "/drops.json.sig"])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(allowed.stdout.contains("applied remote pin set version 8"))

            // The journal's own damage falls back to config and defaults, with a warning, never to no pins.
            try Data("not json".utf8).write(to: URL(fileURLWithPath: s.appliedSet))
            let status = await s.cli.invoke(["pins", "status", "--json"])
            #expect(status.status == 0)
            #expect(status.stderr.contains("is unreadable or corrupt; it is ignored"), "\(status.stderr)")
            #expect(status.stdout.hasPrefix("{\"remote\":null,"))
            let sync = await s.cli.invoke(["sync", "--quiet"])
            #expect(sync.status == 5, "no remote set: 127.0.0.1 has no policy again")
            let doctor = await s.cli.invoke(["doctor"])
            #expect(doctor.stdout.split(separator: "\n").contains { $0.hasPrefix("warn") && $0.contains("unreadable or corrupt") }, "\(doctor.stdout)")
        }
    }

    /// Issue #31, item 10: the highest version applied is kept apart from the set
    /// (remote-pins.floor), so a damaged or deleted set cannot reopen the way to an older document.
    @Test func aDamagedOrDeletedAppliedSetCannotLowerTheRollbackFloor() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            try makeECDSAKey(s)
            try s.configure(remote: "public_key = \"\(s.keys)/signer.pem\"")
            let root = s.sandbox.info.pins.root
            for version in [4, 5, 6] {
                _ = try signECDSA(s, document(version: version, [("127.0.0.1", [root], "root")]), name: "v\(version).json")
            }
            func update(_ version: Int) async -> CLIResult {
                await s.cli.invoke(["pins", "update", "--file", s.keys + "/v\(version).json", "--signature", s.keys + "/v\(version).json.sig"])
            }
            #expect(await update(5).status == 0)
            try Data("not json".utf8).write(to: URL(fileURLWithPath: s.appliedSet))
            let damaged = await update(4)
            #expect(damaged.status == 5, "\(damaged.stderr)")
            #expect(damaged.stderr.contains("its version 4 is not newer than the applied version 5"), "\(damaged.stderr)")
            try FileManager.default.removeItem(atPath: s.appliedSet)
            let deleted = await update(4)
            #expect(deleted.status == 5, "\(deleted.stderr)")
            #expect(deleted.stderr.contains("its version 4 is not newer than the applied version 5"), "\(deleted.stderr)")

            let floor = s.cli.home.appendingPathComponent("data/timbre/remote-pins.floor").path
            #expect((try? String(contentsOfFile: floor, encoding: .utf8)) == "5\n")
            var info = stat()
            #expect(stat(floor, &info) == 0 && info.st_mode & 0o777 == 0o600)

            // A damaged floor refuses every document until it is fixed, with the fix.
            try Data("five".utf8).write(to: URL(fileURLWithPath: floor))
            let unknown = await update(6)
            #expect(unknown.status == 5, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("\(floor)) is unreadable"), "\(unknown.stderr)")
            #expect(unknown.stderr.contains("echo N > \(floor)"), "\(unknown.stderr)")
            try Data("5\n".utf8).write(to: URL(fileURLWithPath: floor))
            #expect(await update(4).status == 5)
            #expect(await update(6).status == 0)
            #expect(try String(contentsOfFile: floor, encoding: .utf8) == "6\n")
        }
    }

    @Test func ed25519AndHMACSignaturesFromTheOpensslCommandsAreAccepted() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            let root = s.sandbox.info.pins.root
            // Ed25519: README's genpkey, pkey -pubout, pkeyutl -sign -rawin.
            try shell(s, "openssl genpkey -algorithm ed25519 -out ed-key.pem; openssl pkey -in ed-key.pem -pubout -out ed.pem")
            try s.configure(remote: "public_key = \"\(s.keys)/ed.pem\"")
            try Data(document(version: 1, [("127.0.0.1", [root], "root")]).utf8).write(to: URL(fileURLWithPath: s.keys + "/ed.json"))
            try shell(
                s, "openssl pkeyutl -sign -rawin -inkey ed-key.pem -in ed.json -out ed.json.sig.bin; openssl base64 -A -in ed.json.sig.bin -out ed.json.sig")
            let ed = await s.cli.invoke(["pins", "update", "--file", s.keys + "/ed.json", "--signature", s.keys + "/ed.json.sig"])
            #expect(ed.status == 0, "\(ed.stderr)")
            #expect(await s.cli.invoke(["sync", "--quiet"]).status == 0)

            // HMAC: the key from the environment; README's `openssl dgst -hmac` and `openssl mac`.
            let key = "an HMAC key of plenty of bytes, 0123456789"
            try Data(key.utf8).write(to: URL(fileURLWithPath: s.keys + "/hmac.key"))
            try s.configure(remote: "hmac = true")
            let environment = ["TIMBRE_PINS_HMAC_KEY": key]
            try Data(document(version: 2, [("127.0.0.1", [root], "root")]).utf8).write(to: URL(fileURLWithPath: s.keys + "/h2.json"))
            try shell(s, "openssl dgst -sha256 -hmac \"$(cat hmac.key)\" -binary h2.json | openssl base64 -A > h2.json.sig")
            let h2 = await s.cli.invoke(["pins", "update", "--file", s.keys + "/h2.json", "--signature", s.keys + "/h2.json.sig"], environment: environment)
            #expect(h2.status == 0, "\(h2.stderr)")
            try Data(document(version: 3, [("127.0.0.1", [root], "root")]).utf8).write(to: URL(fileURLWithPath: s.keys + "/h3.json"))
            try shell(s, "openssl mac -digest SHA256 -macopt key:\"$(cat hmac.key)\" -binary -in h3.json HMAC | openssl base64 -A > h3.json.sig")
            let h3 = await s.cli.invoke(["pins", "update", "--file", s.keys + "/h3.json", "--signature", s.keys + "/h3.json.sig"], environment: environment)
            #expect(h3.status == 0, "\(h3.stderr)")
            #expect(await s.cli.invoke(["sync", "--quiet"], environment: environment).status == 0)
            let status = await s.cli.invoke(["pins", "status"], environment: environment)
            #expect(status.stdout.hasPrefix("remote: version 3, expires 2099-01-01T00:00:00Z, applied "), "\(status.stdout)")

            // Without the key the applied set cannot be verified: ignored, with the reason.
            let keyless = await s.cli.invoke(["pins", "status", "--json"], environment: ["TIMBRE_PINS_HMAC_KEY": ""])
            #expect(keyless.stdout.hasPrefix("{\"remote\":null,"), "\(keyless.stdout)")
            #expect(keyless.stderr.contains("cannot be verified (no HMAC key for pin documents"), "\(keyless.stderr)")
            // A wrong key refuses the next document.
            try Data(document(version: 4, [("127.0.0.1", [root], "root")]).utf8).write(to: URL(fileURLWithPath: s.keys + "/h4.json"))
            try shell(s, "openssl dgst -sha256 -hmac 'a different key, also long enough' -binary h4.json | openssl base64 -A > h4.json.sig")
            let wrong = await s.cli.invoke(["pins", "update", "--file", s.keys + "/h4.json", "--signature", s.keys + "/h4.json.sig"], environment: environment)
            #expect(wrong.status == 5)
            #expect(wrong.stderr.contains("the HMAC-SHA256 signature does not match the document with the key from TIMBRE_PINS_HMAC_KEY"), "\(wrong.stderr)")

            for result in [h2, h3, wrong, status] { #expect(!(result.stdout + result.stderr).contains(key), "the HMAC key must never be printed") }
            #expect(s.cli.filesContaining(key).isEmpty, "the HMAC key must never be written: \(s.cli.filesContaining(key))")
        }
    }

    /// The keyring item README documents (`secret-tool store … kind pins_hmac_key`) is read when
    /// TIMBRE_PINS_HMAC_KEY is unset.
    @Test func theHMACKeyCanLiveInTheKeyring() async throws {
        let s = try await setUp()
        try await withCleanup({ await s.cleanUp() }) {
            let profile = "pins-\(UUID().uuidString.prefix(8))"
            let key = "keyring-held HMAC key for pin documents"
            try Data(key.utf8).write(to: URL(fileURLWithPath: s.keys + "/hmac.key"))
            let stored = try ChildProcess.run(
                [
                    "/bin/sh", "-c",
                    "secret-tool store --label='timbre pins HMAC key' xdg:schema io.github.timbre.Secret profile \(profile) kind pins_hmac_key tier high < '\(s.keys)/hmac.key'",
                ], mergeStderr: true)
            try #require(stored.status == 0, "secret-tool store failed (is the test keyring running? scripts/test.sh starts one): \(stored.output)")
            defer {
                _ = try? ChildProcess.run([
                    "/usr/bin/secret-tool", "clear", "xdg:schema", "io.github.timbre.Secret", "profile", profile, "kind", "pins_hmac_key",
                ])
            }
            try s.configure(remote: "hmac = true")
            try Data(document(version: 1, [("127.0.0.1", [s.sandbox.info.pins.root], "root")]).utf8).write(to: URL(fileURLWithPath: s.keys + "/k.json"))
            try shell(s, "openssl dgst -sha256 -hmac \"$(cat hmac.key)\" -binary k.json | openssl base64 -A > k.json.sig")
            // The profile has no config.toml of its own: point it at the one configure() wrote.
            let inProfile = ["TIMBRE_PROFILE": profile, "TIMBRE_CONFIG": s.cli.configFile.path]
            let update = await s.cli.invoke(["pins", "update", "--file", s.keys + "/k.json", "--signature", s.keys + "/k.json.sig"], environment: inProfile)
            #expect(update.status == 0, "\(update.stderr)")
            #expect(await s.cli.invoke(["sync", "--quiet"], environment: inProfile).status == 0)
        }
    }

    @Test func helpListsTheSubcommandsAndUsageErrorsExitTwo() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let help = await cli.invoke(["pins", "--help"])
        #expect(help.status == 0)
        for word in ["show", "update", "status"] { #expect(help.stdout.contains(word), "\(help.stdout)") }
        let notConfigured = await cli.invoke(["pins", "update", "--file", "/nonexistent"])
        #expect(notConfigured.status == 2)
        #expect(notConfigured.stderr.contains("config.toml has no [tls.remote] table"), "\(notConfigured.stderr)")
        let signatureAlone = await cli.invoke(["pins", "update", "--signature", "x.sig"])
        #expect(signatureAlone.status == 2)
        #expect(signatureAlone.stderr.contains("'--signature' needs '--file'"))
        let status = await cli.invoke(["pins", "status", "--json"])
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix("{\"remote\":null,\"hosts\":[{\"host\":\"accounts.spotify.com\""), "\(status.stdout)")
    }
}
