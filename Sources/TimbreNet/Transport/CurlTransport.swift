import CCurl
import Foundation
import Logging
import TimbreCore

/// The real transport: libcurl (OpenSSL build) driven by one `curl_multi` loop on its own thread,
/// so many transfers share connections (keep-alive, HTTP/2 multiplexing) and none blocks Swift's
/// cooperative thread pool. Every request is checked against the pin policy before any connection
/// is opened, and again inside the TLS handshake.
public final class CurlTransport: HTTPTransport {
    /// Connections to one host at once — what the server sees in flight; transfers beyond it wait
    /// inside curl for the next free one. Sixteen keeps a full sync bound by the server rather than
    /// by round trips (at 20 ms per answer, 8 made a 4,400-page sync take 12 s).
    public static let connectionsPerHost = 16

    public let settings: TransportSettings
    public var requestDeadline: Duration? { settings.totalTimeout }
    private let loop: CurlMultiLoop
    private let observer: any TrustObserver
    /// `settings.pins` with the remote rules filled in, once they are loaded.
    private let resolvedPins = Locked<PinPolicySet?>(nil)
    private let resolvingPins = Locked<Task<PinPolicySet, Never>?>(nil)
    /// `settings.clientCertificate`, loaded once by the first request; the others wait for it.
    private let loadingIdentity = Locked<Task<Result<ClientIdentity?, ClientCertificateError>, Never>?>(nil)

    public convenience init(settings: TransportSettings, observer: (any TrustObserver)? = nil, logger: Logger = Logger(label: "timbre.tls")) {
        self.init(settings: settings, observer: observer, logger: logger, idlePollMilliseconds: 1000)
    }

    /// `idlePollMilliseconds`: how long the idle loop sleeps when no wakeup comes (tests make it
    /// long, so that a lost wakeup shows as a test past its time limit).
    init(settings: TransportSettings, observer: (any TrustObserver)?, logger: Logger, idlePollMilliseconds: Int32) {
        CurlGlobal.ensureInitialized()
        self.settings = settings
        var observers: [any TrustObserver] = [LoggingTrustObserver(logger: logger)]
        if let observer { observers.append(observer) }
        self.observer = TrustObservers(all: observers)
        self.loop = CurlMultiLoop(idlePollMilliseconds: idlePollMilliseconds)
    }

    /// The loop is asleep waiting for work (tests wait for it before sending).
    var loopIsAsleep: Bool { loop.isAsleep }

    deinit { loop.stop() }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let host = try Self.httpsHost(of: request.url)
        guard let rule = await pinPolicy().rule(for: host) else {
            observer.record(.policyMissing(host: host))
            throw TransportError.trust(TrustFailure(host: host, reason: .noPolicy))
        }
        if let refusal = settings.proxy?.refusal { throw TransportError.invalidRequest(refusal) }
        let identity = try await clientIdentity(host: host)
        let verification = TLSVerification(host: host, purpose: .enforce(rule), observer: observer, identity: identity)
        return try await run(request, host: host, kind: .http, verification: verification)
    }

    /// The pin rules this transport enforces: config.toml's, the applied remote set's, the shipped
    /// defaults. The remote set is loaded (and verified) by the first caller; the rest wait for it.
    public func pinPolicy() async -> PinPolicySet {
        if let ready = resolvedPins.current { return ready }
        guard let load = settings.remotePins else { return settings.pins }
        let task = resolvingPins.withLock { pending -> Task<PinPolicySet, Never> in
            if let pending { return pending }
            let base = settings.pins
            let started = Task { () -> PinPolicySet in
                var pins = base
                pins.remote = await load()
                return pins
            }
            pending = started
            return started
        }
        let pins = await task.value
        resolvedPins.withLock { $0 = pins }
        return pins
    }

    /// The client certificate, loaded (and its password looked up) on the first request, before any
    /// connection is opened: a wrong password or a damaged file fails every request with nothing sent.
    public func clientIdentity(host: String) async throws(TransportError) -> ClientIdentity? {
        guard let configured = settings.clientCertificate else { return nil }
        let task = loadingIdentity.withLock { pending in
            if let pending { return pending }
            let started = Task { () -> Result<ClientIdentity?, ClientCertificateError> in
                do throws(ClientCertificateError) {
                    return .success(try await ClientIdentity.load(configured))
                } catch {
                    return .failure(error)
                }
            }
            pending = started
            return started
        }
        switch await task.value {
        case .success(let identity): return identity
        case .failure(let error): throw .trust(TrustFailure(host: host, reason: .clientCertificate(error)))
        }
    }

    /// Completes a TLS handshake with `url`'s host and returns the chain, sending no HTTP request.
    /// Works for hosts without a pin policy: nothing is sent, and the point is to learn the pins.
    public func inspectChain(of url: URL) async throws -> ChainInspection {
        let host = try Self.httpsHost(of: url)
        if let refusal = settings.proxy?.refusal { throw TransportError.invalidRequest(refusal) }
        let identity = try await clientIdentity(host: host)
        let verification = TLSVerification(host: host, purpose: .inspect, observer: observer, identity: identity)
        _ = try await run(HTTPRequest(url: url), host: host, kind: .connectOnly, verification: verification)
        return ChainInspection(host: host, chain: verification.inspectedChain, trustError: verification.inspectedTrustError)
    }

    func run(_ request: HTTPRequest, host: String, kind: CurlTransfer.Kind, verification: TLSVerification) async throws -> HTTPResponse {
        // Cancellation may arrive before the transfer exists; the flag carries it over.
        let state = Locked<(transfer: CurlTransfer?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let transfer = CurlTransfer(
                    request: request, host: host, kind: kind, verification: verification,
                    settings: settings, continuation: continuation)
                let cancelledEarly = state.withLock { state -> Bool in
                    state.transfer = transfer
                    return state.cancelled
                }
                if cancelledEarly { transfer.cancelled.withLock { $0 = true } }
                loop.submit(transfer)
            }
        } onCancel: {
            let transfer = state.withLock { state -> CurlTransfer? in
                state.cancelled = true
                return state.transfer
            }
            if let transfer { loop.cancel(transfer) }
        }
    }

    static func httpsHost(of url: URL) throws(TransportError) -> String {
        guard url.scheme?.lowercased() == "https" else {
            throw TransportError.invalidRequest("only https:// URLs are allowed (got \(TerminalText.preview(url.absoluteString)))")
        }
        guard let host = url.host, !host.isEmpty else {
            throw TransportError.invalidRequest("URL has no host: \(TerminalText.preview(url.absoluteString))")
        }
        return HostPattern.normalize(host)
    }
}

