import Foundation
import SandboxCore
import Testing
import TimbreAuth
import TimbreCore
import TimbreNet
import TimbreTestSupport

@testable import TimbreLibrary

/// A temporary folder removed at the end of a test.
final class TempDir: @unchecked Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-lib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Collects warnings passed to `LibraryCache.open`.
final class WarningSink: Sendable {
    let lines = Locked<[String]>([])
    var handler: @Sendable (String) -> Void { { [lines] line in lines.withLock { $0.append(line) } } }
}

/// An in-memory keyring holding the refresh token.
final class MemoryStore: SecretStore, @unchecked Sendable {
    let source: SecretSource = .keyring
    let values = Locked<[String: String]>([:])
    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? {
        values.current["\(profile)/\(kind.rawValue)"].map { SecretBytes($0) }
    }
    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {
        let text = secret.withString { $0 }
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = text }
    }
    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {
        values.withLock { $0["\(profile)/\(kind.rawValue)"] = nil }
    }
}

struct NoStore: SecretStore {
    let source: SecretSource = .file
    func read(_ kind: SecretKind, profile: String) async throws(SecretStoreError) -> SecretBytes? { nil }
    func write(_ secret: SecretBytes, kind: SecretKind, tier: SecretTier, profile: String) async throws(SecretStoreError) {}
    func delete(_ kind: SecretKind, profile: String) async throws(SecretStoreError) {}
}

enum HarnessError: Error { case badURL(String) }

/// The live client as the library sees it. The app joins the two (TimbreApp's `SpotifySeam`:
/// TimbreAuth and TimbreLibrary do not see each other); the library's tests sit below the app, so
/// they join them here, by forwarding.
struct LiveSpotify: SpotifyAPI {
    let client: AuthorizedClient
    func get(_ path: String) async throws -> HTTPResponse { try await client.get(path) }
    func send(_ method: HTTPMethod, _ path: String, json body: Data?, reconciles: Bool) async throws -> HTTPResponse {
        try await client.send(method, path, json: body, reconciles: reconciles)
    }
    func me() async throws -> UserProfile { try await client.me() }
    var pacing: RequestPacing { RequestPacing(executor: client.executor) }
}

/// A sandbox, a signed-in client over the real pinned transport, and a cache in a temp folder.
final class Harness: @unchecked Sendable {
    let sandbox: SandboxProcess
    let api: LiveSpotify
    let dir: TempDir
    let cache: LibraryCache
    var cachePath: String { dir.path("cache/library.sqlite") }

    private init(sandbox: SandboxProcess, api: LiveSpotify, dir: TempDir, cache: LibraryCache) {
        self.sandbox = sandbox
        self.api = api
        self.dir = dir
        self.cache = cache
    }

    static func start(_ size: LibrarySize = .small, _ arguments: [String] = []) async throws -> Harness {
        let sandbox = try await SandboxProcess.start(library: size, extraArguments: arguments)
        do {
            return try await make(sandbox)
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    private static func make(_ sandbox: SandboxProcess) async throws -> Harness {
        let (access, refresh) = try await sandbox.signIn()
        let config = try Config.parse(sandbox.info.configTOML())
        let executor = RequestExecutor(
            transport: CurlTransport(settings: TransportSettings(config: config)),
            policy: RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(100)))
        let store = MemoryStore()
        try await store.write(SecretBytes(refresh), kind: .refreshToken, tier: .high, profile: "test")
        let vault = CredentialVault(
            profile: "test", refreshTier: .high, environment: nil, keyring: store, file: NoStore(),
            insecureStorage: false, warnings: { _ in })
        guard let accountsURL = URL(string: sandbox.info.accountsURL), let apiURL = URL(string: sandbox.info.apiURL) else {
            throw HarnessError.badURL(sandbox.info.apiURL)
        }
        let accounts = AccountsClient(executor: executor, accountsURL: accountsURL, clientID: sandbox.info.clientID)
        let tokens = TokenManager(
            accounts: accounts, vault: vault,
            session: Session(accessToken: access, expiresAt: Date().addingTimeInterval(3000), scopes: []))
        let dir = try TempDir()
        let cache = try LibraryCache.open(path: dir.path("cache/library.sqlite"), warn: { _ in })
        return Harness(sandbox: sandbox, api: LiveSpotify(client: AuthorizedClient(executor: executor, tokens: tokens, apiURL: apiURL)), dir: dir, cache: cache)
    }

    func sync(_ options: SyncOptions = SyncOptions()) async throws -> SyncReport {
        try await SyncEngine(api: api, cache: cache, options: options).run()
    }

    func stop() async { await sandbox.stop() }

    /// The sandbox's canonical model.
    func model() async throws -> Model { Model(try await sandbox.library()) }

    /// Requests the sandbox logged for item pages (`/playlists/{id}/items|tracks`).
    func itemRequests() async throws -> [SandboxRequestRecord] {
        try await sandbox.requests().filter { $0.path.hasPrefix("/v1/playlists/") && ($0.path.hasSuffix("/items") || $0.path.hasSuffix("/tracks")) }
    }
}

/// `/__sandbox/library`, typed just enough for comparisons.
struct Model {
    struct Playlist {
        var id: String
        var name: String
        var summary: [String: Any]
        var items: [[String: Any]]
        var readable: Bool
        /// What a correct client stores: no null or malformed entries.
        var storable: [[String: Any]] { items.filter { ["track", "local", "episode"].contains($0["kind"] as? String ?? "") } }
        var malformedCount: Int { items.filter { $0["kind"] as? String == "malformed" }.count }
    }

