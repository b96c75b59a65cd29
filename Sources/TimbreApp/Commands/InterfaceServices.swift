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

    init(context: AppContext, makeEditor: @escaping @Sendable (_ progress: @escaping @Sendable (Int, Int) -> Void) async throws -> PlaylistEditor) {
        self.context = context
        self.makeEditor = makeEditor
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
            searchCatalogue: { query in try await self.searchCatalogue(query) },
            statistics: { [context] id in try Self.statistics(id, context: context) })
    }

    static let undoKey = "u", redoKey = "C-r"

    func run(_ edit: TUIEdit, progress: @escaping @Sendable (Int, Int) -> Void,
             choose: @escaping @Sendable (OrderCost) async -> OrderChoice = { _ in .moves }) async throws -> TUIEditReport {
        progressSink.withLock { $0 = progress }
        defer { progressSink.withLock { $0 = nil } }
        switch edit {
        case .folder(let change):
            return try folder(change)
        case .export(let id, let path):
            return try export(id, to: path)
        default:
            break
        }
        let editor = try await sharedEditor()
        let outcome: EditOutcome
        var created: String?
        switch edit {
        case .entries(let id, let what):
            // `:shuffle` and `:sort` ask (y / r / n) before a long order change, as the CLI does.
            outcome = try await editor.apply(EditRequest(playlist: try Self.id(id), what: what, choose: choose))
        case .like(let uris, let save):
            outcome = try await editor.library(uris, save: save, op: save ? "like" : "unlike", dryRun: false)
        case .undo:
            outcome = try await editor.undo()
        case .redo:
            outcome = try await editor.redo()
        case .create(let name):
            guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw UsageError(message: "a playlist name cannot be empty") }
            outcome = try await editor.create(PlaylistDetails(name: name), dryRun: false)
            created = outcome.playlist
        case .rename(let id, let name):
            guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw UsageError(message: "a playlist name cannot be empty") }
            outcome = try await editor.details(of: try Self.id(id), to: PlaylistDetails(name: name), dryRun: false)
        case .delete(let id):
            outcome = try await editor.library(["spotify:playlist:" + (try Self.id(id)).rawValue], save: false, op: "delete", dryRun: false)
        case .importFile(let path, let into):
            return try await importFile(path, into: try Self.id(into), editor: editor)
        case .folder, .export:
            throw UsageError(message: "unreachable")
        }
        return TUIEditReport(message: outcome.summary(undo: Self.undoKey, redo: Self.redoKey), warnings: outcome.warnings, createdPlaylistID: created)
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

    func searchCatalogue(_ query: String) async throws -> [CatalogueHit] {
        try await sharedEditor().catalog.search(query, kind: .track, limit: 30).map {
            CatalogueHit(uri: $0.uri, title: $0.name, artist: $0.artists.joined(separator: ", "), album: $0.album ?? "", durationMS: $0.durationMS ?? 0)
        }
    }

    /// The interface's playlist ids are the cache's (`liked` included), which `PlaylistRef` reads.
    static func statistics(_ id: String, context: AppContext) throws -> [String] {
        try StatsCommand.figures(of: try PlaylistRef.parse(id), context: context).lines
    }

    private func export(_ id: String, to path: String) throws -> TUIEditReport {
        let entries = try context.cachedEntries(of: try PlaylistRef.parse(id)).entries
        let file = (path as NSString).expandingTildeInPath
        try ExportCommand.write(entries, to: file)
        return TUIEditReport(message: "Exported \(entries.count) entries to \(TerminalText.preview(file, limit: 120))")
    }

    private func importFile(_ path: String, into target: SpotifyID, editor: PlaylistEditor) async throws -> TUIEditReport {
        let file = (path as NSString).expandingTildeInPath
        let rows = try ImportCommand.rows(try ImportCommand.text(try ImportCommand.contents(of: file)))
        guard !rows.isEmpty else { throw UsageError(message: "\(TerminalText.preview(file)) holds no rows to import") }
        let (uris, byURI, bySearch, unmatched) = try await ImportCommand.match(rows, catalog: editor.catalog)
        var report = TUIEditReport(message: "nothing in \(TerminalText.preview(file, limit: 80)) matched; nothing was sent")
        if !uris.isEmpty {
            let outcome = try await editor.apply(EditRequest(playlist: target, what: .add(uris: uris, position: nil)))
            report = TUIEditReport(message: outcome.summary(undo: Self.undoKey, redo: Self.redoKey), warnings: outcome.warnings)
        }
        report.message += " · matched \(byURI) by URI, \(bySearch) by search, \(unmatched.count) unmatched"
        report.warnings += unmatched.map { "import: row \($0.line) unmatched: \($0.title) — \($0.artist)" }
        return report
    }

    private func folder(_ change: FolderEdit) throws -> TUIEditReport {
        let folders = try context.userData.open().folders
        switch change {
        case .create(let name):
            try folders.create(name)
            return TUIEditReport(message: "Created the folder “\(TerminalText.preview(name, limit: 60))”")
        case .rename(let name, let new):
            try folders.rename(name, to: new)
            return TUIEditReport(message: "Renamed the folder to “\(TerminalText.preview(new, limit: 60))”")
        case .delete(let name):
            try folders.delete(name)
            return TUIEditReport(message: "Deleted the folder “\(TerminalText.preview(name, limit: 60))”; its playlists stay")
        case .add(let id, let name):
            if try !folders.list().contains(where: { $0.name == name }) { try folders.create(name) }
            try folders.add([id], to: name)
            return TUIEditReport(message: "Moved “\(try playlistName(id))” into the folder “\(TerminalText.preview(name, limit: 60))”")
        case .remove(let id, let name):
            try folders.remove([id], from: name)
            return TUIEditReport(message: "Took “\(try playlistName(id))” out of the folder “\(TerminalText.preview(name, limit: 60))”")
        case .setExpanded(let name, let expanded):
            try folders.setExpanded(name, expanded)
            return TUIEditReport(message: "")
        }
    }

    private func playlistName(_ id: String) throws -> String {
        TerminalText.preview(try context.existingCache()?.playlists().first { $0.id == id }?.name ?? id, limit: 60)
    }

    static func id(_ text: String) throws -> SpotifyID {
        guard let id = SpotifyID(text) else { throw UsageError(message: "“\(TerminalText.preview(text, limit: 40))” is not a playlist id") }
        return id
    }
}
