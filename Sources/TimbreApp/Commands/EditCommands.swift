import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary

/// `timbre playlist add|remove|move`: one edit of a playlist's entries, journalled and undoable.
public struct PlaylistEditCommand: Sendable {
    public enum Action: Sendable {
        case add(items: [String], position: Int?)
        /// `--position N[-M]` ranges and `--uri URI`s.
        case remove(positions: [ClosedRange<Int>], uris: [String])
        case move(range: ClosedRange<Int>, to: Int)
        case shuffle
        /// `title`, `artist`, `album`, `year`, `duration` or `added`.
        case sort(by: String, reverse: Bool)
        case dedupe(fuzzy: Bool)
    }

    public var ref: String
    public var action: Action
    public var force: Bool
    public var dryRun: Bool
    public var json: Bool
    /// Shuffle and sort: the ⌈n/100⌉-write rewrite (every added date reset) instead of range moves.
    public var rewrite: Bool
    /// Shuffle and sort: do not ask before a long order change.
    public var yes: Bool

    public init(ref: String, action: Action, force: Bool, dryRun: Bool, json: Bool, rewrite: Bool = false, yes: Bool = false) {
        self.ref = ref
        self.action = action
        self.force = force
        self.dryRun = dryRun
        self.json = json
        self.rewrite = rewrite
        self.yes = yes
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        // Every reference is checked before anything is read or written.
        guard case .playlist(let id) = try invocation.playlistRef(ref) else {
            throw UsageError(message: "Liked Songs are changed with `timbre like` and `timbre unlike`, not `timbre playlist`")
        }
        var what = try request()
        var refs: [ItemRef] = []
        if case .add(let items, _) = action { refs = try Self.items(items, input: invocation.console.input) }
        let context = try invocation.context()
        let editor = try await context.editor()
        if case .add(_, let position) = what {
            // Albums become their tracks only now: that takes requests.
            what = .add(uris: try await Self.uris(of: refs, catalog: editor.catalog), position: position)
        }
        // config.toml's `reorder = "rewrite"` makes the rewrite the default, as if --rewrite were given.
        let rewrite = self.rewrite || context.config.reorderByRewrite
        var request = EditRequest(playlist: id, what: what, force: force, dryRun: dryRun, rewrite: rewrite)
        if request.isOrderChange, !rewrite, !yes, !dryRun, invocation.console.stdinIsTTY {
            // A person at a terminal chooses before a long order change; a script (no terminal)
            // gets moves, which keep every date, so cron jobs keep working unchanged.
            request.choose = { [console = context.console] cost in Self.ask(cost, console: console) }
        }
        let outcome = try await editor.apply(request)
        EditReport.show(outcome, json: json, console: context.console)
        return outcome.cancelled ? .failure : .success
    }

