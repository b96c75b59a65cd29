import Foundation
import GRDB
import GRDBSQLite
import TimbreCore

/// Where versions come from: the cache's state of a playlist after a sync or an edit wrote it, and
/// before (for a playlist never recorded, so that upgrading users keep the state before the first
/// change timbre sees).
extension PlaylistVersions {
    /// The playlist as the cache holds it; nil for Liked Songs, a playlist not in the cache, or one
    /// whose entries were never stored (or are unavailable).
    public static func cachedState(_ cache: LibraryCache, playlist: String) throws -> PlaylistState? {
        guard playlist != CachedPlaylist.likedID else { return nil }
        return try CacheError.wrap {
            try cache.pool.read { db -> PlaylistState? in
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT name, snapshot_id, is_public, collaborative, synced_at, unavailable FROM playlist WHERE id = ?",
                        arguments: [playlist]),
                    let syncedText = row["synced_at"] as String?, !(row["unavailable"] as Bool)
                else { return nil }
                var entries: [VersionEntry] = []
                try LibraryCache.eachItem(db, of: playlist, sql: "SELECT uri, added_at, added_by " + ItemKey.rowsOfPlaylist) { raw in
                    func text(_ column: Int32) -> String? {
                        sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : String(decoding: SQLiteText.bytes(raw, column), as: UTF8.self)
                    }
                    entries.append(VersionEntry(uri: text(0) ?? "", addedAt: text(1), addedBy: text(2)))
                    return true
                }
                let details = PlaylistDetailsState(
                    name: row["name"], isPublic: row["is_public"], collaborative: row["collaborative"], snapshotID: row["snapshot_id"])
                return PlaylistState(
                    playlist: playlist, details: details, entries: entries, seenAt: ClockText.parseSQLite(syncedText) ?? Date())
            }
        }
    }

    /// Records each playlist's cached state as a version (when it differs from the last one),
    /// seen now, all in one transaction. A playlist whose cached snapshot and details are its last
    /// version's is passed over without reading its entries (a sync after the cache was rebuilt
    /// refetches every list: that costs two small reads each). Returns the versions made.
    /// `knownOnly`: only playlists that have a version already (the sync: a playlist new to the
    /// cache is not recorded until it first changes — then the state the cache held is recorded
    /// first, as version 1 — so a first sync records nothing).
    @discardableResult
    public func recordCached(
        _ playlists: [String], from cache: LibraryCache, source: PlaylistVersion.Source, edit: Int64? = nil,
        step: PlaylistVersion.Step? = nil, at date: Date = Date(), knownOnly: Bool = false
    ) throws -> [PlaylistVersion] {
        guard !playlists.isEmpty else { return [] }
        return try write { db in
            var made: [PlaylistVersion] = []
            for playlist in playlists {
                let last = try Self.latest(playlist, db)
                if knownOnly, last == nil { continue }
                if let last, last.details.snapshotID != nil, let details = try Self.cachedDetails(cache, playlist: playlist),
                    details == last.details
                {
                    continue
                }
                guard var state = try Self.cachedState(cache, playlist: playlist) else { continue }
                state.seenAt = date
                if let version = try Self.record(state, source: source, edit: edit, step: step, db) { made.append(version) }
            }
            return made
        }
    }

    /// The cached details alone (nil as for `cachedState`).
    static func cachedDetails(_ cache: LibraryCache, playlist: String) throws -> PlaylistDetailsState? {
        try CacheError.wrap {
            try cache.pool.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT name, snapshot_id, is_public, collaborative FROM playlist WHERE id = ? AND synced_at IS NOT NULL AND NOT unavailable",
                    arguments: [playlist]
                ).map {
                    PlaylistDetailsState(name: $0["name"], isPublic: $0["is_public"], collaborative: $0["collaborative"], snapshotID: $0["snapshot_id"])
                }
            }
        }
    }

    /// Before a sync or an edit replaces them: the cached state of those of `playlists` that have
    /// no version yet, seen when the cache stored it; one transaction.
    public func recordBaselines(_ playlists: [String], from cache: LibraryCache) throws {
        guard !playlists.isEmpty else { return }
        try write { db in
            let known = try db.cachedStatement(sql: "SELECT 1 FROM playlist_version WHERE playlist = ? LIMIT 1")
            for playlist in playlists where try Int.fetchOne(known, arguments: [playlist]) == nil {
                guard let state = try Self.cachedState(cache, playlist: playlist) else { continue }
                _ = try Self.record(state, source: .sync, edit: nil, db)
            }
        }
    }
}

// MARK: The edit path

extension PlaylistVersions {
    /// The playlists a change replaces in the cache, as far as is known before it runs.
    static func playlists(of change: LibraryChange) -> [String] {
        switch change {
        case .entries(let id, _, _), .details(let id, _): return [id.rawValue]
        case .delete(let ids): return ids.map(\.rawValue)
        case .like, .unlike, .follow, .create, .folder, .undo, .redo, .revive: return []
        }
    }

    /// Before `change` runs: the cached state of the playlists it changes, when never recorded.
    /// A failure is a warning: the edit goes on.
    func prepare(for change: LibraryChange, cache: LibraryCache) -> [String] {
        do {
            try recordBaselines(Self.playlists(of: change), from: cache)
            return []
        } catch {
            return [Self.warning(error)]
        }
    }