/// The result of `CurlTransport.inspectChain(of:)`.
public struct ChainInspection: Sendable {
    public var host: String
    /// Leaf first. When `trustError` is nil this is the verified chain, trust anchor included.
    public var chain: [ChainEntry]
    /// Why the chain did not verify against the configured anchors, if it did not.
    public var trustError: String?
}

enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        return true
    }()

    static func ensureInitialized() { _ = initialized }
}

/// Owns the `CURLM*` and the thread that drives it. Other threads only hand it work through
/// `submit`/`cancel`, which wake it with `curl_multi_wakeup` when it sleeps.
final class CurlMultiLoop: @unchecked Sendable {
    /// Work handed to the loop by other threads.
    struct Inbox {
        var submissions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
        var stopping = false
        /// The loop is (about to be) asleep in `curl_multi_poll` and needs a wakeup to see new work.
        /// Set and read under the same lock as the work, so no submission can slip in unseen.
        var sleeping = false

        /// Adds work; true when the caller must wake the loop (only the first caller after it fell asleep).
        mutating func post(_ change: (inout Inbox) -> Void) -> Bool {
            change(&self)
            defer { sleeping = false }
            return sleeping
        }

        /// The loop takes everything posted so far.
        mutating func take() -> (submissions: [CurlTransfer], cancellations: [CurlTransfer], stopping: Bool) {
            defer {
                submissions = []
                cancellations = []
            }
            return (submissions, cancellations, stopping)
        }

        /// The loop may sleep only when nothing is waiting; from then on the next post wakes it.
        mutating func fallAsleep() -> Bool {
            sleeping = submissions.isEmpty && cancellations.isEmpty && !stopping
            return sleeping
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private let idlePollMilliseconds: Int32

    var isAsleep: Bool { inbox.withLock { $0.sleeping } }

    init(idlePollMilliseconds: Int32 = 1000) {
        self.idlePollMilliseconds = idlePollMilliseconds
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        _ = tcurl_multi_set_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = tcurl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, CurlTransport.connectionsPerHost)
        // curl's default cache keeps 4 connections per easy handle *currently added*: when the task
        // pool is briefly slow to hand over the next requests, finished connections were closed and
        // the next burst paid new TLS handshakes (224 per large sync instead of 16).
        _ = tcurl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, CurlTransport.connectionsPerHost * 2)
        let thread = Thread { [self] in run() }
        thread.name = "timbre-curl"
        thread.start()
    }

    func submit(_ transfer: CurlTransfer) {
        post { $0.submissions.append(transfer) }
    }

    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelled.withLock { $0 = true }
        post { $0.cancellations.append(transfer) }
    }

    func stop() {
        post { $0.stopping = true }
    }

    /// A wakeup is a write to curl's socket pair and a trip through `poll` for the loop: a sync
    /// submits ~4,400 requests, mostly while the loop is busy anyway, so only a sleeping loop is woken.
    private func post(_ change: (inout Inbox) -> Void) {
        if inbox.withLock({ $0.post(change) }) { curl_multi_wakeup(multi) }
    }

    private func run() {
        while true {
            let work = inbox.withLock { $0.take() }
            for transfer in work.submissions {
                if transfer.cancelled.current {
                    transfer.finish(.failure(CancellationError()))
                } else if let easy = transfer.makeEasyHandle() {
                    active[easy] = transfer
                    curl_multi_add_handle(multi, easy)
                }
            }
            for transfer in work.cancellations {
                guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { continue }
                curl_multi_remove_handle(multi, easy)
                transfer.cleanup()
                transfer.finish(.failure(CancellationError()))
            }
            if work.stopping {
                for (easy, transfer) in active {
                    curl_multi_remove_handle(multi, easy)
                    transfer.cleanup()
                    transfer.finish(.failure(CancellationError()))
                }
                active = [:]
                curl_multi_cleanup(multi)
                return
            }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let code = tcurl_msg_result(message)
                curl_multi_remove_handle(multi, easy)
                transfer.complete(code)
            }
            if inbox.withLock({ $0.fallAsleep() }) {
                curl_multi_poll(multi, nil, 0, idlePollMilliseconds, nil)
                inbox.withLock { $0.sleeping = false }
            }
        }
    }
}
