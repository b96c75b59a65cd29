import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreNet

/// trust.jsonl: one JSON line per trust decision, bounded by rotation.
@Suite struct TrustJournalTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let leaf = SPKIPin(digest: [UInt8](repeating: 1, count: 32))
    static let root = SPKIPin(digest: [UInt8](repeating: 2, count: 32))
    static let chain = [ChainEntry(position: .leaf, subject: "CN=x", pin: leaf), ChainEntry(position: .root, subject: "CN=r", pin: root)]

    static func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("timbre-trust-\(UUID().uuidString)/state/timbre/trust.jsonl").path
    }

    static func lines(_ path: String) -> [String] {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Issue #31, item 2: another user's trust.jsonl is not appended to.
    @Test(.enabled(if: getuid() == 0, "needs root: only root can give a file to another uid"))
    func anotherUsersJournalIsNotWritten() throws {
        let path = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "theirs\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(chown(path, 65534, 65534) == 0)
        TrustJournal(path: path, clock: { Self.at }).record(.pinMatched(host: "api.spotify.com", pin: Self.root, position: .root, isPrimary: true))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
    }

    @Test func eachDecisionIsOneLineInTheContractsShape() throws {
        let path = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = TrustJournal(path: path, clock: { Self.at })
        journal.record(.pinMatched(host: "api.spotify.com", pin: Self.root, position: .root, isPrimary: true))
        journal.record(.pinMismatch(host: "api.spotify.com", presented: Self.chain))
        journal.record(.allowedByPermissiveMode(host: "h.example", presented: Self.chain))
        journal.record(.remoteApplied(source: "https://pins.example.org/p.json", version: 8, hosts: 2))
        journal.record(.remoteRefused(source: "/tmp/doc.json", reason: "it expired at 2020-01-01T00:00:00Z"))
        // Not decisions of the journal's kinds (they are in the log).
        journal.record(.policyMissing(host: "x.example"))
        journal.record(.systemTrustFailed(host: "x.example", reason: "expired"))
        let at = "2027-01-15T08:00:00.250Z"
        #expect(
            Self.lines(path) == [
                "{\"at\":\"\(at)\",\"event\":\"pin_match\",\"host\":\"api.spotify.com\",\"pin\":\"\(Self.root)\",\"detail\":\"root matched the primary pin\"}",
                "{\"at\":\"\(at)\",\"event\":\"pin_mismatch\",\"host\":\"api.spotify.com\",\"pin\":\"\(Self.leaf)\",\"detail\":\"connection refused; presented leaf \(Self.leaf), root \(Self.root)\"}",
                "{\"at\":\"\(at)\",\"event\":\"permissive_allow\",\"host\":\"h.example\",\"pin\":\"\(Self.leaf)\",\"detail\":\"no pin matched; allowed by mode = \\\"permissive\\\"; presented leaf \(Self.leaf), root \(Self.root)\"}",
                "{\"at\":\"\(at)\",\"event\":\"remote_applied\",\"host\":\"pins.example.org\",\"pin\":null,\"detail\":\"version 8 from https://pins.example.org/p.json (2 hosts)\"}",
                "{\"at\":\"\(at)\",\"event\":\"remote_refused\",\"host\":\"\",\"pin\":null,\"detail\":\"/tmp/doc.json: it expired at 2020-01-01T00:00:00Z\"}",
            ])
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let records = TrustJournal.read(path: path)
        #expect(records.map(\.kind) == [.pinMatch, .pinMismatch, .permissiveAllow, .remoteApplied, .remoteRefused])
        #expect(records[1].pin == Self.leaf.description)
        #expect(
            Set(TrustEventKind.allCases.map(\.rawValue)) == [
                "pin_match", "pin_mismatch", "permissive_allow", "remote_applied", "remote_refused",
                "client_cert_used", "client_cert_rejected",
            ])
    }

    @Test func clientCertificateEventsAreLines() throws {
        let path = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = TrustJournal(path: path, clock: { Self.at })
        journal.record(.clientCertificateUsed(host: "api.example", subject: "CN=me", pin: Self.leaf))
        journal.record(
            .clientCertificateRejected(host: "api.example", subject: "CN=me", pin: Self.leaf, reason: "the server sent the TLS alert \"unknown CA\""))
        journal.record(.clientCertificateRejected(host: "api.example", subject: nil, pin: nil, reason: "none configured"))
        let at = "2027-01-15T08:00:00.250Z"
        #expect(
            Self.lines(path) == [
                "{\"at\":\"\(at)\",\"event\":\"client_cert_used\",\"host\":\"api.example\",\"pin\":\"\(Self.leaf)\",\"detail\":\"presented CN=me\"}",
                "{\"at\":\"\(at)\",\"event\":\"client_cert_rejected\",\"host\":\"api.example\",\"pin\":\"\(Self.leaf)\",\"detail\":\"presented CN=me; the server sent the TLS alert \\\"unknown CA\\\"\"}",
                "{\"at\":\"\(at)\",\"event\":\"client_cert_rejected\",\"host\":\"api.example\",\"pin\":null,\"detail\":\"none configured\"}",
            ])
        #expect(TrustJournal.read(path: path).map(\.kind) == [.clientCertUsed, .clientCertRejected, .clientCertRejected])
    }

    @Test func pastTheLimitTheFileRotatesToDotOne() throws {
        let path = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = TrustJournal(path: path, rotateAfter: 1_000, clock: { Self.at })
        let event = TrustEvent.pinMatched(host: "api.spotify.com", pin: Self.root, position: .root, isPrimary: true)
        let lineLength = (TrustRecord(event, at: Self.at)?.json.serialized().utf8.count ?? 0) + 1
        let perFile = 1_000 / lineLength
        for _ in 0..<(perFile + 3) { journal.record(event) }
        #expect(Self.lines(path + ".1").count == perFile)
        #expect(Self.lines(path).count == 3)
        for _ in 0..<perFile { journal.record(event) }
        // The second rotation replaces the first .1: never more than two files.
        #expect(Self.lines(path + ".1").count == perFile)
        #expect(Self.lines(path).count == 3)
        #expect(TrustJournal.read(path: path).count == perFile + 3)
        let size = (try FileManager.default.attributesOfItem(atPath: path + ".1")[.size] as? Int) ?? 0
        #expect(size <= 1_000)
    }

    @Test func tornOrForeignLinesAreSkippedWhenRead() throws {
        let path = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try Paths.ensureParentDirectory(of: path)
        try Data(
            "{\"at\":\"t\",\"event\":\"pin_match\",\"host\":\"h\",\"pin\":null,\"detail\":\"\"}\n{\"at\":\"t\",\"ev\ngarbage\n{\"at\":\"t\",\"event\":\"nope\",\"host\":\"h\"}\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: path))
        #expect(TrustJournal.read(path: path).map(\.kind) == [.pinMatch])
    }
}

/// The journal is written from the TLS verify callback: one line per handshake.
@Suite(.tags(.integration), .integrationTier) struct TrustJournalHandshakeTests {
    let pki: TestPKI
    init() async throws { pki = try await TestPKI.shared() }

    @Test func oneLinePerHandshakeNotPerRequest() async throws {
        let path = TrustJournalTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.root], scope: .root), observer: TrustJournal(path: path))
        for _ in 0..<3 { #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200) }
        let records = TrustJournal.read(path: path)
        #expect(records.map(\.kind) == [.pinMatch], "three requests on one kept-alive connection: one handshake")
        #expect(records.first?.host == "127.0.0.1")
        #expect(records.first?.pin == pki.root.description)
    }

    @Test func aMismatchIsWrittenBeforeTheConnectionIsRefused() async throws {
        let path = TrustJournalTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: settings(pki, pins: [pki.other]), observer: TrustJournal(path: path))
        await #expect(throws: TransportError.self) { try await transport.send(HTTPRequest(url: server.url("/ok"))) }
        let records = TrustJournal.read(path: path)
        #expect(records.map(\.kind) == [.pinMismatch])
        #expect(records.first?.pin == pki.leaf.description)
        #expect(try server.requests().isEmpty)
    }
}
