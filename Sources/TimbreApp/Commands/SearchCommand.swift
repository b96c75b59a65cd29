import TimbreAuth
import TimbreCore
import TimbreLibrary

/// `timbre search QUERY`: Spotify's catalogue (tracks, albums or playlists).
public struct SearchCommand: Sendable {
    public var query: String
    public var type: String
    public var limit: Int
    public var json: Bool

    public init(query: String, type: String, limit: Int, json: Bool) {
        self.query = query
        self.type = type
        self.limit = limit
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        guard let kind = Catalog.Kind(rawValue: type) else { throw UsageError(message: "--type takes track, album or playlist") }
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError(message: "nothing to search for") }
        guard (1...50).contains(limit) else { throw UsageError(message: "--limit must be 1–50") }
        let context = try invocation.context()
        let vault = context.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        let items = try await Catalog(api: context.spotify(vault: vault)).search(query, kind: kind, limit: limit)
        if json {
            context.console.json(.array(items.map(\.json)))
            return .success
        }
        if items.isEmpty { context.console.say("nothing found") }
        context.console.lines(
            items.map { item in
                let artists = item.artists.joined(separator: ", ")
                let album = item.album.map { " · \($0)" } ?? ""
                let duration = item.durationMS.map { "  " + ClockText.minutesSeconds(milliseconds: $0) } ?? ""
                return TerminalText.sanitize("\(item.uri)  \(item.name)\(artists.isEmpty ? "" : " — \(artists)")\(album)\(duration)")
            })
        return .success
    }
}
