import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

/// `timbre sync`: brings the cache up to date, headless.
public struct SyncCommand: Sendable {
    public var playlists: [String]
    public var liked: Bool
    public var force: Bool
    public var json: Bool
    public var quiet: Bool
    /// `--max-requests N`: stop cleanly after N requests (exit 3; the next sync goes on).
    public var maxRequests: Int?

    public init(playlists: [String], liked: Bool, force: Bool, json: Bool, quiet: Bool, maxRequests: Int? = nil) {
        self.playlists = playlists
        self.liked = liked
        self.force = force
        self.json = json
        self.quiet = quiet
        self.maxRequests = maxRequests
    }

    /// Exit 0, or 3 when some playlists failed (the rest are stored), the request limit was
    /// reached, or Spotify asked for a wait past `rate_limit_budget` (said, and stored: nothing
    /// is sent until then).
    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        do {
            return try await sync(invocation)
        } catch let stopped as RequestsStopped {
            throw stopped.forSync
        }
    }

    private func sync(_ invocation: Invocation) async throws -> ExitStatus {
        let options = try selection(invocation)
        let context = try invocation.context()
        let console = context.console
        let vault = context.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        let api = try context.spotify(vault: vault)
        if let maxRequests { api.executor.budget.limitRequests(to: maxRequests) }
        let sync = context.librarySync(api: api)
        HeapTrim.keep(upTo: 4 << 20)
        let bar = ProgressBar(console: console, enabled: !quiet && !json && console.showsProgress)
        let report = try await bar.showing(rateLimits: sync.pacing.remainingPause) { progress in
            try await sync.run(options: options, lockWait: .seconds(10), reportingStop: true, progress: progress)
        }
        if json {
            console.json(report.json)
        } else if !quiet {
            for warning in report.warnings { console.warning(warning) }
            console.line(report.summary)
        }
        // Said after the report: why the run stopped, and until when (exit 3).
        if let stopped = report.stopped { throw stopped }
        return report.exitStatus
    }

    /// Every reference is checked before any request is sent.
    func selection(_ invocation: Invocation) throws -> SyncOptions {
        var selected: [SpotifyID] = []
        var wantsLiked = liked
        for text in playlists {
            switch try invocation.playlistRef(text) {
            case .liked: wantsLiked = true
            case .playlist(let id): if !selected.contains(id) { selected.append(id) }
            }
        }
        return SyncOptions(playlists: selected, liked: wantsLiked, force: force)
    }
}
