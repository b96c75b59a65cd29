import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre import FILE|- (--into REF | --name NAME)`: Exportify CSV (either layout), Timor CSV,
/// `timbre tracks --csv`, or URIs/links one a line; rows without a usable URI are matched by
/// catalogue search, at most `maxSearches` searches (counted before the first is sent).
public struct ImportCommand: Sendable {
    public var file: String
    public var into: String?
    public var name: String?
    public var maxSearches: Int

    /// Searches one import may send unless `--max-searches` allows more.
    public static let defaultMaxSearches = PlaylistImport.defaultMaxSearches

    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(file: String, into: String?, name: String?, flags: EditFlags, maxSearches: Int = PlaylistImport.defaultMaxSearches) {
        self.flags = flags
        self.file = file
        self.into = into
        self.name = name
        self.maxSearches = maxSearches
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        guard (into == nil) != (name == nil) else { throw UsageError(message: "give --into REF or --name NAME") }
        var target: SpotifyID?
        if let into {
            guard case .playlist(let id) = try invocation.playlistRef(into) else { throw UsageError(message: "import into Liked Songs with `timbre like -`") }
            target = id
        }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty { throw UsageError(message: "--name needs a name") }
        guard maxSearches >= 0 else { throw UsageError(message: "--max-searches must be 0 or more") }
        let rows = try PlaylistImport.rows(try read(invocation.console.input))
        guard !rows.isEmpty else { throw UsageError(message: "\(file == "-" ? "stdin" : TerminalText.preview(file)) holds no rows to import") }
        // Before anything is sent: sign-in, the playlist, the first search.
        try PlaylistImport.checkSearches(rows, max: maxSearches)

        let context = try invocation.context()
        let editor = try await context.editor()
        // The whole command's requests (searches, a creation, the add), said before the add's first write.
        let start = RequestCost.sent(editor)
        if !flags.dryRun { RequestCost.announce("Import into", editor: editor, console: context.console, since: start) }
        let bar = ProgressBar(console: context.console, enabled: !flags.json && context.console.showsProgress)
        let matched = await Result {
            try await PlaylistImport.match(rows, catalog: editor.catalog, maxSearches: maxSearches) { done, total in
                bar.update(SyncProgress(phase: .items, description: "searching the catalogue", done: done, total: total))
            }
        }
        bar.finish()
        let found = try matched.get()
        let (uris, byURI, bySearch, unmatched) = (found.uris, found.byURI, found.bySearch, found.unmatched)
        let library = context.library(editor)
        if let name, !flags.dryRun, !uris.isEmpty {
            target = try await library.perform(.create(PlaylistDetails(name: name))).edit?.playlist?.id
        }
        var outcome: EditOutcome?
        let beforeAdd = RequestCost.sent(editor)
        if let target, !uris.isEmpty {
            outcome = try await library.perform(.entries(target, .add(uris: uris, position: nil)), dryRun: flags.dryRun).edit
        }
        // `requests`: the whole command's, the searches and a --name playlist's creation included
        // (a dry run: with what the add would still send).
        let sent = RequestCost.sent(editor) - start
        // The add counted its own: the searches and a creation before it join them.
        outcome?.requests += beforeAdd - start
        let console = context.console
        if flags.json {
            var object: [(String, JSONValue)] = []
            if let outcome, case .object(let members) = EditReport.json(outcome) {
                object = members
            } else {
                object = [
                    ("op", .string("import")), ("playlist", .optional(target?.rawValue)), ("added", .int(0)), ("requests", .int(sent)),
                    ("dry_run", .bool(flags.dryRun)),
                ]
            }
            object += [
                ("matched_by_uri", .int(byURI)), ("matched_by_search", .int(bySearch)),
                ("unmatched", .array(unmatched.map { .object([("row", .int($0.line)), ("title", .string($0.title)), ("artist", .string($0.artist))]) })),
            ]
            console.json(.object(object))
        } else {
            if let outcome { EditReport.show(outcome, json: false, console: console) }
            if flags.dryRun, let name { console.line("would create “\(TerminalText.sanitize(name))” first") }
            if flags.dryRun, let outcome, outcome.ending == .changed {
                console.say(RequestCost.line(RequestCost.named("Import into", outcome.playlistName), requests: outcome.requests, dryRun: true))
            }
            console.line("matched \(byURI) by URI, \(bySearch) by search; \(unmatched.count) unmatched")
            for row in unmatched { console.line(TerminalText.sanitize("  row \(row.line): \(row.title) — \(row.artist)")) }
        }
        return unmatched.isEmpty ? .success : .partial
    }

    func read(_ stdin: any ConsoleInput) throws -> String {
        let data: Data
        if file == "-" {
            data = try Self.readStdin(stdin)
        } else {
            data = try PlaylistImport.contents(of: file)
        }
        return try PlaylistImport.text(data)
    }

    /// stdin, read no further than the size limit: an endless or huge input is refused after
    /// 64 MB, not after all of it is in memory.
    static func readStdin(_ stdin: any ConsoleInput) throws -> Data {
        guard let data = stdin.readAll(limit: PlaylistImport.maxBytes) else { throw UsageError(message: "the input is over 64 MB: not a playlist") }
        return data
    }
}
