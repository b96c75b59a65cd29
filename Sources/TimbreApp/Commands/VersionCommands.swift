import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre playlist log REF`: the versions timbre kept of a playlist, newest first (offline).
public struct PlaylistLogCommand: Sendable {
    public var ref: String
    public var json: Bool

    public init(ref: String, json: Bool) {
        self.ref = ref
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let stored = try context.userData.existing()?.versions
        let id = try VersionReference.resolve(ref, invocation: invocation, versions: stored)
        let versions = try VersionLookup(versions: stored, cache: try context.existingCache()).versions(of: id)
        if json {
            context.console.json(.array(versions.map(\.json)))
        } else if versions.isEmpty {
            context.console.warning(VersionReference.noVersions(id))
        } else {
            context.console.lines(versions.map(\.line))
        }
        return .success
    }
}

/// `timbre playlist diff REF [V1 [V2]]`: what changed between two versions, or a version and the
/// playlist as the cache holds it now.
public struct PlaylistDiffCommand: Sendable {
    public var ref: String
    public var from: Int?
    public var to: Int?
    public var json: Bool

    public init(ref: String, from: Int?, to: Int?, json: Bool) {
        self.ref = ref
        self.from = from
        self.to = to
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let cache = try context.existingCache()
        let stored = try context.userData.existing()?.versions
        let id = try VersionReference.resolve(ref, invocation: invocation, versions: stored)
        let lookup = VersionLookup(versions: stored, cache: cache)
        let versions = try lookup.versions(of: id)
        guard let latest = versions.first else { throw UnknownVersion(playlist: id, version: from ?? to ?? 1, known: []) }
        // V2: the version asked for, else the list the cache holds (the last version of a deleted one).
        let current = try cache.flatMap { try PlaylistVersions.cachedState($0, playlist: id) }
        let after: (label: String, entries: [VersionEntry])
        if let to {
            after = ("version \(to)", try lookup.state(to, of: id).entries)
        } else if let current {
            after = ("the current list", current.entries)
        } else {
            after = ("version \(latest.version) (the last)", try lookup.state(latest.version, of: id).entries)
        }
        let fromNumber = try from ?? defaultFrom(lookup, versions: versions, id: id, after: after.entries)
        let before = try lookup.state(fromNumber, of: id)
        let diff = VersionDiff(from: before.entries.map(\.uri), to: after.entries.map(\.uri))
        if json {
            context.console.json(diff.json)
            return .success
        }
        let titles = (try? cache?.titles(of: Set(diff.added.map(\.uri) + diff.removed.map(\.uri) + diff.moved.map(\.uri)))) ?? [:]
        func label(_ uri: String) -> String {
            TerminalText.sanitize(titles[uri].map { "\(TerminalText.preview($0, limit: 100))  \(uri)" } ?? TerminalText.preview(uri, limit: 100))
        }
        let name = TerminalText.sanitize(TerminalText.preview(before.version.details.name, limit: 80))
        var lines = ["“\(name)”: version \(fromNumber) → \(after.label): +\(diff.added.count) −\(diff.removed.count) ~\(diff.moved.count)"]
        lines += diff.removed.map { "- #\($0.position + 1)  \(label($0.uri))" }
        lines += diff.added.map { "+ #\($0.position + 1)  \(label($0.uri))" }
        lines += diff.moved.map { "~ #\($0.from + 1) → #\($0.to + 1)  \(label($0.uri))" }
        context.console.lines(lines)
        return .success
    }

    /// The version before the list compared: the newest one that differs from it when the last
    /// version is that list, else the last version.
    private func defaultFrom(_ lookup: VersionLookup, versions: [PlaylistVersion], id: String, after: [VersionEntry]) throws -> Int {
        func previous(before number: Int) -> Int { versions.first { $0.version < number }?.version ?? number }
        if let to { return previous(before: to) }
        guard let latest = versions.first else { return 1 }
        let last = try lookup.state(latest.version, of: id).entries
        return last.map(\.uri) == after.map(\.uri) ? previous(before: latest.version) : latest.version
    }
}

/// `timbre playlists --deleted`: playlists that left the library, with their last version.
public struct DeletedPlaylistsCommand: Sendable {
    public var json: Bool

    public init(json: Bool) { self.json = json }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let deleted = try context.userData.existing()?.versions.deleted() ?? []
        if json {
            context.console.json(.array(deleted.map(\.json)))
        } else if deleted.isEmpty {
            context.console.say("No deleted playlists: timbre marks one when a sync no longer finds it in your library.")
        } else {
            context.console.lines(
                deleted.map { playlist in
                    let entries = "\(playlist.last.entryCount) " + (playlist.last.entryCount == 1 ? "entry" : "entries")
                    return "\(playlist.id)  \(entries.leftPadded(to: 13))  deleted \(ClockText.localDateTime(playlist.deletedAt))  "
                        + "v\(playlist.last.version)  \(TerminalText.sanitize(TerminalText.preview(playlist.last.details.name, limit: 80)))"
                })
        }
        return .success
    }
}

/// `timbre history --prune`: the retention (`history_keep`) applied now, interned texts no
/// version uses dropped too; prints what went.
public struct VersionPruneCommand: Sendable {
    public init() {}

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let seconds = context.config.historyKeepSeconds
        guard let versions = try context.userData.existing()?.versions else {
            context.console.say("Nothing to prune: no playlist versions are kept yet.")
            return .success
        }
        let report = try versions.prune(before: PlaylistVersions.cutoff(keep: .seconds(seconds)), collectTexts: true)
        let keep = seconds % (365 * 86_400) == 0 ? "\(seconds / (365 * 86_400))y" : "\(seconds / 86_400)d"
        let kept = "history_keep = \"\(keep)\"; the newest \(PlaylistVersions.minimumKept) versions of each playlist are always kept"
        if report.versions == 0 && report.texts == 0 {
            context.console.line("Nothing to prune (\(kept)).")
        } else {
            let removed = "\(report.versions) version\(report.versions == 1 ? "" : "s") of \(report.playlists) playlist\(report.playlists == 1 ? "" : "s")"
            context.console.line("Removed \(removed) and \(report.texts) unused stored name\(report.texts == 1 ? "" : "s") (\(kept)).")
        }
        return .success
    }
}

/// A REF for the versions: what every playlist command takes, and also a deleted playlist's id or
/// name (which the cache no longer knows).
enum VersionReference {
    static func resolve(_ text: String, invocation: Invocation, versions: PlaylistVersions?) throws -> String {
        let reference: PlaylistRef
        do {
            reference = try invocation.playlistRef(text)
        } catch {
            guard let match = try versions?.deletedMatching(text.trimmingCharacters(in: .whitespaces)).first else { throw error }
            return match.id
        }
        guard case .playlist(let id) = reference else {
            throw UsageError(message: "Liked Songs has no versions: timbre keeps versions of playlists only", hint: "give a playlist's name, ID or link")
        }
        return id.rawValue
    }

    static func noVersions(_ id: String) -> String {
        "timbre has no versions of \(id) yet: one is recorded when a sync or an edit changes the playlist"
    }
}
