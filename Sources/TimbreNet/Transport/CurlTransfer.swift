import CCurl
import Foundation
import TimbreCore

/// One transfer: the request, its curl easy handle and everything curl writes back.
/// Created by `CurlTransport`, then owned by the loop thread until it finishes.
final class CurlTransfer: @unchecked Sendable {
    enum Kind { case http, connectOnly }

    let request: HTTPRequest
    let host: String
    let kind: Kind
    let verification: TLSVerification
    let settings: TransportSettings
    let cancelled = Locked(false)
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?

    // Loop thread only from here on.
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var headers: [String: String] = [:]
    private var body = Data()
    private var tooLarge = false

    init(
        request: HTTPRequest, host: String, kind: Kind, verification: TLSVerification, settings: TransportSettings,
        continuation: CheckedContinuation<HTTPResponse, any Error>
    ) {
        self.request = request
        self.host = host
        self.kind = kind
        self.verification = verification
        self.settings = settings
        self.continuation = continuation
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        cleanup()
        errorBuffer.deallocate()
    }

    /// Resumes the waiting task once; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(with: result)
    }

    func cleanup() {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    /// Builds the easy handle. Returns nil (after finishing with an error) when curl refuses an option.
    func makeEasyHandle() -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else {
            finish(.failure(TransportError.invalidRequest("curl could not allocate a transfer")))
            return nil
        }
        self.easy = easy
        var codes = connectionOptions(easy)
        codes += tlsOptions(easy)
        if kind == .connectOnly {
            codes.append(tcurl_set_long(easy, CURLOPT_CONNECT_ONLY, 1))
        } else {
            codes += httpOptions(easy)
        }
        if let bad = codes.first(where: { $0 != CURLE_OK }) {
            let text = curl_easy_strerror(bad).map { String(cString: $0) } ?? "error \(bad.rawValue)"
            finish(.failure(TransportError.invalidRequest("curl rejected an option: \(text)")))
            cleanup()
            return nil
        }
        return easy
    }

    /// Where and how long: the URL, https only, no redirects, the timeouts, a connection of its
    /// own for a write, the proxy of the run.
    private func connectionOptions(_ easy: UnsafeMutableRawPointer) -> [CURLcode] {
        var codes: [CURLcode] = []
        codes.append(tcurl_set_string(easy, CURLOPT_URL, request.url.absoluteString))
        codes.append(tcurl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        codes.append(tcurl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        // https only, no redirects followed: a redirect could leave the pinned host.
        codes.append(tcurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "https"))
        codes.append(tcurl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        codes.append(tcurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeout.milliseconds))
        codes.append(tcurl_set_long(easy, CURLOPT_TIMEOUT_MS, (request.timeout ?? settings.totalTimeout).milliseconds))
        if !request.repeatable {
            // libcurl quietly sends a request again when a reused connection dies before any
            // answer — right for a read, wrong for a write the server may have applied (seen: an
            // add applied twice). A write gets a connection of its own, so the only one who
            // decides about sending it again is the executor, which never does once it may have arrived.
            codes.append(tcurl_set_long(easy, CURLOPT_FRESH_CONNECT, 1))
            codes.append(tcurl_set_long(easy, CURLOPT_FORBID_REUSE, 1))
        }
        // The proxy comes from the run's environment only: an empty CURLOPT_PROXY turns libcurl's
        // own look at the process environment off, and CURLOPT_NOPROXY likewise (ProxySettings).
        codes.append(tcurl_set_string(easy, CURLOPT_PROXY, settings.proxy?.url ?? ""))
        codes.append(tcurl_set_string(easy, CURLOPT_NOPROXY, settings.proxy?.noProxy ?? ""))
        return codes
    }

    /// TLS: minimum version, system trust + hostname, then our pin check inside the handshake.
    private func tlsOptions(_ easy: UnsafeMutableRawPointer) -> [CURLcode] {
        var codes: [CURLcode] = []
        let version = settings.minimumTLS == .tls13 ? CURL_SSLVERSION_TLSv1_3 : CURL_SSLVERSION_TLSv1_2
        codes.append(tcurl_set_long(easy, CURLOPT_SSLVERSION, Int(version)))
        codes.append(tcurl_set_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
        codes.append(tcurl_set_long(easy, CURLOPT_SSL_VERIFYHOST, kind == .connectOnly ? 0 : 2))
        if let caFile = settings.caFile {
            codes.append(tcurl_set_string(easy, CURLOPT_CAINFO, caFile))
            codes.append(tcurl_set_pointer(easy, CURLOPT_CAPATH, nil))
        }
        // A resumed TLS session skips certificate verification, and with it the pin check.
        codes.append(tcurl_set_long(easy, CURLOPT_SSL_SESSIONID_CACHE, 0))
        codes.append(
            tcurl_set_ssl_ctx_callback(
                easy,
                { _, sslContext, userdata in
                    guard let sslContext, let userdata else { return CURLE_SSL_CERTPROBLEM }
                    TLSVerification.installVerifyCallback(sslContext: sslContext, verification: userdata)
                    return CURLE_OK
                }))
        codes.append(tcurl_set_pointer(easy, CURLOPT_SSL_CTX_DATA, Unmanaged.passUnretained(verification).toOpaque()))
        return codes
    }

    /// HTTP: compression, HTTP/2, the user agent, method and body, headers, and where the answer goes.
    private func httpOptions(_ easy: UnsafeMutableRawPointer) -> [CURLcode] {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = []
        codes.append(tcurl_set_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        codes.append(tcurl_set_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
        // No CURLOPT_PIPEWAIT: against HTTP/1.1 servers it held cold-start transfers back
        // until a one-second poll tick; parallel connections are cheaper than that wait.
        codes.append(tcurl_set_string(easy, CURLOPT_USERAGENT, settings.userAgent))
        codes.append(contentsOf: setMethodAndBody(easy))
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for (name, value) in request.headers {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        headerList = list
        codes.append(tcurl_set_slist(easy, CURLOPT_HTTPHEADER, list))
        codes.append(
            tcurl_set_data_callback(
                easy, CURLOPT_WRITEFUNCTION,
                { pointer, size, count, userdata in
                    guard let userdata else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
                    return transfer.receiveBody(pointer, size * count)
                }))
        codes.append(tcurl_set_pointer(easy, CURLOPT_WRITEDATA, me))
        codes.append(
            tcurl_set_data_callback(
                easy, CURLOPT_HEADERFUNCTION,
                { pointer, size, count, userdata in
                    guard let userdata else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
                    return transfer.receiveHeader(pointer, size * count)
                }))
        codes.append(tcurl_set_pointer(easy, CURLOPT_HEADERDATA, me))
        return codes
    }

    private func setMethodAndBody(_ easy: UnsafeMutableRawPointer) -> [CURLcode] {
        var codes: [CURLcode] = []
        switch request.method {
        case .get: break
        case .head: codes.append(tcurl_set_long(easy, CURLOPT_NOBODY, 1))
        case .post: codes.append(tcurl_set_long(easy, CURLOPT_POST, 1))
        case .put, .delete: codes.append(tcurl_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        if let body = request.body {
            codes.append(tcurl_set_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            codes.append(
                body.withUnsafeBytes { raw in
                    // COPYPOSTFIELDS copies, so the Data may go away after this call.
                    tcurl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                })
        } else if request.method != .get, request.method != .head {
            // A write without a body still says `Content-Length: 0` (POST, PUT and DELETE alike):
            // Spotify's front end answers 411 otherwise. An empty POSTFIELDS makes curl send it.
            codes.append(tcurl_set_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0))
            codes.append(tcurl_set_string(easy, CURLOPT_COPYPOSTFIELDS, ""))
        }
        return codes
    }

    private func receiveBody(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let pointer else { return 0 }
        if body.count + count > settings.maxResponseBytes {
            tooLarge = true
            return 0
        }
        body.append(UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    private func receiveHeader(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let pointer else { return 0 }
        // Byte-level: this runs for every header line of every response.
        let line = UnsafeRawBufferPointer(start: pointer, count: count).bindMemory(to: UInt8.self)
        if line.starts(with: "HTTP/".utf8) {
            headers = [:]  // a new response (after 100 Continue): forget the previous headers
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: Self.trimmed(line[..<colon]).map(Self.asciiLowercased), as: UTF8.self)
            let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
            if let existing = headers[name] { headers[name] = existing + ", " + value } else { headers[name] = value }
            // One allocation for the body instead of a dozen growing copies.
            if name == "content-length", let length = Int(value), length > 0, body.isEmpty {
                body.reserveCapacity(min(length, settings.maxResponseBytes))
            }
        }
        return count
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Called on the loop thread when curl reports the transfer done.
    func complete(_ code: CURLcode) {
        defer { cleanup() }
        guard code == CURLE_OK else {
            finish(.failure(error(for: code)))
            return
        }
        if verification.clientCertificateSent, let identity = verification.identity {
            verification.observer.record(.clientCertificateUsed(host: host, subject: identity.subject, pin: identity.pin))
        }
        var status = 0
        if kind == .http, let easy {
            var value: Int = 0
            _ = tcurl_get_long(easy, CURLINFO_RESPONSE_CODE, &value)
            status = value
        }
        finish(.success(HTTPResponse(status: status, headers: headers, body: body)))
    }

    /// A handshake the server ended with an alert after it asked for a client certificate: the
    /// certificate timbre presented was refused, or none was configured. Told apart from a pin
    /// mismatch (decided on our side, before any certificate goes out) by the order of `error(for:)`.
    private func clientCertificateRejection() -> TransportError? {
        guard verification.serverAskedForCertificate, let alert = verification.fatalAlert else { return nil }
        if verification.clientCertificateSent, let identity = verification.identity {
            verification.observer.record(
                .clientCertificateRejected(host: host, subject: identity.subject, pin: identity.pin, reason: "the server sent the TLS alert \"\(alert)\""))
            return .trust(TrustFailure(host: host, reason: .clientCertificateRejected(subject: identity.subject, path: identity.path, alert: alert)))
        }
        guard verification.identity == nil else { return nil }
        verification.observer.record(
            .clientCertificateRejected(
                host: host, subject: nil, pin: nil,
                reason: "the server asked for a client certificate and [tls] client_cert is not set; it sent the TLS alert \"\(alert)\""))
        return .trust(TrustFailure(host: host, reason: .clientCertificateRequired(alert: alert)))
    }

    private func error(for code: CURLcode) -> any Error {
        if let failure = verification.failure {
            return TransportError.trust(TrustFailure(host: host, reason: failure))
        }
        if let rejection = clientCertificateRejection() { return rejection }
        let detail: String = {
            let buffer = String(cString: errorBuffer)
            let text = buffer.isEmpty ? (curl_easy_strerror(code).map { String(cString: $0) } ?? "curl error \(code.rawValue)") : buffer
            // libcurl quotes a URL it rejects whole, credentials included.
            guard let proxy = settings.proxy else { return Redactor.maskUserinfo(text) }
            return "\(proxy.masking(text)); through the proxy \(proxy.redacted) from \(proxy.variable)"
        }()
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            return TransportError.trust(TrustFailure(host: host, reason: .certificateInvalid(detail)))
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return TransportError.trust(TrustFailure(host: host, reason: .caFileUnusable(detail)))
        case CURLE_SSL_CONNECT_ERROR:
            let lowered = detail.lowercased()
            if ["protocol version", "unsupported protocol", "wrong version number", "no protocols available", "version too low"]
                .contains(where: lowered.contains)
            {
                return TransportError.trust(TrustFailure(host: host, reason: .protocolTooOld(minimum: settings.minimumTLS, detail: detail)))
            }
            return TransportError.connection(host: host, kind: .tls, detail: detail)
        case CURLE_COULDNT_CONNECT:
            return TransportError.connection(host: host, kind: .refused, detail: detail)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return TransportError.connection(host: host, kind: .dns, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError.connection(host: host, kind: .timeout, detail: detail)
        case CURLE_WRITE_ERROR where tooLarge:
            return TransportError.responseTooLarge(host: host, limit: settings.maxResponseBytes)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            return TransportError.connection(host: host, kind: .reset, detail: detail)
        default:
            return TransportError.connection(host: host, kind: .other, detail: detail)
        }
    }
}
