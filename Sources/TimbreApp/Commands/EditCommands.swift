import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary

/// The edit flags as the command line gave them (the executable's option groups, taken as they are).
public struct EditFlags: Sendable, Equatable {
    /// Plan and print; send no write.
    public var dryRun: Bool
    /// One JSON object on stdout.
    public var json: Bool
    /// On a conflict, apply the edit to the same entries, found by URI and occurrence.
    public var force: Bool
    /// Shuffle and sort: the ⌈n/100⌉-write rewrite (every added date reset) instead of range moves.
    public var rewrite: Bool
    /// Ask nothing first (delete; a long shuffle or sort).
    public var yes: Bool

    public init(dryRun: Bool = false, json: Bool = false, force: Bool = false, rewrite: Bool = false, yes: Bool = false) {
        self.dryRun = dryRun
        self.json = json
        self.force = force
        self.rewrite = rewrite
        self.yes = yes
    }
}

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

    /// --dry-run, --json, --force, --rewrite, --yes: as the command line gave them.
    public var flags: EditFlags

    public init(ref: String, action: Action, flags: EditFlags) {
        self.flags = flags
        self.ref = ref
        self.action = action
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
        // A dedupe says what it costs before its first write (a dry run, in its report).
        let dedupe = if case .dedupe = action { true } else { false }
        if dedupe, !flags.dryRun { RequestCost.announce("Dedupe", editor: editor, console: context.console, since: RequestCost.sent(editor)) }
        if case .add(_, let position) = what {
            // Albums become their tracks only now: that takes requests.
            what = .add(uris: try await Self.uris(of: refs, catalog: editor.catalog), position: position)
        }
        // config.toml's `reorder = "rewrite"` makes the rewrite the default, as if --rewrite were given.
        let rewrite = flags.rewrite || context.config.reorderByRewrite
        let change = LibraryChange.entries(id, what, .init(force: flags.force, rewrite: rewrite))
        var choose: (@Sendable (OrderCost) async -> OrderChoice)?
        if what.isOrderChange, !rewrite, !flags.yes, !flags.dryRun, invocation.console.stdinIsTTY {
            // A person at a terminal chooses before a long order change; a script (no terminal)
            // gets moves, which keep every date, so cron jobs keep working unchanged.
            choose = { [console = context.console] cost in Self.ask(cost, console: console) }
        }
        // Ctrl-C stops a shuffle or sort between two range moves (exit 3); other edits end as before.
        let stop = what.isOrderChange && !flags.dryRun ? EditStop() : nil
        let library = context.library(editor)
        let outcome =
            if let stop {
                try await InterruptStop.watching(stop, console: context.console) { try await library.perform(change, choose: choose, stop: stop).edit }
            } else {
                try await library.perform(change, dryRun: flags.dryRun, choose: choose).edit
            }
        if let outcome { EditReport.show(outcome, json: flags.json, console: context.console) }
        if dedupe, flags.dryRun, !flags.json, let outcome, outcome.ending == .changed {
            context.console.say(RequestCost.line(RequestCost.named("Dedupe", outcome.playlistName), requests: outcome.requests, dryRun: true))
        }
        if case .stopped? = outcome?.ending { return .partial }
        return outcome?.cancelled == true ? .failure : .success
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
        guard !refs.isEmpty else {
            throw UsageError(message: "no tracks given", hint: "name tracks as spotify:track:ID or links, or `-` to read them from stdin")
        }
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
    func request() throws -> LibraryChange.EntryChange {
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
            guard let key = LibraryChange.SortKey(rawValue: by) else {
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
            throw UsageError(
                message: "\(option) \(position): positions count from 1 (the first entry is 1, as `timbre tracks` shows)",
                hint: "timbre 0.1 counted from 0; add 1 to positions saved from it")
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
            !Set(["playlist-modify-public", "playlist-modify-private"]).isSubset(of: Set(scopes))
        {
            throw MissingEditScopes()
        }
        let cache = try cache ?? LibraryCache.open(path: paths.cache, warn: console.warnings)
        return PlaylistEditor(
            api: api, cache: cache, journal: try userData.open().journal, progress: progress, clock: EditClock(say: console.warnings))
    }
}

extension AppContext {
    /// The one door to changing the library (`Library.perform`), over `editor` — or, when none is
    /// given, an editor made on first need (a folder change needs no sign-in).
    func library(_ editor: PlaylistEditor? = nil) -> Library {
        Library(
            folders: { try userData.open().folders },
            editor: { [self] in if let editor { return editor } else { return try await self.editor() } },
            versions: { try userData.open().versions })
    }
}

/// A sign-in from before timbre could edit: its token may read but not write.
struct MissingEditScopes: UserFacingError {
    var message: String { "your sign-in does not allow editing playlists; nothing was written" }
    var hint: String? { "sign in again to allow editing: `timbre login`" }
    var exitStatus: ExitStatus { .authenticationRequired }
}