    /// The y / r / n question before an order change of more than `OrderCost.askAbove` moves.
    static func ask(_ cost: OrderCost, console: Console) -> OrderChoice {
        guard cost.needsAsking else { return .moves }
        console.writeError(TerminalText.sanitize(cost.question) + " ")
        switch console.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes": return .moves
        case "r", "rewrite": return cost.canRewrite ? .rewrite : .cancel
        default: return .cancel
        }
    }

    /// ITEM arguments, all checked before anything is sent; `-` reads one a line from stdin.
    static func items(_ items: [String], input: any ConsoleInput) throws -> [ItemRef] {
        var refs: [ItemRef] = []
        for item in items {
            if item == "-" {
                while let line = input.readLine() {
                    let text = line.trimmingCharacters(in: .whitespaces)
                    if !text.isEmpty { refs.append(try ItemRef.parse(text)) }
                }
            } else {
                refs.append(try ItemRef.parse(item))
            }
        }
        guard !refs.isEmpty else { throw UsageError(message: "no tracks given", hint: "name tracks as spotify:track:ID or links, or `-` to read them from stdin") }
        return refs
    }

    /// The URIs to send: an album becomes its tracks, in album order.
    static func uris(of refs: [ItemRef], catalog: Catalog) async throws -> [String] {
        var uris: [String] = []
        for ref in refs {
            if ref.kind == .album { uris += try await catalog.albumTracks(ref.id) } else { uris.append(ref.uri) }
        }
        return uris
    }

    /// The edit asked for, checked (usage errors before any request); an add's URIs are filled in
    /// by `run` once its items are read and its albums expanded.
    /// Positions are typed counting from 1 (what `timbre tracks` shows) and become Spotify's
    /// 0-based indices here; 0 or less is a usage error that says so.
    func request() throws -> EditRequest.What {
        switch action {
        case .add(_, let position):
            if let position { try Self.checkPosition(position, option: "--position") }
            return .add(uris: [], position: position.map { $0 - 1 })
        case .remove(let ranges, let uris):
            guard !ranges.isEmpty || !uris.isEmpty else {
                throw UsageError(message: "give --position or --uri", hint: "--position removes exactly those entries; --uri removes every copy of a track")
            }
            for range in ranges { try Self.checkPosition(range.lowerBound, option: "--position") }
            let parsed = try uris.map { try ItemRef.parse($0).uri }
            let positions = ranges.flatMap { Array($0) }.map { $0 - 1 }
            if ranges.isEmpty { return .removeURIs(parsed) }
            if parsed.isEmpty { return .removePositions(positions) }
            return .removeMixed(positions: positions, uris: parsed)
        case .move(let range, let to):
            try Self.checkPosition(range.lowerBound, option: "--position")
            try Self.checkPosition(to, option: "--to")
            return .move(start: range.lowerBound - 1, length: range.count, to: to - 1)
        case .shuffle:
            return .shuffle
        case .sort(let by, let reverse):
            guard let key = EditRequest.SortKey(rawValue: by) else {
                throw UsageError(message: "--by takes title, artist, album, year, duration or added, not '\(TerminalText.preview(by, limit: 20))'")
            }
            return .sort(key, reverse: reverse)
        case .dedupe(let fuzzy):
            return .dedupe(fuzzy: fuzzy)
        }
    }
}

extension PlaylistEditCommand {
    static func checkPosition(_ position: Int, option: String) throws {
        guard position >= 1 else {
            throw UsageError(message: "\(option) \(position): positions count from 1 (the first entry is 1, as `timbre tracks` shows)",
                             hint: "timbre 0.1 counted from 0; add 1 to positions saved from it")
        }
    }
}

/// `timbre undo` and `timbre redo`.
public struct UndoCommand: Sendable {
    public var redo: Bool
    public var force: Bool
    public var json: Bool

    public init(redo: Bool, force: Bool, json: Bool) {
        self.redo = redo
        self.force = force
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let editor = try await context.editor()
        let outcome: EditOutcome
        do {
            outcome = try await redo ? editor.redo(force: force) : editor.undo(force: force)
        } catch let nothing as NothingToUndo where nothing == .noEdit || nothing == .noUndoneEdit {
            // Nothing to do is an answer, not a failure: a sentence, exit 0.
            if json { context.console.json(.object([("done", .bool(false)), ("message", .string(nothing.message))])) }
            context.console.say("\(nothing.message.prefix(1).uppercased())\(nothing.message.dropFirst()); nothing was changed.")
            return .success
        }
        EditReport.show(outcome, json: json, console: context.console)
        return .success
    }
}

/// `timbre history`: the journal, newest first; `--abandon ID` ends an interrupted edit unfinished.
public struct HistoryCommand: Sendable {
    public var json: Bool
    public var limit: Int
    public var abandon: Int64?

    public init(json: Bool, limit: Int, abandon: Int64? = nil) {
        self.json = json
        self.limit = limit
        self.abandon = abandon
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = context.console
        if let abandon {
            guard FileManager.default.fileExists(atPath: context.paths.data) else {
                throw UsageError(message: "there is no edit \(abandon) in the journal (no edits yet)")
            }
            // Reads what Spotify holds to say what the edit leaves; sends no write.
            let leaves = try await context.editor().abandon(abandon)
            console.line("Abandoned edit \(abandon): nothing more of it will be sent; \(leaves).")
            return .success
        }
        guard FileManager.default.fileExists(atPath: context.paths.data) else {
            if json { console.json(.array([])) } else { console.say("no edits yet") }
            return .success
        }
        let entries = try context.userData.open().journal.history(limit: limit)
        if json {
            console.json(.array(entries.map { entry in
                .object([("id", .int(Int(entry.id))), ("at", .string(ClockText.iso(entry.at))), ("op", .string(entry.op)),
                         ("playlist", .string(entry.playlist)), ("summary", .string(entry.summary)), ("state", .string(Self.state(entry))),
                         ("reason", .optional(entry.reason))])
            }))
        } else {
            console.lines(entries.map { entry in
                var line = "\(String(entry.id).leftPadded(to: 5))  \(ClockText.localDateTime(entry.at))  \(Self.state(entry).padding(toLength: 11, withPad: " ", startingAt: 0)) \(TerminalText.sanitize(entry.summary))"
                if entry.state == .running {
                    line += " — finished by the next sync or edit (`timbre history --abandon \(entry.id)` drops it)"
                } else if entry.state == .failed, let reason = entry.reason {
                    line += " — \(TerminalText.sanitize(reason))"
                }
                return line
            })
        }
        return .success
    }

