import Foundation
import SandboxCore

/// What `timbre-sandbox serve` prints on its one line of stdout (also in `DIR/sandbox.json`).
public struct SandboxInfo: Decodable, Sendable {
    public struct Pins: Decodable, Sendable {
        public var leaf: String
        public var intermediate: String
        public var root: String
    }

    public var pid: Int32
    public var port: Int
    public var baseURL: String
    public var accountsURL: String
    public var apiURL: String
    public var caFile: String
    public var pins: Pins
    public var clientID: String
    public var userID: String
    public var requestLog: String
    /// The file holding the owner's secret (`ControlSecret`), mode 0600.
    public var secretFile: String?

    enum CodingKeys: String, CodingKey {
        case pid, port, pins
        case baseURL = "base_url", accountsURL = "accounts_url", apiURL = "api_url", caFile = "ca_file"
        case clientID = "client_id", userID = "user_id", requestLog = "request_log", secretFile = "secret_file"
    }

    /// The endpoints and `[tls]` part of a config.toml for this sandbox: its CA trusted, one pin
    /// rule for 127.0.0.1 (`pins`: default its root, with scope `root`). `top`: lines that go
    /// before the `[tls]` table (client id, redirect port, …).
    public func configTOML(pins: [String]? = nil, scope: String? = nil, top: String = "") -> String {
        let pinList = (pins ?? [self.pins.root]).map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            \(top)
            accounts_url = "\(accountsURL)"
            api_url = "\(apiURL)"
            [tls]
            ca_file = "\(caFile)"

            [[tls.pin]]
            host = "127.0.0.1"
            pins = [\(pinList)]
            scope = "\(scope ?? (pins == nil ? "root" : "any"))"
            """
    }
}

public enum SandboxProcessError: Error, CustomStringConvertible {
    case binaryNotFound([String])
    case startTimeout(String)
    case exitedEarly(String)
    case controlFailed(String, Int, String)

    public var description: String {
        switch self {
        case let .binaryNotFound(places): "timbre-sandbox not found (set TIMBRE_BIN_DIR); looked in \(places)"
        case let .startTimeout(log): "timbre-sandbox did not announce itself in time; stderr:\n\(log)"
        case let .exitedEarly(log): "timbre-sandbox exited before announcing itself; stderr:\n\(log)"
        case let .controlFailed(path, status, body): "control call \(path) answered \(status): \(body)"
        }
    }
}

/// A sandbox that requires client certificates (`serve --client-ca`): the CA it trusts, and a
/// certificate and key it accepts, which the control calls (`curl`) present.
public struct SandboxClientTLS: Sendable {
    public var caFile: String
    public var certificateFile: String
    public var keyFile: String

    public init(caFile: String, certificateFile: String, keyFile: String) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// A `timbre-sandbox serve` child process on a free port with its own state directory.
/// Talks to it with `/usr/bin/curl --cacert ca.pem` (Foundation's URLSession cannot be given a CA on Linux).
public final class SandboxProcess: @unchecked Sendable {
    public let info: SandboxInfo
    public let stateDirectory: URL
    /// Set when the sandbox requires client certificates.
    public let clientTLS: SandboxClientTLS?
    /// The owner's secret, read from `info.secretFile`: every control call and `/authorize` sends it.
    public let secret: String
    /// A 0600 file in the state folder holding the line `X-Sandbox-Secret: …`, for
    /// `curl -H @FILE` (the secret never goes into a command line).
    public let secretHeaderFile: String
    private let process: Process

    private init(info: SandboxInfo, stateDirectory: URL, process: Process, clientTLS: SandboxClientTLS?) throws {
        self.info = info
        self.stateDirectory = stateDirectory
        self.process = process
        self.clientTLS = clientTLS
        secret = try ControlSecret.read(in: stateDirectory.path)
        secretHeaderFile = stateDirectory.appendingPathComponent("control-header").path
        guard FileManager.default.createFile(atPath: secretHeaderFile, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw SandboxProcessError.exitedEarly("could not write \(secretHeaderFile)")
        }
        try Data("\(ControlSecret.header): \(secret)\n".utf8).write(to: URL(fileURLWithPath: secretHeaderFile))
    }

    deinit {
        if !process.hasEnded { process.terminate() }
    }

    // MARK: Launching

    /// The directory holding the built `timbre-sandbox` (and `timbre`) executables.
    public static func binaryDirectory(file: String = #filePath) throws -> URL {
        var candidates: [URL] = []
        if let dir = ProcessInfo.processInfo.environment["TIMBRE_BIN_DIR"], !dir.isEmpty {
            candidates.append(URL(fileURLWithPath: dir))
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent())
        }
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent(".build/debug"))
            directory.deleteLastPathComponent()
        }
        for candidate in candidates
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("timbre-sandbox").path) {
            return candidate
        }
        throw SandboxProcessError.binaryNotFound(candidates.map(\.path))
    }

    /// `timeout`: how long the sandbox may take to announce itself — a safety net against a hang,
    /// not a bound on speed: at the suite's start dozens of them start at once on two cores.
    public static func start(
        library: LibrarySize = .small, seed: UInt64 = 42, extraArguments: [String] = [], clientTLS: SandboxClientTLS? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> SandboxProcess {
        let binary = try binaryDirectory().appendingPathComponent("timbre-sandbox")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let stderrURL = state.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)

        let process = Process()
        process.executableURL = binary
        process.arguments =
            ["serve", "--state-dir", state.path, "--port", "0", "--library", library.rawValue, "--seed", String(seed)]
            + extraArguments + (clientTLS.map { ["--client-ca", $0.caFile] } ?? [])
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()

        let line = LineReader(handle: stdout.fileHandleForReading)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = line.firstLine {
                guard let info = try? JSONDecoder().decode(SandboxInfo.self, from: Data(text.utf8)) else {
                    process.terminate()
                    throw SandboxProcessError.exitedEarly("unexpected stdout: \(text)")
                }
                do {
                    return try SandboxProcess(info: info, stateDirectory: state, process: process, clientTLS: clientTLS)
                } catch {
                    process.terminate()
                    throw error
                }
            }
            if process.hasEnded {
                throw SandboxProcessError.exitedEarly((try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        throw SandboxProcessError.startTimeout((try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
    }

    /// SIGTERM, then wait (SIGKILL after 5 s, and wait again); removes the state directory.
    public func stop() async {
        if !process.hasEnded {
            process.terminate()
            let deadline = ContinuousClock.now + .seconds(5)
            while !process.hasEnded, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if !process.hasEnded {
                kill(process.processIdentifier, SIGKILL)
                // Gone once the kernel says so, not when the signal is sent.
                let killed = ContinuousClock.now + .seconds(30)
                while !process.hasEnded, ContinuousClock.now < killed { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    public var isRunning: Bool { !process.hasEnded }
    /// The exit status once it has ended (128 + the signal, for a signal); nil while it runs.
    public var terminationStatus: Int32? { process.endedStatus }
    public var stderrLog: String {
        (try? String(contentsOf: stateDirectory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    // MARK: curl

    /// Runs `/usr/bin/curl -s --cacert ca.pem <arguments>` against the sandbox. `path` is appended to the base URL.
    /// `owner`: sends the owner's secret (control endpoints, `/authorize`).
    public func curl(
        _ path: String, method: String? = nil, headers: [String] = [], data: [String] = [], json: String? = nil,
        bearer: String? = nil, owner: Bool = false, extraArguments: [String] = []
    ) async throws -> CurlResult {
        var arguments = extraArguments
        if owner { arguments += ["-H", "@" + secretHeaderFile] }
        if let clientTLS { arguments += ["--cert", clientTLS.certificateFile, "--key", clientTLS.keyFile] }
        if let method { arguments += ["-X", method] }
        for header in headers { arguments += ["-H", header] }
        if let bearer { arguments += ["-H", "Authorization: Bearer \(bearer)"] }
        for field in data { arguments += ["--data-urlencode", field] }
        if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
        return try await SandboxProcess.runCurl(arguments + [info.baseURL + path], caFile: info.caFile)
    }

    public static func runCurl(_ arguments: [String], caFile: String?) async throws -> CurlResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bodyURL = scratch.appendingPathComponent("body")
        let headerURL = scratch.appendingPathComponent("headers")
        // The sandbox is on loopback: a proxy in the developer's environment must not carry these.
        var all = ["/usr/bin/curl", "-s", "--noproxy", "*", "--max-time", "30", "-o", bodyURL.path, "-D", headerURL.path, "-w", "%{http_code}"]
        if let caFile { all += ["--cacert", caFile] }
        // posix_spawn + waitpid on its own thread: Foundation's Process sometimes never reaped curl.
        let (statusText, exitCode) = try await ChildProcess.runOffPool(all + arguments)
        let status = Int(statusText) ?? 0
        return CurlResult(
            exitCode: exitCode, status: status,
            headers: (try? String(contentsOf: headerURL, encoding: .utf8)) ?? "",
            body: (try? Data(contentsOf: bodyURL)) ?? Data()
        )
    }

    // MARK: Control endpoints

    @discardableResult
    public func control(_ method: String, _ name: String, json: String? = nil, query: String = "") async throws -> Data {
        let path = "/__sandbox/\(name)" + (query.isEmpty ? "" : "?" + query)
        let result = try await curl(path, method: method, json: json ?? (method == "POST" ? "{}" : nil), owner: true)
        guard result.exitCode == 0, result.status == 200 else {
            throw SandboxProcessError.controlFailed(path, result.status, result.text)
        }
        return result.body
    }

    public func requests() async throws -> [SandboxRequestRecord] {
        try JSONDecoder().decode([SandboxRequestRecord].self, from: try await control("GET", "requests"))
    }

    public func clearRequests() async throws { try await control("POST", "requests/clear") }

    public func addFaults(_ faults: [Fault]) async throws {
        struct Body: Encodable { var faults: [Fault] }
        let json = String(decoding: try JSONEncoder().encode(Body(faults: faults)), as: UTF8.self)
        try await control("POST", "faults", json: json)
    }

    public func clearFaults() async throws { try await control("DELETE", "faults") }

    /// The faults not consumed yet (a `hold` leaves this list when its request starts being held).
    public func pendingFaults() async throws -> [Fault] {
        struct Body: Decodable { var faults: [Fault] }
        return try JSONDecoder().decode(Body.self, from: try await control("GET", "faults")).faults
    }

    /// `action`: append, remove_first, reorder (reverse), last_to_front, rename, set_description (`name` is the text), clear,
    /// delete, create. Returns the new playlist summary JSON.
    @discardableResult
    public func mutate(playlist: String?, action: String, name: String? = nil) async throws -> [String: Any] {
        var body: [String: Any] = ["action": action]
        if let playlist { body["playlist"] = playlist }
        if let name { body["name"] = name }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let data = try await control("POST", "mutate", json: json)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Serves `data` at `/__sandbox/files/NAME` (e.g. a pin document and its `.sig`).
    public func putFile(_ name: String, _ data: Data) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-file-\(UUID().uuidString)")
        try data.write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try await curl(
            "/__sandbox/files/\(name)", method: "PUT", headers: ["Content-Type: application/octet-stream"], owner: true,
            extraArguments: ["--data-binary", "@" + scratch.path])
        guard result.exitCode == 0, result.status == 200 else {
            throw SandboxProcessError.controlFailed("/__sandbox/files/\(name)", result.status, result.text)
        }
    }

    public func mintRefreshToken() async throws -> String {
        let data = try await control("POST", "mint-refresh-token")
        struct Token: Decodable { var refresh_token: String }
        return try JSONDecoder().decode(Token.self, from: data).refresh_token
    }

    /// A refresh token granting only `scope` (space-separated), for missing-scope tests.
    public func mintRefreshToken(scope: String) async throws -> String {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["scope": scope]), as: UTF8.self)
        let data = try await control("POST", "mint-refresh-token", json: json)
        struct Token: Decodable { var refresh_token: String }
        return try JSONDecoder().decode(Token.self, from: data).refresh_token
    }

    // MARK: The server's state after a client's edit

    /// A playlist, followed or not, with its entries, as the sandbox holds it now.
    public func playlistInfo(_ id: String) async throws -> SandboxPlaylistInfo {
        try JSONDecoder().decode(SandboxPlaylistInfo.self, from: try await control("GET", "playlists/\(id)"))
    }

    /// The URIs of a playlist's entries in order ("" for an `item: null` entry).
    public func entries(of playlistID: String) async throws -> [String] {
        try await playlistInfo(playlistID).items.map { $0.uri ?? "" }
    }

    /// The playlist's entries as `URI @ added_at`: what an order change or a restore must keep
    /// (every entry with its own date), in order.
    public func datedEntries(of playlistID: String) async throws -> [String] {
        try await playlistInfo(playlistID).items.map(\.dated)
    }

    /// Liked Songs, most recent first, as entries (URI, added_at, position).
    public func likedEntries() async throws -> [SandboxEntry] {
        struct Liked: Decodable { var liked: [SandboxEntry] }
        return try JSONDecoder().decode(Liked.self, from: try await control("GET", "liked")).liked
    }

    /// A catalogue re-release ("Song - Remastered 2011") and the track it re-releases (`/__sandbox/variants`).
    public struct Variant: Decodable, Sendable {
        public var uri: String
        public var name: String
        public var durationMS: Int
        public var originalURI: String
        public var originalName: String
        public var originalDurationMS: Int
        enum CodingKeys: String, CodingKey {
            case uri, name, durationMS = "duration_ms", originalURI = "original_uri", originalName = "original_name"
            case originalDurationMS = "original_duration_ms"
        }
    }

    /// The remaster variants the catalogue holds beside the generated library, for fuzzy dedupe tests.
    public func variants() async throws -> [Variant] {
        try JSONDecoder().decode([Variant].self, from: try await control("GET", "variants"))
    }

    /// The URIs of Liked Songs, most recent first.
    public func likedURIs() async throws -> [String] {
        try await likedEntries().map { $0.uri ?? "" }
    }

    /// The ids in `/me/playlists` order (followed playlists only).
    public func followedPlaylistIDs() async throws -> [String] {
        let model = try await library(includeItems: false)
        return (model["playlists"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    /// The logged Web API writes (POST, PUT and DELETE under `/v1/`; not `/api/token`).
    public func writeRequests() async throws -> [SandboxRequestRecord] {
        try await requests().filter { $0.isWrite && $0.path.hasPrefix("/v1/") }
    }

    /// The canonical library model (see docs/SANDBOX.md), reflecting mutations.
    public func library(includeItems: Bool = true) async throws -> [String: Any] {
        let data = try await control("GET", "library", query: includeItems ? "" : "include_items=false")
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    public func expireAccessTokens() async throws { try await control("POST", "expire-access-tokens") }
    public func revokeRefreshTokens() async throws { try await control("POST", "revoke-refresh-tokens") }
    public func setAuthorizeMode(approve: Bool) async throws {
        try await control("POST", "authorize-mode", json: approve ? #"{"mode":"approve"}"# : #"{"mode":"deny"}"#)
    }

    // MARK: The sandbox clock, the daily quota and the player

    /// Moves the sandbox clock — the player's and the daily quota's — forward.
    public func advanceClock(milliseconds: Int) async throws {
        try await control("POST", "clock", query: "advance_ms=\(milliseconds)")
    }

    /// Stops (or restarts) the sandbox clock, so the player's progress moves only with `advanceClock`.
    public func freezeClock(_ frozen: Bool = true) async throws {
        try await control("POST", "clock", query: "freeze=\(frozen)")
    }

    /// The daily quota's counters (`GET /__sandbox/quota`): `limit`, `used`, `refused`, `total`, `day`, `seconds_left`.
    public func quota() async throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: try await control("GET", "quota")) as? [String: Any]) ?? [:]
    }

    /// The player as the sandbox holds it (`GET /__sandbox/player`): `active_device`, `item_uri`,
    /// `context_uri`, `context_index`, `is_playing`, `progress_ms`, `queue`, `recently_played`, ….
    public func playerState() async throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: try await control("GET", "player")) as? [String: Any]) ?? [:]
    }

    /// Adds a Connect device; returns its id.
    @discardableResult
    public func addDevice(name: String, type: String = "Speaker", supportsVolume: Bool = true, restricted: Bool = false) async throws -> String {
        let body: [String: Any] = ["name": name, "type": type, "supports_volume": supportsVolume, "is_restricted": restricted]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let data = try await control("POST", "player/devices", json: json)
        return ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String) ?? ""
    }

    /// Premium on or off for the account (off: player commands answer 403 `PREMIUM_REQUIRED`).
    public func setPremium(_ premium: Bool) async throws {
        try await control("POST", "player/premium", json: premium ? #"{"premium":true}"# : #"{"premium":false}"#)
    }

    // MARK: Sign-in without timbre

    /// Runs authorize → token with a fresh PKCE pair, asking for every scope; returns the token response.
    public func signIn(redirectPort: Int = 8974) async throws -> (accessToken: String, refreshToken: String) {
        try await signIn(scopes: Scopes.known, redirectPort: redirectPort)
    }

    /// Signs in asking for `scopes` only (the tokens carry exactly those).
    public func signIn(scopes: [String], redirectPort: Int = 8974) async throws -> (accessToken: String, refreshToken: String) {
        let verifier = Digest.randomToken(bytes: 48)
        let challenge = Digest.pkceChallenge(verifier: verifier)
        let redirect = "http://127.0.0.1:\(redirectPort)/callback"
        let query = [
            "response_type=code", "client_id=\(info.clientID)",
            "redirect_uri=" + FormEncoding.escape(redirect), "scope=" + FormEncoding.escape(scopes.joined(separator: " ")),
            "state=teststate", "code_challenge_method=S256", "code_challenge=\(challenge)",
        ].joined(separator: "&")
        let authorize = try await curl("/authorize?" + query, owner: true)
        guard authorize.status == 302, let location = authorize.header("Location"),
            let code = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw SandboxProcessError.controlFailed("/authorize", authorize.status, authorize.text) }
        let token = try await curl(
            "/api/token",
            data: [
                "grant_type=authorization_code", "code=\(code)", "redirect_uri=\(redirect)",
                "client_id=\(info.clientID)", "code_verifier=\(verifier)",
            ])
        struct Token: Decodable {
            var access_token: String
            var refresh_token: String
        }
        guard token.status == 200, let decoded = try? JSONDecoder().decode(Token.self, from: token.body) else {
            throw SandboxProcessError.controlFailed("/api/token", token.status, token.text)
        }
        return (decoded.access_token, decoded.refresh_token)
    }
}

/// Collects a child's stdout until the first newline, on its own thread.
private final class LineReader: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var line: String?

    init(handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.readSome()
                if chunk.isEmpty { return }
                lock.lock()
                buffer.append(chunk)
                if line == nil, let newline = buffer.firstIndex(of: 0x0A) {
                    line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                }
                lock.unlock()
            }
        }
        thread.start()
    }

    var firstLine: String? {
        lock.lock()
        defer { lock.unlock() }
        return line
    }
}
