import TimbreCore
import TimbreNet

/// What to sync. No playlists and `liked == false` means everything, and only then are playlists
/// that left the user's list removed from the cache.
public struct SyncOptions: Sendable, Equatable {
    public var playlists: [SpotifyID]
    public var liked: Bool
    /// Refetch items even when the snapshot (or Liked Songs' first page) is unchanged.
    public var force: Bool

    public init(playlists: [SpotifyID] = [], liked: Bool = false, force: Bool = false) {
        self.playlists = playlists
        self.liked = liked
        self.force = force
    }

    public var isSelection: Bool { !playlists.isEmpty || liked }
}

/// Where a sync is, for a progress bar.
public struct SyncProgress: Sendable, Equatable {
    public enum Phase: String, Sendable, Equatable {
        /// Reading the user's playlist list (or the selected playlists).
        case listing
        /// Fetching the items of playlists that changed.
        case items
        /// Checking or fetching Liked Songs.
        case liked
        case finished
    }

    public var phase: Phase
    /// A short sentence for the status line (may carry a playlist name: sanitise before display).
    public var description: String
    public var done: Int
    public var total: Int

    public init(phase: Phase, description: String, done: Int, total: Int) {
        self.phase = phase
        self.description = description
        self.done = done
        self.total = total
    }
}

/// The outcome of one sync, printed by `timbre sync --json` and stored in the cache.
public struct SyncReport: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        case ok, partial, failed
    }

    public var status: Status
    /// Playlists looked at (Liked Songs not included).
    public var checked: Int
    /// Playlists whose items were stored.
    public var updated: Int
    /// Playlists whose cached items were kept (same snapshot, unavailable, or a guard kept them).
    public var unchanged: Int
    public var failed: Int
    public var removed: Int
    public var likedUpdated: Bool
    public var likedCount: Int
    public var itemsWritten: Int
    /// HTTP requests sent during the run (retries included).
    public var requests: Int
    public var warnings: [String]
    public var durationMS: Int
    /// Time the run spent paused by Spotify's rate limit (429 + Retry-After).
    public var rateLimitedMS: Int
    /// The selected lists whose current version the cache does not hold after this run (stopped
    /// before them, failed, or kept by a guard), in the order the next sync reads them; Liked
    /// Songs first when it is one. Empty when the sync is complete.
    public var toRead: [ListRef] = []
    /// Why requests stopped before the run was done (the daily quota, `--max-requests`), if they did.
    public var stopped: RequestsStopped?

    /// A list by id (`liked` for Liked Songs) and name.
    public struct ListRef: Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public init(
        status: Status, checked: Int, updated: Int, unchanged: Int, failed: Int, removed: Int, likedUpdated: Bool,
        likedCount: Int, itemsWritten: Int, requests: Int, warnings: [String], durationMS: Int, rateLimitedMS: Int = 0
    ) {
        self.status = status
        self.checked = checked
        self.updated = updated
        self.unchanged = unchanged
        self.failed = failed
        self.removed = removed
        self.likedUpdated = likedUpdated
        self.likedCount = likedCount
        self.itemsWritten = itemsWritten
        self.requests = requests
        self.warnings = warnings
        self.durationMS = durationMS
        self.rateLimitedMS = rateLimitedMS
    }

    /// `timbre sync --json`, keys in docs/CLI.md's order.
    public var json: JSONValue {
        .object([
            ("status", .string(status.rawValue)),
            (
                "playlists",
                .object([
                    ("checked", .int(checked)), ("updated", .int(updated)), ("unchanged", .int(unchanged)),
                    ("failed", .int(failed)), ("removed", .int(removed)),
                ])
            ),
            ("liked", .object([("updated", .bool(likedUpdated)), ("count", .int(likedCount))])),
            ("items_written", .int(itemsWritten)),
            ("requests", .int(requests)),
            ("warnings", .array(warnings.map(JSONValue.string))),
            ("duration_ms", .int(durationMS)),
            ("rate_limited_ms", .int(rateLimitedMS)),
            ("to_read", .array(toRead.map { .object([("id", .string($0.id)), ("name", .string($0.name))]) })),
        ])
    }

    public var exitStatus: ExitStatus {
        switch status {
        case .ok: return .success
        case .partial: return .partial
        case .failed: return .failure
        }
    }
}

/// Failures that end a whole sync run (the per-playlist ones become warnings in the report).
public enum SyncError: UserFacingError, Equatable {
    /// `/me/playlists` could not be read, so nothing can be compared.
    case listUnreadable(String)

    public var message: String {
        switch self {
        case .listUnreadable(let detail): return "could not read your playlist list from Spotify: \(TerminalText.preview(detail))"
        }
    }

    public var hint: String? { "try again in a moment; the cache was left as it was" }
    public var exitStatus: ExitStatus { .failure }
}