    /// `running` in the journal is an edit whose process stopped: `interrupted` until a command finishes it.
    static func state(_ entry: EditJournal.Entry) -> String {
        entry.state == .running ? "interrupted" : entry.state.rawValue
    }
}

enum EditReport {
    static func show(_ outcome: EditOutcome, json: Bool, console: Console) {
        for warning in outcome.warnings { console.warning(warning) }
        if json {
            console.json(outcome.json)
            return
        }
        console.line(outcome.summary)
        guard outcome.dryRun else { return }
        // Each entry by name, as `timbre tracks` numbers it (from 1), then each write.
        console.lines(outcome.entries.map { "  " + TerminalText.sanitize($0) })
        console.lines(outcome.writes.enumerated().map { index, write in "  \(index + 1). \(describe(write))" })
    }

    /// One write for a person: positions counted from 1.
    static func describe(_ write: EntryWrite) -> String {
        switch write {
        case .add(let uris, let position):
            return "add \(uris.count) at position \(position + 1) (POST …/items)"
        case .removeEvery(let uris):
            return "remove every copy of \(uris.count) \(uris.count == 1 ? "track" : "tracks") (DELETE …/items)"
        case .reorder(let start, let insertBefore, let length):
            let range = length == 1 ? "entry \(start + 1)" : "entries \(start + 1)–\(start + length)"
            return "move \(range) to before entry \(insertBefore + 1) (PUT …/items)"
        case .replace(let uris):
            return "replace the whole list with its first \(uris.count) (PUT …/items)"
        }
    }
}

extension AppContext {
    /// The playlist editor over the live API, the cache and the journal: signed in, with the
    /// scopes editing needs. `cache`: one the caller has open already (the interface's), else the
    /// profile's is opened and verified.
    func editor(vault: CredentialVault? = nil, cache: LibraryCache? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> PlaylistEditor {
        let vault = vault ?? self.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        let api = try spotify(vault: vault)
        // The scopes of the access token in use (refreshed first when none is known): a sign-in
        // from before editing existed is told so before anything is written.
        _ = try await api.tokens.accessToken()
        if let scopes = await api.tokens.currentSession()?.scopes, !scopes.isEmpty,
           !Set(["playlist-modify-public", "playlist-modify-private"]).isSubset(of: Set(scopes)) {
            throw MissingEditScopes()
        }
        let cache = try cache ?? LibraryCache.open(path: paths.cache, warn: console.warnings)
        return PlaylistEditor(api: api, cache: cache, journal: try userData.open().journal, progress: progress)
    }
}

/// A sign-in from before timbre could edit: its token may read but not write.
struct MissingEditScopes: UserFacingError {
    var message: String { "your sign-in does not allow editing playlists; nothing was written" }
    var hint: String? { "sign in again to allow editing: `timbre login`" }
    var exitStatus: ExitStatus { .authenticationRequired }
}

/// `timbre like` and `timbre unlike`: Liked Songs, journalled and undoable.
public struct LikeCommand: Sendable {
    public var items: [String]
    public var like: Bool
    public var dryRun: Bool
    public var json: Bool

    public init(items: [String], like: Bool, dryRun: Bool, json: Bool) {
        self.items = items
        self.like = like
        self.dryRun = dryRun
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let refs = try PlaylistEditCommand.items(items, input: invocation.console.input)
        let context = try invocation.context()
        let editor = try await context.editor()
        let uris = try await PlaylistEditCommand.uris(of: refs, catalog: editor.catalog)
        let outcome = try await editor.library(uris, save: like, op: like ? "like" : "unlike", dryRun: dryRun)
        EditReport.show(outcome, json: json, console: context.console)
        return .success
    }
}

/// `timbre playlist delete REF...`: unfollows (Spotify's only delete), journalled; `undo` follows again.
public struct DeleteCommand: Sendable {
    public var refs: [String]
    public var yes: Bool
    public var dryRun: Bool
    public var json: Bool

