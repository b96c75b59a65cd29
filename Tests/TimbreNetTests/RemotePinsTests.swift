import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// Signed remote pin documents: what is applied, what is refused and why, and that a refusal
/// leaves the applied set byte for byte as it was. Keys and signatures come from libcrypto.
@Suite struct RemotePinsTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)  // 2030-03-17
    static let a = SPKIPin(digest: [UInt8](repeating: 0xA1, count: 32))
    static let b = SPKIPin(digest: [UInt8](repeating: 0xB2, count: 32))
    static let c = SPKIPin(digest: [UInt8](repeating: 0xC3, count: 32))

    /// A document with hosts in the order given.
    static func document(version: Int, expires: String = "2099-01-01T00:00:00Z", _ hosts: [(String, [SPKIPin])]) -> [UInt8] {
        let entries = hosts.map { host, pins in
            "{\"host\": \"\(host)\", \"pins\": [\(pins.map { "\"\($0)\"" }.joined(separator: ", "))], \"scope\": \"any\", \"mode\": \"strict\"}"
        }
        return Array("{\"version\": \(version), \"expires_at\": \"\(expires)\", \"pins\": [\(entries.joined(separator: ", "))]}".utf8)
    }

    static let twoHosts: [(String, [SPKIPin])] = [("a.example.com", [a, b]), ("b.example.com", [c])]

    /// A scratch folder, a store in it, a recorder for events.
    struct Scene {
        let folder: String
        let store: RemotePinStore
        let recorder = TrustEventRecorder()
        var updater: RemotePinUpdater { RemotePinUpdater(store: store, observer: recorder) }

        init() {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-remote-\(UUID().uuidString)").path
            store = RemotePinStore(path: folder + "/data/remote-pins.json")
        }

        var fileBytes: Data? { FileManager.default.contents(atPath: store.path) }
        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    static func key(_ signer: TestSigningKey) throws -> PinDocumentKey {
        .publicKey(try SignerPublicKey.parse(pem: try signer.publicKeyPEM(), path: "signer-\(signer.kind.rawValue).pem"))
    }

    static let hmacSecret = Array("correct horse battery staple 42".utf8)
    static func hmacKey(_ secret: [UInt8] = hmacSecret) throws -> PinDocumentKey { .hmac(try HMACKey(bytes: secret, origin: "TIMBRE_PINS_HMAC_KEY")) }
    static func hmacSignature(_ data: [UInt8], _ secret: [UInt8] = hmacSecret) -> String {
        Data(Crypto.hmacSHA256(key: secret, data: data)).base64EncodedString()
    }

    // MARK: Applied

    @Test(arguments: TestSigningKey.Kind.allCases)
    func aValidPublicKeyDocumentIsAppliedStoredAndVerifiedOnLoad(kind: TestSigningKey.Kind) throws {
        let scene = Scene()
        defer { scene.remove() }
        let signer = try TestSigningKey(kind)
        let key = try Self.key(signer)
        let doc = Self.document(version: 8, Self.twoHosts)
        let applied = try scene.updater.update(
            document: doc, signature: try signer.signatureText(doc), key: key,
            source: "https://pins.example.org/timbre-pins.json", allowHostRemoval: false, now: Self.now)
        #expect(applied.parsed.version == 8)
        #expect(applied.parsed.rules.map(\.host.text) == ["a.example.com", "b.example.com"])
        #expect(applied.parsed.rules.first?.pins == [Self.a, Self.b])
        #expect(scene.store.load(key: key, now: Self.now) == .applied(applied))
        var info = stat()
        #expect(stat(scene.store.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(scene.recorder.events == [.remoteApplied(source: "https://pins.example.org/timbre-pins.json", version: 8, hosts: 2)])
        #expect(scene.recorder.events.first?.host == "pins.example.org")
    }

    @Test func aValidHMACDocumentIsApplied() throws {
        let scene = Scene()
        defer { scene.remove() }
        let doc = Self.document(version: 3, Self.twoHosts)
        let applied = try scene.updater.update(
            document: doc, signature: Self.hmacSignature(doc), key: try Self.hmacKey(), source: "doc.json",
            allowHostRemoval: false, now: Self.now)
        #expect(applied.parsed.version == 3)
        #expect(scene.store.load(key: try Self.hmacKey(), now: Self.now) == .applied(applied))
    }

    @Test func aSignatureWrappedOverSeveralLinesIsAccepted() throws {
        let scene = Scene()
        defer { scene.remove() }
        let signer = try TestSigningKey(.ecdsaP256)
        let doc = Self.document(version: 1, Self.twoHosts)
        let text = try signer.signatureText(doc)
        let wrapped = stride(from: 0, to: text.count, by: 20).map { String(Array(text)[$0..<min($0 + 20, text.count)]) }.joined(separator: "\n") + "\n"
        #expect(wrapped.contains("\n") && wrapped != text + "\n", "the signature is really wrapped")
        let applied = try scene.updater.update(
            document: doc, signature: wrapped, key: try Self.key(signer), source: "doc.json", allowHostRemoval: false, now: Self.now)
        #expect(applied.parsed.version == 1)
        #expect(scene.store.load(key: try Self.key(signer), now: Self.now) == .applied(applied), "stored and read back as applied")
    }

    // MARK: Refused

    enum BadDocument: String, CaseIterable, Sendable {
        case tampered, wrongKey, olderVersion, equalVersion, expired, noSignature, emptySignature, truncatedSignature, removesAHost,
            emptiesAHost, notBase64, notADocument
    }

    /// Applies version 5 (two hosts), then offers the bad document: refused with the sentence
    /// naming why, exit 5, one `remote_refused` event, and the stored file unchanged.
    @Test(arguments: TestSigningKey.Kind.allCases, BadDocument.allCases)
    func aBadDocumentIsRefusedAndTheAppliedSetStays(kind: TestSigningKey.Kind, bad: BadDocument) throws {
        let scene = Scene()
        defer { scene.remove() }
        let signer = try TestSigningKey(kind)
        let key = try Self.key(signer)
        let first = Self.document(version: 5, Self.twoHosts)
        _ = try scene.updater.update(
            document: first, signature: try signer.signatureText(first), key: key, source: "v5.json",
            allowHostRemoval: false, now: Self.now)
        let before = try #require(scene.fileBytes)

        var doc = Self.document(version: 6, Self.twoHosts)
        var signature: String? = try signer.signatureText(doc)
        let expected: String
        switch bad {
        case .tampered:
            doc = Self.document(version: 6, [("a.example.com", [Self.c]), ("b.example.com", [Self.c])])
            expected = kind == .ed25519 ? "the Ed25519 signature does not verify" : "the ECDSA P-256 signature does not verify"
        case .wrongKey:
            signature = try TestSigningKey(kind).signatureText(doc)
            expected = "signature does not verify with signer-"
        case .olderVersion:
            doc = Self.document(version: 4, Self.twoHosts)
            signature = try signer.signatureText(doc)
            expected = "its version 4 is not newer than the applied version 5"
        case .equalVersion:
            doc = Self.document(version: 5, Self.twoHosts)
            signature = try signer.signatureText(doc)
            expected = "its version 5 is not newer than the applied version 5"
        case .expired:
            doc = Self.document(version: 6, expires: "2030-01-01T00:00:00Z", Self.twoHosts)
            signature = try signer.signatureText(doc)
            expected = "it expired at 2030-01-01T00:00:00Z"
        case .noSignature:
            signature = nil
            expected = "it is unsigned"
        case .emptySignature:
            signature = " \n"
            expected = "it is unsigned"
        case .truncatedSignature:
            let bytes = try signer.sign(doc)
            signature = Data(bytes.prefix(bytes.count - 9)).base64EncodedString()
            expected = kind == .ed25519 ? "an Ed25519 signature is 64 (truncated" : "not one whole DER ECDSA signature"
        case .removesAHost:
            doc = Self.document(version: 6, [("a.example.com", [Self.a])])
            signature = try signer.signatureText(doc)
            expected = "it would remove every pin of b.example.com"
        case .emptiesAHost:
            doc = Self.document(version: 6, [("a.example.com", [Self.a]), ("b.example.com", [])])
            signature = try signer.signatureText(doc)
            expected = "it would remove every pin of b.example.com"
        case .notBase64:
            signature = "this is not base64!"
            expected = "the signature is not base64 text"
        case .notADocument:
            doc = Array("{\"version\": \"six\", \"expires_at\": \"2099-01-01T00:00:00Z\", \"pins\": []}".utf8)
            signature = try signer.signatureText(doc)
            expected = "it is not a valid pin document: \"version\" has the wrong type"
        }

        let error = #expect(throws: RemotePinError.self) {
            try scene.updater.update(document: doc, signature: signature, key: key, source: "v6.json", allowHostRemoval: false, now: Self.now)
        }
        #expect(error?.message.hasPrefix("pin document refused: ") == true)
        #expect(error?.message.contains(expected) == true, "\(String(describing: error?.message)) should contain \(expected)")
        #expect(error?.message.hasSuffix("the current pin set stays in place") == true)
        #expect(error?.exitStatus == .trustFailure)
        #expect(scene.fileBytes == before, "the applied set must not change")
        #expect(scene.store.load(key: key, now: Self.now).appliedVersion == 5)
        #expect(scene.recorder.events.count == 2)
        if case .remoteRefused(let source, let reason)? = scene.recorder.events.last {
            #expect(source == "v6.json")
            #expect(reason.contains(expected))
        } else {
            Issue.record("no remote_refused event: \(scene.recorder.events)")
        }
    }

    @Test func hmacRefusesATamperedDocumentAWrongKeyAndATruncatedSignature() throws {
        let scene = Scene()
        defer { scene.remove() }
        let key = try Self.hmacKey()
        let first = Self.document(version: 1, Self.twoHosts)
        _ = try scene.updater.update(document: first, signature: Self.hmacSignature(first), key: key, source: "v1", allowHostRemoval: false, now: Self.now)
        let before = try #require(scene.fileBytes)
        let doc = Self.document(version: 2, Self.twoHosts)
        let good = Crypto.hmacSHA256(key: Self.hmacSecret, data: doc)
        let cases: [(document: [UInt8], signature: String, expected: String)] = [
            (
                Self.document(version: 2, [("a.example.com", [Self.c]), ("b.example.com", [Self.c])]), Data(good).base64EncodedString(),
                "the HMAC-SHA256 signature does not match the document with the key from TIMBRE_PINS_HMAC_KEY"
            ),
            (doc, Self.hmacSignature(doc, Array("another key of enough length".utf8)), "the HMAC-SHA256 signature does not match"),
            (doc, Data(good.prefix(20)).base64EncodedString(), "the signature is 20 bytes; an HMAC-SHA256 signature is 32 (truncated"),
        ]
        for (document, signature, expected) in cases {
            let error = #expect(throws: RemotePinError.self) {
                try scene.updater.update(document: document, signature: signature, key: key, source: "v2", allowHostRemoval: false, now: Self.now)
            }
            #expect(error?.message.contains(expected) == true, "\(String(describing: error?.message))")
            #expect(error?.exitStatus == .trustFailure)
            #expect(scene.fileBytes == before)
        }
    }

    @Test func allowHostRemovalLetsADocumentDropAHost() throws {
        let scene = Scene()
        defer { scene.remove() }
        let signer = try TestSigningKey(.ed25519)
        let key = try Self.key(signer)
        let first = Self.document(version: 1, Self.twoHosts)
        _ = try scene.updater.update(
            document: first, signature: try signer.signatureText(first), key: key, source: "v1", allowHostRemoval: false, now: Self.now)
        let second = Self.document(version: 2, [("a.example.com", [Self.a])])
        let applied = try scene.updater.update(
            document: second, signature: try signer.signatureText(second), key: key, source: "v2",
            allowHostRemoval: true, now: Self.now)
        #expect(applied.parsed.rules.map(\.host.text) == ["a.example.com"])
    }

    @Test func aFirstDocumentNeedsNoPreviousSetAndANewerOneReplacesIt() throws {
        let scene = Scene()
        defer { scene.remove() }
        let signer = try TestSigningKey(.ecdsaP256)
        let key = try Self.key(signer)
        for version in [2, 7] {
            let doc = Self.document(version: version, Self.twoHosts)
            _ = try scene.updater.update(
                document: doc, signature: try signer.signatureText(doc), key: key, source: "v\(version)",
                allowHostRemoval: false, now: Self.now)
        }
        #expect(scene.store.load(key: key, now: Self.now).appliedVersion == 7)
    }

    // MARK: Loading

    @Test func aCorruptOrUnverifiableOrExpiredAppliedSetIsIgnoredNeverEmpty() throws {
        let scene = Scene()
        defer { scene.remove() }
        let signer = try TestSigningKey(.ed25519)
        let key = try Self.key(signer)
        let doc = Self.document(version: 4, expires: "2031-01-01T00:00:00Z", Self.twoHosts)
        _ = try scene.updater.update(document: doc, signature: try signer.signatureText(doc), key: key, source: "v4", allowHostRemoval: false, now: Self.now)

        guard case .ignored(let other) = scene.store.load(key: try Self.key(TestSigningKey(.ed25519)), now: Self.now) else {
            Issue.record("a set signed by another key must be ignored")
            return
        }
        #expect(other.contains("no longer verifies"))
        guard case .ignored(let late) = scene.store.load(key: key, now: Date(timeIntervalSince1970: 1_950_000_000)) else {
            Issue.record("an expired set must be ignored")
            return
        }
        #expect(late.contains("expired at 2031-01-01T00:00:00Z"))
        guard case .ignored(let unkeyed) = scene.store.load(key: nil, now: Self.now) else {
            Issue.record("no key: ignored")
            return
        }
        #expect(unkeyed.contains("cannot be verified"))

        // A rollback cannot hide behind a key that no longer verifies the stored set.
        #expect(scene.store.storedVersion() == 4)

        try Data("{\"format\": 1, \"document\": \"@@@\"".utf8).write(to: URL(fileURLWithPath: scene.store.path))
        guard case .ignored(let corrupt) = scene.store.load(key: key, now: Self.now) else {
            Issue.record("corrupt: ignored")
            return
        }
        #expect(corrupt.contains("unreadable or corrupt"))
        #expect(RemotePinStore(path: scene.folder + "/none.json").load(key: key) == .none)
    }

    @Test func storedVersionBlocksARollbackAfterTheKeyChanged() throws {
        let scene = Scene()
        defer { scene.remove() }
        let old = try TestSigningKey(.ecdsaP256), new = try TestSigningKey(.ecdsaP256)
        let doc = Self.document(version: 9, Self.twoHosts)
        _ = try scene.updater.update(
            document: doc, signature: try old.signatureText(doc), key: try Self.key(old), source: "v9", allowHostRemoval: false, now: Self.now)
        let rollback = Self.document(version: 3, Self.twoHosts)
        let error = #expect(throws: RemotePinError.self) {
            try scene.updater.update(
                document: rollback, signature: try new.signatureText(rollback), key: try Self.key(new), source: "v3",
                allowHostRemoval: false, now: Self.now)
        }
        #expect(error == .notNewer(version: 3, applied: 9))
    }

    // MARK: Keys

    @Test func keysThatCannotVerifyAreRefusedWithTheReason() throws {
        #expect(
            throws: RemotePinError.keyUnusable("the HMAC key from TIMBRE_PINS_HMAC_KEY is 5 bytes; use at least 16 random bytes (e.g. `openssl rand -hex 32`)")
        ) {
            try HMACKey(bytes: Array("short".utf8), origin: "TIMBRE_PINS_HMAC_KEY")
        }
        let privatePEM = Data("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n".utf8)
        let error = #expect(throws: RemotePinError.self) { try SignerPublicKey.parse(pem: privatePEM, path: "k.pem") }
        #expect(error?.message.contains("k.pem holds a private key") == true)
        let garbage = #expect(throws: RemotePinError.self) { try SignerPublicKey.parse(pem: Data("hello".utf8), path: "g.pem") }
        #expect(garbage?.message.contains("g.pem is not a PEM public key") == true)
        #expect(try SignerPublicKey.parse(pem: try TestSigningKey(.ed25519).publicKeyPEM(), path: "e.pem").algorithm == .ed25519)
        #expect(try SignerPublicKey.parse(pem: try TestSigningKey(.ecdsaP256).publicKeyPEM(), path: "p.pem").algorithm == .ecdsaP256)
    }

    @Test func documentsAreParsedStrictly() throws {
        let parsed = try RemotePinDocument.parse(Self.document(version: 8, expires: "2027-01-01T00:00:00Z", Self.twoHosts))
        #expect(parsed.version == 8)
        #expect(ClockText.iso(parsed.expiresAt) == "2027-01-01T00:00:00Z")
        #expect(
            parsed.rules == [
                PinRule(host: HostPattern("a.example.com")!, pins: [Self.a, Self.b]), PinRule(host: HostPattern("b.example.com")!, pins: [Self.c]),
            ])
        let bad: [(String, String)] = [
            ("[]", "it is not a JSON object"),
            ("{\"expires_at\": \"2027-01-01T00:00:00Z\", \"pins\": []}", "\"version\" is missing"),
            ("{\"version\": 0, \"expires_at\": \"2027-01-01T00:00:00Z\", \"pins\": []}", "\"version\" must be a whole number from 1 up"),
            ("{\"version\": 1, \"expires_at\": \"2027-01-01 00:00:00\", \"pins\": []}", "\"expires_at\" must be a UTC time"),
            ("{\"version\": 1, \"expires_at\": \"2027-01-01T00:00:00Z\", \"pins\": [{\"host\": \"a b\", \"pins\": []}]}", "pins[0]: \"host\" must be"),
            (
                "{\"version\": 1, \"expires_at\": \"2027-01-01T00:00:00Z\", \"pins\": [{\"host\": \"a.com\", \"pins\": [\"sha256/x\"]}]}",
                "every pin must be sha256/"
            ),
            (
                "{\"version\": 1, \"expires_at\": \"2027-01-01T00:00:00Z\", \"pins\": [{\"host\": \"a.com\", \"pins\": [], \"scope\": \"all\"}]}",
                "\"scope\" must be"
            ),
        ]
        for (text, expected) in bad {
            let error = #expect(throws: RemotePinError.self) { try RemotePinDocument.parse(Array(text.utf8)) }
            #expect(error?.reason.contains(expected) == true, "\(text): \(String(describing: error?.reason))")
        }
    }
}

extension RemotePinStore.Loaded {
    var appliedVersion: Int? {
        if case .applied(let set) = self { return set.parsed.version }
        return nil
    }
}
