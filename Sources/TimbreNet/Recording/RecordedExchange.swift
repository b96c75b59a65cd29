import Foundation
import TimbreCore

/// One request and its answer as `TIMBRE_RECORD` writes it (one JSON file per exchange,
/// `0007-GET-v1-me-playlists.json`) and `TIMBRE_REPLAY` reads it back. Everything in it has been
/// through `ExchangeRedaction`: no token, code, verifier, client secret, cookie or
/// `Authorization` value — those read `REDACTED`.
public struct RecordedExchange: Sendable {
    public enum Outcome: Sendable {
        case response(HTTPResponse)
        /// No HTTP answer: what `TransportError` said (`kind` is a connection failure kind, or
        /// `other`; `message` its detail).
        case failure(kind: String, host: String, message: String)
    }

    public var sequence: Int
    public var method: String
    /// Scheme, host, path and query; secret query values read `REDACTED`.
    public var url: String
    public var requestHeaders: [(name: String, value: String)]
    public var requestBody: Data?
    public var outcome: Outcome

    /// The redacted record of `request` and what came of it.
    init(sequence: Int, request: HTTPRequest, outcome: Result<HTTPResponse, TransportError>) {
        var redaction = ExchangeRedaction()
        self.sequence = sequence
        method = request.method.rawValue
        url = redaction.fields(request.url.absoluteString)
        requestHeaders = request.headers.map { ($0.name, redaction.header(name: $0.name, value: $0.value)) }
        let form = request.headers.contains { $0.name.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("application/x-www-form-urlencoded") }
        requestBody = request.body.map { Self.redactBody($0) { redaction.body($0, form: form) } }
        switch outcome {
        case .success(let response):
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name] = redaction.header(name: name, value: value) }
            let body = Self.redactBody(response.body) { redaction.json($0) }
            self.outcome = .response(HTTPResponse(status: response.status, headers: headers, body: body))
        case .failure(let error):
            var kind = "other", host = request.url.host ?? "", detail = error.message
            if case .connection(let target, let failure, let what) = error {
                kind = failure.rawValue
                host = target
                detail = what
            }
            self.outcome = .failure(kind: kind, host: host, message: redaction.fields(detail))
        }
        scrub = redaction
    }

    /// The redaction that made this record, for the final pass over its text.
    private var scrub = ExchangeRedaction()

    private static func redactBody(_ data: Data, _ redact: (String) -> String) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        return Data(redact(text).utf8)
    }

    /// What a replayed request is matched by: method, path and query (secret values already
    /// `REDACTED` on both sides); scheme, host and port are left out, so a recording made against
    /// one server replays for a config that names another.
    public var key: String { Self.key(method: method, url: url) }

    static func key(method: String, url: String) -> String {
        guard let parts = URLComponents(string: url) else { return method + " " + url }
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        return method + " " + path + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The key of a live request, redacted the same way as the recorded ones.
    static func key(of request: HTTPRequest) -> String {
        var redaction = ExchangeRedaction()
        return key(method: request.method.rawValue, url: redaction.fields(request.url.absoluteString))
    }

    /// `0007-GET-v1-me-playlists.json`: the order, the method and the path, readable in `ls`.
    public var fileName: String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        let words = path.split(separator: "/").map { word in
            String(word.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_" })
        }
        let tail = words.joined(separator: "-").prefix(80)
        let number = String(sequence)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "-" + method + (tail.isEmpty ? "" : "-" + tail) + ".json"
    }

    // MARK: - The file

    /// The file's text: one member per line, bodies as strings (base64 when not UTF-8).
    public func serialized() -> String {
        var members: [(String, JSONValue)] = [
            ("sequence", .int(sequence)),
            ("method", .string(method)),
            ("url", .string(url)),
            ("request_headers", .array(requestHeaders.map { .array([.string($0.name), .string($0.value)]) })),
        ]
        members += Self.body(requestBody, prefix: "request_")
        switch outcome {
        case .response(let response):
            members.append(("status", .int(response.status)))
            members.append(("response_headers", .object(response.headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
            members += Self.body(response.body, prefix: "response_")
        case .failure(let kind, let host, let message):
            members.append(("error", .object([("kind", .string(kind)), ("host", .string(host)), ("message", .string(message))])))
        }
        let lines = members.map { "  " + JSONValue.string($0.0).serialized() + ": " + $0.1.serialized() }
        return scrub.scrub("{\n" + lines.joined(separator: ",\n") + "\n}\n")
    }

    private static func body(_ data: Data?, prefix: String) -> [(String, JSONValue)] {
        guard let data else { return [(prefix + "body", .null)] }
        if let text = String(data: data, encoding: .utf8) { return [(prefix + "body", .string(text))] }
        return [(prefix + "body_base64", .string(data.base64EncodedString()))]
    }

    /// Reads a file `serialized()` wrote.
    public static func parse(_ data: Data) -> RecordedExchange? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let sequence = object["sequence"] as? Int, let method = object["method"] as? String, let url = object["url"] as? String
        else { return nil }
        let headers = (object["request_headers"] as? [[String]] ?? []).compactMap { pair in pair.count == 2 ? (name: pair[0], value: pair[1]) : nil }
        let outcome: Outcome
        if let status = object["status"] as? Int {
            let responseHeaders = object["response_headers"] as? [String: String] ?? [:]
            guard let body = body(object, prefix: "response_") else { return nil }
            outcome = .response(HTTPResponse(status: status, headers: responseHeaders, body: body))
        } else if let error = object["error"] as? [String: String] {
            outcome = .failure(kind: error["kind"] ?? "other", host: error["host"] ?? "", message: error["message"] ?? "")
        } else {
            return nil
        }
        return RecordedExchange(
            sequence: sequence, method: method, url: url, requestHeaders: headers, requestBody: body(object, prefix: "request_"),
            outcome: outcome)
    }

    private init(sequence: Int, method: String, url: String, requestHeaders: [(name: String, value: String)], requestBody: Data?, outcome: Outcome) {
        self.sequence = sequence
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.outcome = outcome
    }

    private static func body(_ object: [String: Any], prefix: String) -> Data? {
        if let text = object[prefix + "body"] as? String { return Data(text.utf8) }
        if let encoded = object[prefix + "body_base64"] as? String { return Data(base64Encoded: encoded) }
        return nil
    }
}