    public init(refs: [String], yes: Bool, dryRun: Bool, json: Bool) {
        self.refs = refs
        self.yes = yes
        self.dryRun = dryRun
        self.json = json
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
        if !yes && !dryRun {
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
        let outcome = try await context.editor().library(ids.map { "spotify:playlist:\($0.rawValue)" }, save: false, op: "delete", dryRun: dryRun)
        EditReport.show(outcome, json: json, console: context.console)
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
    public var dryRun: Bool
    public var json: Bool

    public init(name: String, description: String?, isPrivate: Bool, collaborative: Bool, dryRun: Bool, json: Bool) {
        self.name = name
        self.description = description
        self.isPrivate = isPrivate
        self.collaborative = collaborative
        self.dryRun = dryRun
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let name = self.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 1_000 else { throw UsageError(message: "a playlist needs a name of 1 to 1,000 characters") }
        if collaborative && !isPrivate { throw UsageError(message: "a collaborative playlist must be private", hint: "add --private") }
        let context = try invocation.context()
        let editor = try await context.editor()
        let outcome = try await editor.create(PlaylistDetails(name: name, description: description, isPublic: !isPrivate, collaborative: collaborative),
                                              dryRun: dryRun)
        for warning in outcome.warnings { context.console.warning(warning) }
        if dryRun {
            EditReport.show(outcome, json: json, console: context.console)
        } else if json, let id = SpotifyID(outcome.playlist), let playlist = try context.existingCache()?.playlist(.playlist(id)) {
            context.console.json(playlist.json)
        } else {
            context.console.line(outcome.playlist)
        }
        return .success
    }
}

/// `timbre playlist edit REF`: name, description, visibility, collaboration.
public struct DetailsCommand: Sendable {
    public var ref: String
    var details: PlaylistDetails
    public var dryRun: Bool
    public var json: Bool

    /// nil: leave it as it is.
    public init(ref: String, name: String?, description: String?, isPublic: Bool?, collaborative: Bool?, dryRun: Bool, json: Bool) {
        self.ref = ref
        self.details = PlaylistDetails(name: name, description: description, isPublic: isPublic, collaborative: collaborative)
        self.dryRun = dryRun
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        guard case .playlist(let id) = try invocation.playlistRef(ref) else { throw UsageError(message: "Liked Songs have no details to change") }
        guard !details.isEmpty else { throw UsageError(message: "nothing to change", hint: "give --name, --description, --public/--private or --collaborative/--no-collaborative") }
        if let name = details.name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw UsageError(message: "a playlist name cannot be empty") }
        let context = try invocation.context()
        let outcome = try await context.editor().details(of: id, to: details, dryRun: dryRun)
        EditReport.show(outcome, json: json, console: context.console)
        return .success
    }
}

/// `timbre playlist copy SRC DST [--dedupe]`: SRC's entries appended to DST (`new:NAME` creates it).
public struct CopyCommand: Sendable {
    public var source: String
    public var destination: String
    public var dedupe: Bool
    public var dryRun: Bool
    public var json: Bool

    public init(source: String, destination: String, dedupe: Bool, dryRun: Bool, json: Bool) {
        self.source = source
        self.destination = destination
        self.dedupe = dedupe
        self.dryRun = dryRun
        self.json = json
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
        if skipped > 0 { context.console.warning("\(skipped) entries of the source are local files or have no track; Spotify cannot add those, so they were left out") }
        if let newName {
            if dryRun {
                context.console.line("would create “\(TerminalText.sanitize(newName))” and add \(uris.count) entries")
                return .success
            }
            let created = try await editor.create(PlaylistDetails(name: newName), dryRun: false)
            to = SpotifyID(created.playlist)
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
        let outcome = try await editor.apply(EditRequest(playlist: target, what: .add(uris: uris, position: nil), dryRun: dryRun))
        EditReport.show(outcome, json: json, console: context.console)
        return .success
    }
}
