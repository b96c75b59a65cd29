import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

/// `timbre api`: a raw Web API call through the pinned, authorized, rate-limited transport (like
/// `gh api`); the answer's JSON on stdout.
public struct APICommand: Sendable {
    public var method: String?
    public var path: String
    public var input: String?
    public var paginate: Bool
    /// Bodies byte for byte even on a terminal (`--raw`); a pipe always gets them so.
    public var raw: Bool

    public init(method: String?, path: String, input: String?, paginate: Bool, raw: Bool = false) {
        self.method = method
        self.path = path
        self.input = input
        self.paginate = paginate
        self.raw = raw
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let body = try readBody(invocation.console.input)
        let method = try self.method.map(Self.method) ?? (body == nil ? .get : .post)
        if paginate && method != .get { throw UsageError(message: "--paginate follows `next` links of GET answers only") }
        let relative = Self.relative(path)
        guard !relative.isEmpty, !relative.contains("://") || relative.hasPrefix("https://") else {
            throw UsageError(message: "'\(TerminalText.preview(path))' is not a Web API path", hint: "for example `timbre api me/playlists?limit=5`")
        }
        let context = try invocation.context()
        // Checked before signing in and before anything is sent: a path that leaves api_url (an
        // origin of its own, `../x`, `/v1evil`) is refused as the client would refuse it (exit 1).
        _ = try AuthorizedClient.resolve(relative, apiURL: context.config.apiURL)
        let vault = context.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        let api = try context.spotify(vault: vault)
        // A write is sent once: when its answer is lost, say so rather than send it again.
        var response = try await api.send(method, relative, json: body, reconciles: method != .get)
        Self.show(response.body, on: context.console, raw: raw)
        var pages = 1
        while paginate, let next = Self.next(in: response.body), pages < 10_000 {
            response = try await api.get(next)
            Self.show(response.body, on: context.console, raw: raw)
            pages += 1
        }
        return .success
    }

    func readBody(_ stdin: any ConsoleInput) throws -> Data? {
        guard let input else { return nil }
        let data: Data
        if input == "-" {
            data = stdin.readAll()
        } else {
            guard let read = FileManager.default.contents(atPath: input) else {
                throw UsageError(message: "cannot read \(TerminalText.preview(input))", hint: "give a JSON file, or - to read the body from stdin")
            }
            data = read
        }
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            throw UsageError(message: "the request body is not JSON", hint: "Spotify's write endpoints take JSON bodies")
        }
        return data
    }

    static func method(_ text: String) throws -> HTTPMethod {
        guard let method = HTTPMethod(rawValue: text.uppercased()), method != .head else {
            throw UsageError(message: "-X takes GET, POST, PUT or DELETE, not '\(TerminalText.preview(text, limit: 20))'")
        }
        return method
    }

    /// `me`, `/me`, `/v1/me` and `v1/me` all name `{api_url}/me`; an absolute URL is kept (the
    /// client refuses any outside api_url's origin).
    static func relative(_ path: String) -> String {
        var text = path.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("https://") { return text }
        while text.hasPrefix("/") { text.removeFirst() }
        if text.hasPrefix("v1/") { text.removeFirst(3) }
        return text
    }

    /// The `next` link of a page, if any.
    static func next(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        if let next = object["next"] as? String { return next }
        // Search answers nest their pages: {"tracks": {"next": …}}.
        for value in object.values { if let page = value as? [String: Any], let next = page["next"] as? String { return next } }
        return nil
    }

    /// The body, one answer per line: as Spotify sent it into a pipe (or with `--raw`); on a
    /// terminal with its control bytes made visible (newlines and tabs kept), so a server's ESC
    /// or BEL is shown, never obeyed. JSON itself never holds a raw control byte.
    static func show(_ body: Data, on console: Console, raw: Bool = false) {
        guard !body.isEmpty else { return }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .newlines)
        // `--jq`, as `gh api --jq`: each answer through the expression.
        if console.jsonFilter != nil { return console.filtered(json: text) }
        guard console.stdoutIsTTY, !raw else {
            console.line(text)
            return
        }
        console.line(
            text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map { TerminalText.sanitize(String($0)) }.joined(separator: "\t") }
                .joined(separator: "\n"))
    }
}
