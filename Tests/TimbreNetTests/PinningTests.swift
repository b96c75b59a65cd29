import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreNet

/// Pinning against a real TLS server (Python's ssl module, certificates from the openssl CLI).
@Suite(.tags(.integration), .integrationTier) struct PinningTests {
    let pki: TestPKI

    init() async throws { pki = try await TestPKI.shared() }

    @Test func correctLeafPinPasses() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf], scope: .leaf), observer: recorder)
        let response = try await transport.send(HTTPRequest(url: server.url("/ok")))
        #expect(response.status == 200)
        #expect(recorder.events == [.pinMatched(host: "127.0.0.1", pin: pki.leaf, position: .leaf, isPrimary: true)])
    }

    @Test func rootPinWithRootScopePasses() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.root], scope: .root), observer: recorder)
        #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        #expect(recorder.events == [.pinMatched(host: "127.0.0.1", pin: pki.root, position: .root, isPrimary: true)])
    }

    @Test func intermediatePinWithIntermediateScopePasses() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.intermediate], scope: .intermediate), observer: recorder)
        #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        #expect(recorder.events.first == .pinMatched(host: "127.0.0.1", pin: pki.intermediate, position: .intermediate, isPrimary: true))
    }

    @Test func backupPinPassesAndIsReportedAsBackup() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.other, pki.leaf]), observer: recorder)
        #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        #expect(recorder.events == [.pinMatched(host: "127.0.0.1", pin: pki.leaf, position: .leaf, isPrimary: false)])
    }

    @Test func wrongPinFailsInsideTheHandshakeAndSendsNoRequest() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.other]), observer: recorder)
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.url("/ok"), headers: [("Authorization", "Bearer secret-token")]))
        }
        guard case .trust(let failure)? = error else {
            Issue.record("expected a trust failure, got \(String(describing: error))")
            return
        }
        guard case .pinMismatch(let expected, _, let presented) = failure.reason else {
            Issue.record("\(failure)")
            return
        }
        #expect(expected == [pki.other])
        #expect(presented.map(\.pin) == [pki.leaf, pki.intermediate, pki.root])
        #expect(error?.exitStatus == .trustFailure)
        #expect(error?.message.contains("127.0.0.1") == true)
        #expect(try server.requests().isEmpty, "the server must not receive any HTTP request")
        #expect(recorder.events.count == 1)
        if case .pinMismatch(let host, _)? = recorder.events.first { #expect(host == "127.0.0.1") } else { Issue.record("no mismatch event") }
    }

    @Test func pinOutsideItsScopeDoesNotCount() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        // The root's key, but the rule only looks at the leaf.
        let transport = CurlTransport(settings: settings(pki, pins: [pki.root], scope: .leaf))
        await #expect(throws: TransportError.self) { try await transport.send(HTTPRequest(url: server.url("/ok"))) }
        #expect(try server.requests().isEmpty)
    }

    @Test func permissiveModeLogsTheMismatchAndProceeds() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.other], mode: .permissive), observer: recorder)
        #expect(try await transport.send(HTTPRequest(url: server.url("/ok"))).status == 200)
        guard case .allowedByPermissiveMode(let host, let presented)? = recorder.events.first else {
            Issue.record("expected allowedByPermissiveMode, got \(recorder.events)")
            return
        }
        #expect(host == "127.0.0.1")
        #expect(presented.first?.pin == pki.leaf)
        #expect(try server.requests().count == 1)
    }

    @Test func hostWithoutPolicyIsRefusedBeforeConnecting() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf], host: "api.example.com"), observer: recorder)
        let error = await #expect(throws: TransportError.self) { try await transport.send(HTTPRequest(url: server.url("/ok"))) }
        #expect(error == .trust(TrustFailure(host: "127.0.0.1", reason: .noPolicy)))
        #expect(error?.exitStatus == .trustFailure)
        #expect(recorder.events == [.policyMissing(host: "127.0.0.1")])
        #expect(try server.requests().isEmpty)
    }

    @Test func systemTrustStillRunsWhenThePinMatches() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let recorder = TrustEventRecorder()
        // Right pin, but the chain's root is not a trusted anchor.
        var untrusted = settings(pki, pins: [pki.leaf])
        untrusted.caFile = pki.directory.appendingPathComponent("other-root.pem").path
        let transport = CurlTransport(settings: untrusted, observer: recorder)
        let error = await #expect(throws: TransportError.self) { try await transport.send(HTTPRequest(url: server.url("/ok"))) }
        guard case .trust(let failure)? = error, case .certificateInvalid = failure.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
        guard case .systemTrustFailed? = recorder.events.first else {
            Issue.record("\(recorder.events)")
            return
        }
        #expect(try server.requests().isEmpty)
    }

    @Test func hostnameVerificationStillRuns() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        // The leaf names 127.0.0.1 only; "localhost" resolves to the same server.
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf], host: "localhost"))
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.url("/ok", host: "localhost")))
        }
        guard case .trust(let failure)? = error, case .certificateInvalid = failure.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(try server.requests().isEmpty)
    }

    @Test func tls11OnlyServerIsRefused() async throws {
        let server = try await TestTLSServer.start(pki: pki, tls: "1.1")
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf]))
        let error = await #expect(throws: TransportError.self) { try await transport.send(HTTPRequest(url: server.url("/ok"))) }
        guard case .trust(let failure)? = error, case .protocolTooOld = failure.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(error?.exitStatus == .trustFailure)
        #expect(try server.requests().isEmpty)
    }

    @Test func minimumTLS13RefusesATLS12OnlyServer() async throws {
        let server = try await TestTLSServer.start(pki: pki, tls: "1.2")
        let transport = CurlTransport(settings: settings(pki, pins: [pki.leaf], minimumTLS: .tls13))
        let error = await #expect(throws: TransportError.self) { try await transport.send(HTTPRequest(url: server.url("/ok"))) }
        #expect(error?.exitStatus == .trustFailure)
    }

    @Test func inspectionReturnsTheVerifiedChainWithoutSendingARequest() async throws {
        let server = try await TestTLSServer.start(pki: pki)
        let transport = CurlTransport(settings: TransportSettings(pins: PinPolicySet(configured: []), caFile: pki.rootFile))
        let inspection = try await transport.inspectChain(of: server.url("/"))
        #expect(inspection.trustError == nil)
        #expect(inspection.chain.map(\.position) == [.leaf, .intermediate, .root])
        #expect(inspection.chain.map(\.pin) == [pki.leaf, pki.intermediate, pki.root])
        #expect(inspection.chain.first?.subject == "CN=127.0.0.1")
        #expect(try server.requests().isEmpty)
    }

    @Test func certificateFileGivesTheSamePinsAsOpenSSL() throws {
        let data = try Data(contentsOf: pki.directory.appendingPathComponent("chain.pem"))
        let entries = Certificate.describeFileChain(try Certificate.parsePEM(data))
        #expect(entries.map(\.pin) == [pki.leaf, pki.intermediate])
        #expect(entries.map(\.position) == [.leaf, .intermediate])
        let root = Certificate.describeFileChain(try Certificate.parsePEM(Data(contentsOf: URL(fileURLWithPath: pki.rootFile))))
        #expect(root.map(\.position) == [.root])
        #expect(throws: CertificateError.noCertificates) { try Certificate.parsePEM(Data("not a pem".utf8)) }
    }
}
