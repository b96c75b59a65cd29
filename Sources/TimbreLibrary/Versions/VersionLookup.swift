import Foundation
import TimbreCore

/// The versions of a playlist as a person sees them: the ones kept, or — for a playlist no sync
/// or edit has changed since timbre first stored it — the state the cache holds, as version 1
/// (it is recorded as version 1, unchanged, before its first change replaces it). What `playlist
/// log`, `diff` and a restore read.
public struct VersionLookup: Sendable {
    public let versions: PlaylistVersions?
    public let cache: LibraryCache?

    public init(versions: PlaylistVersions?, cache: LibraryCache?) {
        self.versions = versions
        self.cache = cache
    }

    /// Newest first.
    public func versions(of playlist: String) throws -> [PlaylistVersion] {
        let kept = try versions?.versions(of: playlist) ?? []
        guard kept.isEmpty, let state = try cachedFirst(playlist) else { return kept }
        return [Self.first(state)]
    }

    /// Version `number`'s details and entries, or `UnknownVersion` (exit 2).
    public func state(_ number: Int, of playlist: String) throws -> (version: PlaylistVersion, entries: [VersionEntry]) {
        if let versions, try versions.knows(playlist) { return try versions.state(number, of: playlist) }
        guard number == 1, let state = try cachedFirst(playlist) else {
            throw UnknownVersion(playlist: playlist, version: number, known: try versions(of: playlist).map(\.version))
        }
        return (Self.first(state), state.entries)
    }

    private func cachedFirst(_ playlist: String) throws -> PlaylistState? {
        guard let cache else { return nil }
        return try PlaylistVersions.cachedState(cache, playlist: playlist)
    }

    static func first(_ state: PlaylistState) -> PlaylistVersion {
        PlaylistVersion(
            playlist: state.playlist, version: 1, seenAt: state.seenAt, source: .sync, edit: nil, details: state.details,
            entryCount: state.entries.count, added: 0, removed: 0, moved: 0, renamed: false)
    }
}
