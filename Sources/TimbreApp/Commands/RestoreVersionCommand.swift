import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre playlist restore REF --to V`: makes the playlist on Spotify equal to version V (as
/// `playlist log` numbers them) in one journalled, undoable edit — the fewest writes that keep the
/// date added of every entry that stays; a playlist no longer in the library is followed again
/// when Spotify still has it, else created anew with that version's details and entries.
public struct RestoreVersionCommand: Sendable {
    public var ref: String
    public var version: Int
    public var flags: EditFlags

    public init(ref: String, version: Int, flags: EditFlags) {
        self.ref = ref
        self.version = version
        self.flags = flags
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let cache = try context.existingCache()
        let versions = try context.userData.existing()?.versions
        let text = try VersionReference.resolve(ref, invocation: invocation, versions: versions)
        guard let id = SpotifyID(text) else { throw UsageError(message: "“\(TerminalText.preview(ref, limit: 60))” names no playlist timbre knows") }
        let (change, kept, inLibrary) = try Self.change(id, version: version, force: flags.force, cache: cache, versions: versions)
        let editor = try await context.editor()
        // What it costs, said before its first write (a dry run, after its report).
        if !flags.dryRun { RequestCost.announce("Restore", editor: editor, console: context.console, since: RequestCost.sent(editor)) }
        guard let outcome = try await context.library(editor).perform(change, dryRun: flags.dryRun).edit else { return .failure }
        EditReport.show(outcome, json: flags.json, console: context.console)
        if flags.dryRun, !flags.json, outcome.ending == .changed {
            context.console.say(RequestCost.line(RequestCost.named("Restore", outcome.playlistName), requests: outcome.requests, dryRun: true))
        }
        if inLibrary, !flags.json, let current = try cache?.playlist(.playlist(id)), current.name != kept.details.name {
            context.console.line(
                "version \(version) was named “\(TerminalText.sanitize(TerminalText.preview(kept.details.name, limit: 80)))”: `timbre playlist edit \(id) --name …` puts the name back"
            )
        }
        return outcome.cancelled ? .failure : .success
    }

    /// The change that makes playlist `id` equal to its version `version`: entries made equal when
    /// it is in the library, else the playlist brought back from that version.
    static func change(
        _ id: SpotifyID, version: Int, force: Bool, cache: LibraryCache?, versions: PlaylistVersions?
    ) throws -> (change: LibraryChange, version: PlaylistVersion, inLibrary: Bool) {
        let (kept, entries) = try VersionLookup(versions: versions, cache: cache).state(version, of: id.rawValue)
        let uris = entries.map(\.uri)
        if try cache?.playlist(.playlist(id)) != nil {
            // The version's dates go with it: copies of one track are put back each in its own place.
            return (.entries(id, .become(to: uris, addedAt: entries.map(\.addedAt)), .init(force: force)), kept, true)
        }
        let details = PlaylistDetails(name: kept.details.name, description: kept.details.description, isPublic: kept.details.isPublic)
        return (.revive(id, details, entries: uris), kept, false)
    }
}
