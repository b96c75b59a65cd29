import Foundation
import TimbreCore
import TimbreLibrary
import TimbreTUI

/// What the interface's edits run on: the same `PlaylistEditor`, journal, catalogue and folders
/// as `timbre playlist …`, `undo`, `import`, `export`, `stats` and `folder` — so an edit made
/// with `d` is undone by `timbre undo`, and the other way round.
actor InterfaceServices {
    private let context: AppContext
    private let makeEditor: @Sendable (_ progress: @escaping @Sendable (Int, Int) -> Void) async throws -> PlaylistEditor
    private var editor: PlaylistEditor?
    /// Where the running edit's progress goes (edits run one at a time).
    private let progressSink = Locked<(@Sendable (Int, Int) -> Void)?>(nil)
    /// Set by the interface (Esc) to stop a shuffle or sort between two of its range moves.
    private let stop = EditStop()
    /// Spotify's player, when signed in (nil: the playback keys say sign in first), and who is
    /// told each read of it (the MPRIS bridge).
    private let player: SharedPlayer?
    private let observePlayer: @Sendable (PlaybackState?, ContinuousClock.Instant) -> Void
    /// Where the MPRIS bridge says a media key's command was answered: the interface reads then.
    private let playerCommandsElsewhere: PlayerCommandsElsewhere

    init(
        context: AppContext, makeEditor: @escaping @Sendable (_ progress: @escaping @Sendable (Int, Int) -> Void) async throws -> PlaylistEditor,
        player: SharedPlayer? = nil, observePlayer: @escaping @Sendable (PlaybackState?, ContinuousClock.Instant) -> Void = { _, _ in },
        playerCommandsElsewhere: PlayerCommandsElsewhere = PlayerCommandsElsewhere()
    ) {
        self.context = context
        self.makeEditor = makeEditor
        self.player = player
        self.observePlayer = observePlayer
        self.playerCommandsElsewhere = playerCommandsElsewhere
    }

    /// The editor, built on first use (a sign-in without the editing scopes is told so then).
    private func sharedEditor() async throws -> PlaylistEditor {
        if let editor { return editor }
        let sink = progressSink
        let made = try await makeEditor { done, total in sink.current?(done, total) }
        editor = made
        return made
    }

    nonisolated func services() -> TUIServices {
        TUIServices(
            run: { edit, progress, choose in try await self.run(edit, progress: progress, choose: choose) },
            reread: { id in await self.reread(id) },
            searchCatalog: { query in try await self.searchCatalog(query) },
            statistics: { [context] id in try Self.statistics(id, context: context) }, stop: stop,
            player: player.map { InterfacePlayer.make($0, context: context, observe: observePlayer, elsewhere: playerCommandsElsewhere) })
    }

    static let undoKey = "u", redoKey = "C-r"

    /// The library the interface changes: the shared editor, and the folders.
    private var library: Library {
        let userData = context.userData
        return Library(
            folders: { try userData.open().folders }, editor: { try await self.sharedEditor() }, versions: { try userData.open().versions })
    }

    /// One edit: a change of the library goes through `Library.perform`, as the CLI's do; a file
    /// transfer (`:export`, `:import`) reads or writes its file around one.
    func run(
        _ edit: TUIEdit, progress: @escaping @Sendable (Int, Int) -> Void,
        choose: @escaping @Sendable (OrderCost) async -> OrderChoice = { _ in .moves }
    ) async throws -> TUIEditReport {
        progressSink.withLock { $0 = progress }
        defer { progressSink.withLock { $0 = nil } }
        switch edit {
        case .change(let change):
            // `:shuffle` and `:sort` ask (y / r / n) before a long order change, as the CLI does.
            return try report(try await library.perform(change, choose: choose, stop: stop))
        case .transfer(.export(let playlist, let path, let overwrite)):
            return try export(playlist, to: path, overwrite: overwrite)
        case .transfer(.importFile(let path, let into)):
            return try await importFile(path, into: into)
        case .restoreVersion(let id, let version):
            let versions = try context.userData.existing()?.versions
            let (change, _, _) = try RestoreVersionCommand.change(id, version: version, force: false, cache: try context.existingCache(), versions: versions)
            return try report(try await library.perform(change))
        }
    }

    /// The status line's sentence for a change, with the interface's undo and redo keys.
    private func report(_ outcome: LibraryOutcome) throws -> TUIEditReport {
        switch outcome {
        case .edit(let outcome):
            return TUIEditReport(
                message: EditReport.sentence(outcome, undo: Self.undoKey, redo: Self.redoKey), warnings: outcome.warnings,
                createdPlaylistID: outcome.operation == .create ? outcome.playlist?.description : nil)
        case .folder(let change):
            return TUIEditReport(message: try folderMessage(change))
        }
    }

    func reread(_ id: String) async -> String? {
        guard let playlist = SpotifyID(id) else { return nil }
        do {
            try await sharedEditor().reload(playlist)
            return nil
        } catch {
            return (error as? any UserFacingError)?.message ?? "\(error)"
        }
    }

    func searchCatalog(_ query: String) async throws -> [CatalogHit] {
        try await sharedEditor().catalog.search(query, kind: .track, limit: 30).map {
            CatalogHit(uri: $0.uri, title: $0.name, artist: $0.artists.joined(separator: ", "), album: $0.album ?? "", durationMS: $0.durationMS ?? 0)
        }
    }

    /// The interface's playlist ids are the cache's (`liked` included), which `PlaylistRef` reads.
    static func statistics(_ id: String, context: AppContext) throws -> [String] {
        try context.statistics(of: try PlaylistRef.parse(id)).lines
    }

    /// `:export FILE`: to the absolute path FILE means; a file there is replaced only after a yes.
    func export(_ playlist: PlaylistRef, to path: String, overwrite: Bool = false) throws -> TUIEditReport {
        let file = try Self.absolutePath(path, environment: context.invocation.environment, directory: FileManager.default.currentDirectoryPath)
        let shown = TerminalText.preview(file, limit: 120)
        if !overwrite, FileManager.default.fileExists(atPath: file) {
            return TUIEditReport(
                message: "“\(shown)” exists; nothing was written",
                ask: .init(question: "“\(shown)” exists — overwrite? (y/n)", edit: .transfer(.export(playlist, path: file, overwrite: true))))
        }
        let entries = try context.cachedEntries(of: playlist).entries
        try PlaylistExport.write(entries, to: file)
        return TUIEditReport(message: "Exported \(entries.count) entries to \(shown)")
    }

    /// `path` made absolute: `~` and `~/…` from the run's `$HOME` (not the account's home the
    /// process would look up), anything else not starting with `/` from `directory`.
    static func absolutePath(_ path: String, environment: [String: String], directory: String) throws -> String {
        var path = path.trimmingCharacters(in: .whitespaces)
        if path == "~" || path.hasPrefix("~/") {
            guard let home = environment["HOME"], home.hasPrefix("/") else {
                throw UsageError(message: "“~” needs $HOME, which is not set to a full path", hint: "give the file's full path, e.g. :export /tmp/list.csv")
            }
            path = home + path.dropFirst()
        } else if !path.hasPrefix("/") {
            path = directory + "/" + path
        }
        return (path as NSString).standardizingPath
    }

    private func importFile(_ path: String, into target: SpotifyID) async throws -> TUIEditReport {
        let file = (path as NSString).expandingTildeInPath
        let rows = try PlaylistImport.rows(try PlaylistImport.text(try PlaylistImport.contents(of: file)))
        guard !rows.isEmpty else { throw UsageError(message: "\(TerminalText.preview(file)) holds no rows to import") }
        let found = try await PlaylistImport.match(rows, catalog: try await sharedEditor().catalog)
        let (uris, byURI, bySearch, unmatched) = (found.uris, found.byURI, found.bySearch, found.unmatched)
        var report = TUIEditReport(message: "nothing in \(TerminalText.preview(file, limit: 80)) matched; nothing was sent")
        if !uris.isEmpty {
            report = try self.report(try await library.perform(.entries(target, .add(uris: uris, position: nil))))
        }
        report.message += " · matched \(byURI) by URI, \(bySearch) by search, \(unmatched.count) unmatched"
        report.warnings += unmatched.map { "import: row \($0.line) unmatched: \($0.title) — \($0.artist)" }
        return report
    }

    /// What a folder change did, in the status line's words.
    private func folderMessage(_ change: FolderEdit) throws -> String {
        switch change {
        case .create(let name):
            return "Created the folder “\(TerminalText.preview(name, limit: 60))”"
        case .rename(_, let new):
            return "Renamed the folder to “\(TerminalText.preview(new, limit: 60))”"
        case .delete(let name):
            return "Deleted the folder “\(TerminalText.preview(name, limit: 60))”; its playlists stay"
        case .add(let ids, let name, _):
            return "Moved “\(try playlistName(ids.first ?? ""))” into the folder “\(TerminalText.preview(name, limit: 60))”"
        case .remove(let ids, let name):
            return "Took “\(try playlistName(ids.first ?? ""))” out of the folder “\(TerminalText.preview(name, limit: 60))”"
        case .setExpanded:
            return ""
        }
    }

    private func playlistName(_ id: String) throws -> String {
        TerminalText.preview(try context.existingCache()?.playlists().first { $0.id == id }?.name ?? id, limit: 60)
    }
}
