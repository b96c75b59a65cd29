import Foundation
import TimbreCore
import TimbreNet

/// Edits playlists on Spotify so that no entry is ever lost that the user did not ask to remove:
/// each edit is planned on the playlist as Spotify holds it (positional ones only when that is
/// the playlist the user saw), journalled before its first write, and when a write's answer is
/// lost the playlist is read and matched against the plan's steps instead of resending. Then the
/// cache is brought to what Spotify holds.
public final class PlaylistEditor: Sendable {
    let api: any SpotifyAPI
    let cache: LibraryCache
    let journal: EditJournal
    /// How long another sync or edit may hold the lock before this one gives up.
    let lockWait: Duration
    /// Told after each write of a playlist's entries: (writes done, writes in the plan).
    let progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?
    /// What reads have learned about the server (the items page size), kept for the editor's life:
    /// the interface's session makes many edits with one editor.
    let fetchState = Locked(ReaderState())
    /// The signed-in user's id, once known (from the cache, else one `GET /me` for the session).
    let knownUser = Locked<String?>(nil)
    /// The time, and waits for a write a stopped process may still have in flight.
    let clock: EditClock
    /// Writes whose answer was lost but which Spotify applied, said with the operation's warnings.
    let settledNotes = Locked<[String]>([])
    /// Seconds the last read of a playlist's details took (the request just made before an order
    /// change is priced): the pace its writes, one round trip each, will go at.
    let measuredRoundTrip = Locked<Double?>(nil)
    /// Told an edit's requests to come before its first write (`tellingRequests`).
    let requestsTold = Locked<(@Sendable (_ playlist: String, _ toCome: Int) -> Void)?>(nil)

    public init(
        api: any SpotifyAPI, cache: LibraryCache, journal: EditJournal, lockWait: Duration = .seconds(10),
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil, clock: EditClock = .live
    ) {
        self.api = api
        self.cache = cache
        self.journal = journal
        self.lockWait = lockWait
        self.progress = progress
        self.clock = clock
    }

    /// Spotify's limit on a playlist's entries.
    public static let maxEntries = 10_000

    /// The catalogue over the same API (albums to add, searches).
    public var catalog: Catalog { Catalog(api: api) }

    /// One operation of the editor: under the sync lock (one edit or sync at a time), after any
    /// edit a stopped process left half-applied is finished (its notes first among the warnings),
    /// with every request it sent counted.
    func operation(_ body: () async throws -> EditOutcome) async throws -> EditOutcome {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        let sentBefore = api.pacing.requestsSent()
        let notes = try await finishInterruptedLocked()
        var outcome = try await body()
        outcome.requests = api.pacing.requestsSent() - sentBefore
        // A dry run's figure is what the edit would send: its reads, made, and what would follow.
        if outcome.dryRun { outcome.requests += dryRunRequestsToCome(outcome) }
        outcome.warnings = notes + takeSettledNotes() + outcome.warnings
        return outcome
    }

    /// Brings one playlist in the cache to what Spotify holds — after a failed or refused edit,
    /// so that what the user sees is Spotify's state.
    public func reload(_ playlist: SpotifyID) async throws {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        let live = try await LivePlaylist.read(playlist, api: api)
        try await cache.replaceEntries(of: live.meta, trackCount: live.meta.total, items: live.items)
    }

    /// Finishes every edit a stopped process left half-applied; returns a line for each.
    public func finishInterrupted() async throws -> [String] {
        let lock = try await SyncLock.acquire(cachePath: cache.path, wait: lockWait)
        defer { lock.release() }
        return try await finishInterruptedLocked()
    }

    /// `finishInterrupted` for a caller that already holds the sync lock (the sync, which
    /// finishes interrupted edits before it reads anything).
    public func finishInterruptedHoldingLock() async throws -> [String] {
        try await finishInterruptedLocked()
    }

    /// The signed-in user's id without a request per edit: Liked Songs' owner as the sync recorded
    /// it (`GET /me` once a sync), else one `GET /me`, kept for the editor's life.
    func userID() async throws -> String {
        if let known = knownUser.current { return known }
        let id: String
        if let recorded = try? cache.playlist(.liked)?.ownerID, !recorded.isEmpty {
            id = recorded
        } else {
            id = try await api.me().id
        }
        knownUser.withLock { $0 = id }
        return id
    }

    /// Refused before any request (exit 7, as the interface refuses): a playlist the cache lists
    /// as Spotify's own (which Spotify does not even show this app: a request would only answer
    /// 404), or as another user's and not collaborative, the signed-in user known from the cache.
    /// `details`: a name or a description, the owner's alone, collaborative or not.
    func refuseKnownForeign(_ id: SpotifyID, details: Bool = false) throws {
        guard let cached = try cache.playlist(.playlist(id)) else { return }
        let me = (try? cache.playlist(.liked)?.ownerID).flatMap { $0.isEmpty ? nil : $0 }
        let owned = cached.ownerID != CachedPlaylist.spotifyOwnerID && (me.map { cached.ownerID == $0 } ?? true)
        guard !owned else { return }
        let owner = cached.ownerName ?? cached.ownerID
        if details, cached.collaborative { throw OnlyOwnerChangesDetails(playlist: cached.name, owner: owner) }
        guard !cached.collaborative || cached.ownerID == CachedPlaylist.spotifyOwnerID else { return }
        throw NotPermitted(playlist: cached.name, owner: owner, beforeSending: true)
    }

    func checkPermission(_ meta: PlaylistMeta) async throws {
        guard !meta.collaborative else { return }
        let me = try await userID()
        guard meta.ownerID == me else { throw NotPermitted(playlist: meta.name, owner: meta.ownerName ?? meta.ownerID) }
    }

    /// Details are the owner's alone, collaborative or not (Spotify answers 403 to anyone else).
    func checkOwner(_ meta: PlaylistMeta) async throws {
        let me = try await userID()
        guard meta.ownerID == me else {
            if meta.collaborative { throw OnlyOwnerChangesDetails(playlist: meta.name, owner: meta.ownerName ?? meta.ownerID) }
            throw NotPermitted(playlist: meta.name, owner: meta.ownerName ?? meta.ownerID)
        }
    }
}