    var raw: [String: Any]
    var playlists: [Playlist]
    var liked: [[String: Any]]
    var userID: String
    var userName: String?

    init(_ raw: [String: Any]) {
        self.raw = raw
        playlists = (raw["playlists"] as? [[String: Any]] ?? []).map { object in
            Playlist(
                id: object["id"] as? String ?? "", name: object["name"] as? String ?? "", summary: object,
                items: object["items"] as? [[String: Any]] ?? [], readable: object["readable_in_development_mode"] as? Bool ?? false)
        }
        liked = raw["liked"] as? [[String: Any]] ?? []
        let user = raw["user"] as? [String: Any]
        userID = user?["id"] as? String ?? ""
        userName = user?["display_name"] as? String
    }

    func playlist(_ id: String) -> Playlist? { playlists.first { $0.id == id } }
}

/// JSON text → Foundation objects, so cached and model values compare the same way.
func foundation(_ value: TimbreCore.JSONValue) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(value.serialized().utf8), options: [.fragmentsAllowed])
}

func sameJSON(_ a: Any?, _ b: Any?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    func canonical(_ value: Any) -> Data? { try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]) }
    return canonical(a) != nil && canonical(a) == canonical(b)
}

/// Checks every cached playlist and item against the model; returns the mismatches.
func mismatches(cache: LibraryCache, model: Model) throws -> [String] {
    var problems: [String] = []
    let cached = try cache.playlists()
    let expectedIDs = ["liked"] + model.playlists.map(\.id)
    if cached.map(\.id) != expectedIDs { problems.append("playlist order: \(cached.map(\.id)) vs \(expectedIDs)") }
    for playlist in model.playlists {
        guard let entry = cached.first(where: { $0.id == playlist.id }) else {
            problems.append("missing \(playlist.id)")
            continue
        }
        for key in ["name", "owner_id", "owner_name", "snapshot_id", "track_count", "collaborative", "public"] {
            let mine = (foundation(entry.json) as? [String: Any])?[key]
            if !sameJSON(mine, playlist.summary[key]) { problems.append("\(playlist.id).\(key): \(mine ?? "nil") vs \(playlist.summary[key] ?? "nil")") }
        }
        if entry.unavailable == playlist.readable { problems.append("\(playlist.id) unavailable=\(entry.unavailable)") }
        guard let id = SpotifyID(playlist.id) else {
            problems.append("model id \(playlist.id)")
            continue
        }
        let items = try cache.entries(of: .playlist(id)) ?? []
        let expected = playlist.readable ? playlist.storable : []
        problems += compare(items, expected, label: playlist.id)
    }
    if let liked = cached.first(where: { $0.id == "liked" }) {
        if liked.ownerID != model.userID || liked.ownerName != model.userName || liked.snapshotID != nil || liked.name != "Liked Songs" {
            problems.append("liked summary \(liked)")
        }
        if liked.trackCount != model.liked.count { problems.append("liked count \(liked.trackCount)") }
        problems += compare(
            try cache.entries(of: .liked) ?? [], model.liked.filter { ["track", "local", "episode"].contains($0["kind"] as? String ?? "") },
            label: "liked")
    } else {
        problems.append("no liked")
    }
    return problems
}

func compare(_ items: [CachedEntry], _ expected: [[String: Any]], label: String) -> [String] {
    guard items.count == expected.count else { return ["\(label): \(items.count) items, expected \(expected.count)"] }
    var problems: [String] = []
    // The model counts positions from 0, as Spotify does; what timbre shows counts from 1.
    let shown = expected.map { entry -> [String: Any] in
        var entry = entry
        if let position = entry["position"] as? Int { entry["position"] = position + 1 }
        return entry
    }
    for (item, model) in zip(items, shown) where !sameJSON(foundation(item.json), model) {
        problems.append("\(label)[\(item.position)]: \(item.json.serialized().prefix(300)) vs \(model)")
        if problems.count > 5 { break }
    }
    return problems
}

func expectMatch(_ cache: LibraryCache, _ model: Model, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let problems = try mismatches(cache: cache, model: model)
    #expect(problems.isEmpty, "\(problems.prefix(8).joined(separator: "\n"))", sourceLocation: sourceLocation)
}