    /// After an edit that changed something: the playlist's cached state as a version of source
    /// `edit` with the journal's id; deleted playlists marked, followed ones no longer.
    func record(_ outcome: EditOutcome, of change: LibraryChange, cache: LibraryCache) -> [String] {
        // Changed, or stopped part-way (the moves made are the edit).
        switch outcome.ending {
        case .changed, .stopped: break
        default: return []
        }
        guard !outcome.dryRun else { return [] }
        do {
            switch change {
            case .delete(let ids):
                for id in ids { try markDeleted(id.rawValue) }
            case .follow(let ids):
                try markPresent(ids.map(\.rawValue))
            case .like, .unlike, .folder:
                break
            case .revive(let id, _, _):
                // Followed again: the same playlist is back; created anew: a new one (the old id
                // stays listed as deleted, with its versions).
                if outcome.revival == .followed { try markPresent([id.rawValue]) }
                guard let created = outcome.playlist?.id else { return [] }
                try recordCached([created.rawValue], from: cache, source: .edit, edit: outcome.journalID)
            // (`where` binds to one pattern: each needs its own.)
            case .undo where (outcome.library?.playlists ?? 0) > 0,
                .redo where (outcome.library?.playlists ?? 0) > 0:
                // An undone delete follows the playlist again (no longer deleted); a redone one
                // unfollows it again.
                guard let id = outcome.playlist?.id else { return [] }
                if outcome.library?.save == true { try markPresent([id.rawValue]) } else { try markDeleted(id.rawValue) }
            case .entries, .details, .create, .undo, .redo:
                // An undo or a redo is a version too, of the edit it undid or redid.
                guard let id = outcome.playlist?.id else { return [] }
                let step: PlaylistVersion.Step? = outcome.operation == .undo ? .undo : outcome.operation == .redo ? .redo : nil
                try recordCached([id.rawValue], from: cache, source: .edit, edit: outcome.journalID, step: step)
            }
            return []
        } catch {
            return [Self.warning(error)]
        }
    }

    static func warning(_ error: any Error) -> String {
        let reason = (error as? any UserFacingError)?.message ?? String(describing: error)
        return "the playlist's versions could not be recorded (\(TerminalText.preview(reason))); the edit itself is done"
    }
}

extension Library {
    /// `perform` of a change that goes to Spotify, with its versions recorded around it.
    func performRecorded(
        _ change: LibraryChange, editor: PlaylistEditor, versions: PlaylistVersions?, dryRun: Bool,
        choose: (@Sendable (OrderCost) async -> OrderChoice)?, stop: EditStop? = nil
    ) async throws -> EditOutcome {
        guard let versions, !dryRun else { return try await editor.perform(change, dryRun: dryRun, choose: choose, stop: stop) }
        let before = versions.prepare(for: change, cache: editor.cache)
        var outcome = try await editor.perform(change, dryRun: dryRun, choose: choose, stop: stop)
        outcome.warnings += before + versions.record(outcome, of: change, cache: editor.cache)
        return outcome
    }
}

// MARK: The sync

extension PlaylistVersions {
    /// After a sync stored these playlists' entries: each one's new state, when it differs from
    /// its last version (playlists without one wait for their first change: `recordBaselines`
    /// records the cached state before it). A failure is a warning of the sync, never its end.
    func recordSynced(_ playlists: [String], from cache: LibraryCache, warn: (String) -> Void) {
        guard !playlists.isEmpty else { return }
        do { try recordCached(playlists, from: cache, source: .sync, knownOnly: true) } catch { warn(Self.syncWarning(error)) }
    }

    /// Before a sync replaces these playlists: the state of those never recorded.
    func recordBaselines(_ playlists: [String], from cache: LibraryCache, warn: (String) -> Void) {
        do { try recordBaselines(playlists, from: cache) } catch { warn(Self.syncWarning(error)) }
    }

    /// Before a sync removes `gone` from the cache: their state kept (if never recorded) and
    /// marked deleted; `listed` playlists are not deleted (any more).
    func recordDeletions(_ gone: [String], listed: [String], from cache: LibraryCache, warn: (String) -> Void) {
        do {
            try markPresent(listed)
            guard !gone.isEmpty else { return }
            try recordBaselines(gone, from: cache)
            for playlist in gone { try markDeleted(playlist) }
        } catch {
            warn(Self.syncWarning(error))
        }
    }

    public static func syncWarning(_ error: any Error) -> String {
        let reason = (error as? any UserFacingError)?.message ?? String(describing: error)
        return "the playlists' versions could not be recorded (\(TerminalText.preview(reason))); the cache itself is synced"
    }
}

extension LibraryCache {
    /// "Title — Artist" of each of `uris` the cache holds in any playlist (one pass over the
    /// items), for the lines of `playlist diff`.
    public func titles(of uris: Set<String>) throws -> [String: String] {
        guard !uris.isEmpty else { return [:] }
        return try CacheError.wrap {
            try pool.read { db in
                var titles: [String: String] = [:]
                let rows = try Row.fetchCursor(db, sql: "SELECT uri, name, artists FROM item")
                while let row = try rows.next() {
                    let uri: String = row["uri"]
                    guard uris.contains(uri), titles[uri] == nil else { continue }
                    let artists = JSONValue.parseStringArray(row["artists"] ?? "[]") ?? []
                    titles[uri] = artists.isEmpty ? row["name"] : "\(row["name"] as String) — \(artists.joined(separator: ", "))"
                    if titles.count == uris.count { break }
                }
                return titles
            }
        }
    }
}
