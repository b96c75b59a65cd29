import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre playlist delete REF...`: unfollows (Spotify's only delete), journalled; `undo` follows again.
public struct DeleteCommand: Sendable {
    public var refs: [String]

    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(refs: [String], flags: EditFlags) {
        self.flags = flags
        self.refs = refs
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let console = invocation.console
        var ids: [SpotifyID] = []
        for ref in refs {
            guard case .playlist(let id) = try invocation.playlistRef(ref) else {
                throw UsageError(message: "Liked Songs cannot be deleted", hint: "`timbre unlike` removes songs from it")
            }
            if !ids.contains(id) { ids.append(id) }
        }
        if !flags.yes && !flags.dryRun {
            guard console.stdinIsTTY else {
                throw UsageError(message: "deleting playlists needs --yes when timbre cannot ask", hint: "add --yes (or --dry-run to see what would happen)")
            }
            let named = Self.names(ids, invocation)
            console.writeError("Delete (unfollow) \(named)? `timbre undo` follows \(ids.count == 1 ? "it" : "them") again. [y/N] ")
            guard let answer = console.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), answer == "y" || answer == "yes" else {
                // Declining is an answer: exit 0, and what would have happened.
                console.say("Nothing deleted. \(named) \(ids.count == 1 ? "stays" : "stay") in your library.")
                return .success
            }
        }
        let context = try invocation.context()
        let outcome = try await context.library().perform(.delete(ids), dryRun: flags.dryRun).edit
        if let outcome { EditReport.show(outcome, json: flags.json, console: context.console) }
        return .success
    }
}

extension DeleteCommand {
    /// “Name” (or the id, for a playlist the cache does not have), for up to three; a count beyond.
    static func names(_ ids: [SpotifyID], _ invocation: Invocation) -> String {
        let cached = Dictionary(((try? invocation.cachedPlaylistNames()) ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let shown = ids.prefix(3).map { id in cached[id].map { "“\(TerminalText.preview($0, limit: 60))”" } ?? "playlist \(id)" }
        if ids.count <= 3 { return shown.joined(separator: ", ") }
        return "\(ids.count) playlists (\(shown.joined(separator: ", ")), …)"
    }
}

/// `timbre playlist create NAME`: prints the new playlist's id (`--json`: its `playlists --json` object).
public struct CreateCommand: Sendable {
    public var name: String
    public var description: String?
    public var isPrivate: Bool
    public var collaborative: Bool

    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(name: String, description: String?, isPrivate: Bool, collaborative: Bool, flags: EditFlags) {
        self.flags = flags
        self.name = name
        self.description = description
        self.isPrivate = isPrivate
        self.collaborative = collaborative
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        // Checked before sign-in is looked at: a bad name is exit 2 whatever the state.
        let change = try LibraryChange.create(
            PlaylistDetails(
                name: name, description: description, isPublic: !isPrivate,
                collaborative: collaborative)
        ).validated()
        let context = try invocation.context()
        guard let outcome = try await context.library().perform(change, dryRun: flags.dryRun).edit else { return .failure }
        for warning in outcome.warnings { context.console.warning(warning) }
        if flags.dryRun {
            EditReport.show(outcome, json: flags.json, console: context.console)
        } else if flags.json, let id = outcome.playlist?.id, let playlist = try context.existingCache()?.playlist(.playlist(id)) {
            context.console.json(playlist.json)
        } else {
            context.console.line(outcome.playlist?.description ?? "")
        }
        return .success
    }
}

/// `timbre playlist edit REF`: name, description, visibility, collaboration.
public struct DetailsCommand: Sendable {
    public var ref: String
    var details: PlaylistDetails

    /// nil: leave it as it is.
    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(ref: String, name: String?, description: String?, isPublic: Bool?, collaborative: Bool?, flags: EditFlags) {
        self.flags = flags
        self.ref = ref
        self.details = PlaylistDetails(name: name, description: description, isPublic: isPublic, collaborative: collaborative)
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        guard case .playlist(let id) = try invocation.playlistRef(ref) else { throw UsageError(message: "Liked Songs have no details to change") }
        let change = try LibraryChange.details(id, details).validated()
        let context = try invocation.context()
        let outcome = try await context.library().perform(change, dryRun: flags.dryRun).edit
        if let outcome { EditReport.show(outcome, json: flags.json, console: context.console) }
        return .success
    }
}

/// `timbre playlist copy SRC DST [--dedupe]`: SRC's entries appended to DST (`new:NAME` creates it).
public struct CopyCommand: Sendable {
    public var source: String
    public var destination: String
    public var dedupe: Bool

    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(source: String, destination: String, dedupe: Bool, flags: EditFlags) {
        self.flags = flags
        self.source = source
        self.destination = destination
        self.dedupe = dedupe
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let from = try invocation.playlistRef(source)
        let newName = destination.hasPrefix("new:") ? String(destination.dropFirst(4)).trimmingCharacters(in: .whitespaces) : nil
        var to: SpotifyID?
        if let newName {
            guard !newName.isEmpty else { throw UsageError(message: "new:NAME needs a name") }
        } else {
            guard case .playlist(let id) = try invocation.playlistRef(destination) else {
                throw UsageError(message: "copy into Liked Songs with `timbre like`, not `playlist copy`")
            }
            to = id
        }
        let context = try invocation.context()
        let editor = try await context.editor()
        // What SRC holds on Spotify now (Liked Songs: the cache, refreshed by the last sync).
        var uris = try await editor.entryURIs(of: from)
        let skipped = uris.filter { !$0.hasPrefix("spotify:track:") && !$0.hasPrefix("spotify:episode:") }.count
        uris = uris.filter { $0.hasPrefix("spotify:track:") || $0.hasPrefix("spotify:episode:") }
        if skipped > 0 {
            context.console.warning("\(skipped) entries of the source are local files or have no track; Spotify cannot add those, so they were left out")
        }
        if let newName {
            if flags.dryRun {
                context.console.line("would create “\(TerminalText.sanitize(newName))” and add \(uris.count) entries")
                return .success
            }
            let created = try await context.library(editor).perform(.create(PlaylistDetails(name: newName))).edit
            to = created?.playlist?.id
        }
        guard let target = to else { return .failure }
        if dedupe {
            var seen = Set(try await editor.entryURIs(of: .playlist(target)))
            uris = uris.filter { seen.insert($0).inserted }
        }
        guard !uris.isEmpty else {
            context.console.say("nothing to copy")
            return .success
        }
        let outcome = try await context.library(editor).perform(.entries(target, .add(uris: uris, position: nil)), dryRun: flags.dryRun).edit
        if let outcome { EditReport.show(outcome, json: flags.json, console: context.console) }
        return .success
    }
}
