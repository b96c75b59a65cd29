import CNcursesw
import Dispatch
import Foundation
import TimbreCore
import TimbreLibrary
import TimbreNet

/// How the TUI runs a background sync: the app passes a closure that runs `SyncEngine`.
public struct BackgroundSync: Sendable {
    public var run: @Sendable (@escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport
    /// Seconds new requests still wait after a 429, for the status line.
    public var rateLimitWait: @Sendable () async -> Int?

    public init(
        run: @escaping @Sendable (@escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport,
        rateLimitWait: @escaping @Sendable () async -> Int? = { nil }
    ) {
        self.run = run
        self.rateLimitWait = rateLimitWait
    }
}

/// The interactive program: first frame from the cache, then (if signed in) a background sync that
/// never blocks input. Runs the curses loop on a thread of its own.
public final class TUIApp: @unchecked Sendable {
    private enum Event {
        case progress(SyncProgress)
        case finished(SyncReport)
        case failed(message: String, offline: Bool)
        case rateLimit(Int?)
        case editStarted(String, queued: Int)
        case editProgress(String, done: Int, total: Int)
        case editFinished(TUIEdit, TUIEditReport)
        case editFailed(TUIEdit, message: String)
        case catalogue([CatalogueHit], query: String)
        case catalogueFailed(String)
        /// An edit waits for the answer to an order change's question.
        case orderQuestion(OrderCost, OrderAnswer)
    }

    /// Where the answer to an order change's question goes: the edit waiting for it.
    final class OrderAnswer: @unchecked Sendable {
        private let continuation: Locked<CheckedContinuation<OrderChoice, Never>?>
        init(_ continuation: CheckedContinuation<OrderChoice, Never>) { self.continuation = Locked(continuation) }
        /// The first answer counts; later ones do nothing.
        func resume(_ choice: OrderChoice) {
            continuation.withLock { waiting in
                waiting?.resume(returning: choice)
                waiting = nil
            }
        }
    }

    private let source: any LibrarySource
    private let sync: BackgroundSync?
    private let services: TUIServices?
    /// Edits wait here and run one at a time, in order, off the interface's thread.
    private let edits = EditQueue()
    private let environment: [String: String]
    private let inbox: MessageInbox
    private let stderrLog: String?
    /// Where the views' orders are kept across restarts (nil: not kept).
    private let viewOrdersPath: String?
    private var state = TUIState()
    private let mailbox = Locked<[Event]>([])
    private let stopRequested = Locked(false)
    private var syncTask: Task<Void, Never>?
    private var quitRequested = false
    /// `q` (or Ctrl-C) was pressed with edits still to send: the interface quits once they are
    /// sent, or at once on a second `q`.
    private var quitWhenSent = false
    /// The newest move waiting to be sent, which the next J/K of the same rows joins.
    private var lastMove: PendingMove?
    /// Ctrl-C, asked like `q` (SIGTERM and SIGHUP stop at once).
    private let interrupted = Locked(false)
    /// The edit waiting for the question on screen (y / r / n), if any.
    private var pendingOrder: OrderAnswer?
    /// The pace of the running edit's writes, for the time left; whether it is a rewrite (which Esc cannot stop).
    private var pace = EditPace()
    private var rewriting = false
    /// Set (under the mailbox's lock) once the interface has quit: a question an edit asks after
    /// that is answered "no" at once, so the edit ends and quitting never waits on it.
    private let closing = Locked(false)

    /// `inbox` brings warnings from background work (the keyring, the token manager, the cache)
    /// to the status line and `:messages`; `stderrLog` is where fd 2 points while the interface
    /// owns the terminal (nil leaves fd 2 alone: tests of the loop).
    public init(
        source: any LibrarySource, sync: BackgroundSync?, status: StatusInfo, keys: [String: String],
        services: TUIServices? = nil,
        environment: [String: String],
        inbox: MessageInbox = MessageInbox(), stderrLog: String? = nil, viewOrders: String? = nil
    ) {
        self.viewOrdersPath = viewOrders
        if let viewOrders { state.viewOrders = ViewOrders.load(viewOrders) }
        self.source = source
        self.sync = sync
        self.services = services
        self.environment = environment
        self.inbox = inbox
        self.stderrLog = stderrLog
        state.status = status
        // Every bad `[keys]` entry is a message of its own; the first one is shown at start.
        let problems = state.keymap.apply(keys)
        for problem in problems { state.addMessage(problem) }
        if problems.count > 1 {
            state.setMessage("\(problems.count) mistakes in [keys] of config.toml — M lists them")
        } else if let first = state.messages.last?.text, !problems.isEmpty {
            state.setMessage(first)
        }
    }

    /// The state as the first frame would show it (tests of the start).
    var stateForTests: TUIState { state }

    /// Runs until the user quits (q, Ctrl-C) or SIGTERM; the terminal is restored on every path.
    public func run() async throws {
        let terminal = Terminal()
        try terminal.start(environment: environment, stderrLog: stderrLog)
        let signals = watchSignals()
        defer {
            terminal.restore()
            signals.forEach { $0.cancel() }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread { [self] in
                continuation.resume(with: Result { try loop(terminal) })
            }
            thread.name = "timbre-tui"
            thread.start()
        }
        syncTask?.cancel()
        // An edit waiting for an answer gets "no" (nothing is sent), so it can end.
        pendingOrder?.resume(.cancel)
        let left = mailbox.withLock { events -> [Event] in
            closing.withLock { $0 = true }
            defer { events = [] }
            return events
        }
        for case .orderQuestion(_, let answer) in left { answer.resume(.cancel) }
        // An edit under way is finished, not abandoned (the journal would finish it next time,
        // but a user who quits right after `d` expects it done); the queued ones are dropped.
        await edits.drain()
    }

    private func loop(_ terminal: Terminal) throws {
        reloadPlaylists()
        if let first = state.selectedPlaylist { loadTracks(first.id) }
        paint(terminal)
        if sync != nil { startSync() }
        while !quitRequested && !stopRequested.current {
            // Repaint only when something changed: an idle interface costs no CPU.
            var dirty = drainMailbox()
            let posted = inbox.take()
            for text in posted { state.addMessage(text) }
            dirty = dirty || !posted.isEmpty
            if interrupted.withLock({ flag in
                defer { flag = false }
                return flag
            }) {
                askToQuit()
                dirty = true
            }
            let event = terminal.readEvent()
            if let event, stopsEdit(event) {
                dirty = true
            } else if let event {
                let orders = state.viewOrders
                let effects = state.handle(event)
                if let viewOrdersPath, state.viewOrders != orders, let problem = ViewOrders.save(state.viewOrders, to: viewOrdersPath) {
                    state.addMessage(problem)
                }
                // Any other key: the user goes on, and waiting to quit is over.
                if !effects.contains(where: { if case .quit = $0 { true } else { false } }) { quitWhenSent = false }
                perform(effects, terminal)
                dirty = true
            }
            if quitWhenSent, edits.pending == 0 { quitRequested = true }
            if dirty { paint(terminal) }
        }
    }

    /// How many of the state's messages are in the log already.
    private var loggedMessages = 0

    /// Every message also goes to timbre.log (where fd 2 points while the interface runs).
    private func logMessages() {
        let new = min(state.messagesAdded - loggedMessages, state.messages.count)
        loggedMessages = state.messagesAdded
        for message in state.messages.suffix(max(0, new)) { StderrCapture.log(message.text) }
    }

    /// Draws the state (and first logs the messages it has not logged yet).
    private func paint(_ terminal: Terminal) {
        logMessages()
        let (rows, columns) = terminal.size
        state.pageSize = max(1, rows - 4)
        state.columns = columns
        terminal.draw(Screen.render(state, rows: rows, columns: columns))
    }

    /// Runs what a key asked for beyond the state change, which `TUIState.handle` already made.
    private func perform(_ effects: [TUIState.Effect], _ terminal: Terminal) {
        for effect in effects {
            switch effect {
            case .loadTracks(let playlistID, let position):
                loadTracks(playlistID)
                if let position { state.focusTrack(at: position) }
            case .search(let query): search(query)
            case .startSync: startSync()
            case .redraw: terminal.redrawAll()
            case .quit: askToQuit()
            case .edit(let edit): startEdit(edit)
            case .catalogueSearch(let query): searchCatalogue(query)
            case .loadInfo(let playlistID): loadInfo(playlistID)
            case .loadVersions(let playlistID):
                do { state.showVersions(try source.versions(of: playlistID), of: playlistID) } catch { state.reportError(Self.sentence(for: error)) }
            case .loadVersionChanges(let playlistID, let version):
                do {
                    state.showVersionChanges(try source.versionChanges(of: playlistID, version: version))
                } catch {
                    state.reportError(Self.sentence(for: error))
                }
            case .answerOrder(let choice):
                rewriting = choice == .rewrite
                pendingOrder?.resume(choice)
                pendingOrder = nil
            case .checkAdd(let add): perform(state.resolveAdd(add, existing: cachedURIs(of: add.playlistID)), terminal)
            case .copyToClipboard(let text): terminal.copy(text)
            }
        }
    }

    /// Quits, unless edits are still to send: then says so, and quits when they are sent or on
    /// a second `q` (which drops those not started; the one under way is finished).
    private func askToQuit() {
        let pending = edits.pending
        guard pending > 0, !quitWhenSent else {
            quitRequested = true
            return
        }
        quitWhenSent = true
        state.setMessage("\(pending) edit\(pending == 1 ? "" : "s") still to send — q again to drop \(pending == 1 ? "it" : "them"), or wait")
    }

    // MARK: Edits

    /// Queues an edit; the status line shows it until it ends. Without a sign-in nothing is sent.
    private func startEdit(_ edit: TUIEdit) {
        guard let services else {
            state.setMessage("not signed in: `timbre login` first; nothing was sent")
            return
        }
        // A positional edit asked while one the view cannot show is under way: its positions
        // would name other entries once that one lands.
        if let playlist = Self.positionalPlaylist(edit), state.positionsUnsure(playlist) {
            state.setMessage("an edit under way changes that playlist in a way the view cannot show yet: wait for it, then try again; nothing was sent")
            if let opened = state.openedPlaylistID { loadTracks(opened) }
            return
        }
        state.editStarted(edit)
        // J J J J J: one move by five (the view already shows it).
        if let lastMove, lastMove.join(edit) { return }
        let move = PendingMove.isMove(edit) ? PendingMove(edit) : nil
        lastMove = move
        let (mailbox, closing) = (self.mailbox, self.closing)
        let waiting = edits.enqueue { queued in
            let edit = if let move { await move.settle() } else { edit }
            if move != nil {
                // Moved there and back before it was sent: nothing to send.
                if case .entries(_, .move(let start, _, let to)) = edit, start == to {
                    mailbox.withLock { $0.append(.editFinished(edit, TUIEditReport(message: "the entries are back where they were; nothing was sent"))) }
                    return
                }
            }
            mailbox.withLock { $0.append(.editStarted(edit.label, queued: queued)) }
            do {
                let report = try await services.run(
                    edit,
                    { done, total in
                        mailbox.withLock { $0.append(.editProgress(edit.label, done: done, total: total)) }
                    },
                    { cost in
                        // Short ones need no question (as on the command line).
                        guard cost.needsAsking else { return .moves }
                        return await withCheckedContinuation { continuation in
                            let answer = OrderAnswer(continuation)
                            let asked = mailbox.withLock { events -> Bool in
                                guard !closing.current else { return false }
                                events.append(.orderQuestion(cost, answer))
                                return true
                            }
                            if !asked { answer.resume(.cancel) }
                        }
                    })
                mailbox.withLock { $0.append(.editFinished(edit, report)) }
            } catch {
                var message = Self.sentence(for: error)
                // The view must show Spotify's state: re-read the playlist the edit was about.
                if let id = edit.playlistID {
                    if let problem = await services.reread(id) {
                        message += " (and re-reading it failed: \(problem))"
                    } else if error is EditConflict {
                        message += " — the list now shows what Spotify holds; look, then try again"
                    }
                }
                mailbox.withLock { $0.append(.editFailed(edit, message: message)) }
            }
        }
        state.status.editsQueued = waiting
        if state.status.editProgress == nil { state.status.editProgress = edit.label }
    }

    /// Esc while a shuffle or sort runs (nothing open or marked to take it first): range moves stop
    /// after the write under way, leaving every entry there with its date and an undo step; a
    /// rewrite finishes.
    private func stopsEdit(_ event: Terminal.InputEvent) -> Bool {
        guard let services, case .key(let key) = event, key.name == "Esc", state.mode == .normal, state.effectiveMarks.isEmpty else { return false }
        if rewriting, !services.stop.isStoppable {
            state.setMessage("a rewrite cannot stop part-way: it finishes")
            return true
        }
        guard services.stop.request() == .stopping else { return false }
        state.status.editStopKey = nil
        state.setMessage("stopping after the move under way…")
        return true
    }

    /// The playlist whose positions an edit names (moves, positional removals, pastes at a place).
    static func positionalPlaylist(_ edit: TUIEdit) -> String? {
        guard case .entries(let playlist, let change) = edit else { return nil }
        switch change {
        case .move, .removePositions, .removeMixed: return playlist
        case .add(_, let position): return position == nil ? nil : playlist
        default: return nil
        }
    }

    /// An edit's error as one line: its sentence and hint — but a conflict's hint is the CLI's
    /// (sync, --force); here the list is re-read instead.
    static func sentence(for error: any Error) -> String {
        guard let error = error as? any UserFacingError else { return "\(error)" }
        if error is EditConflict { return error.message }
        return error.message + (error.hint.map { " — \($0)" } ?? "")
    }

    private func searchCatalogue(_ query: String) {
        guard let services else {
            state.setMessage("not signed in: `timbre login` to search Spotify")
            return
        }
        state.setMessage("searching Spotify for “\(TerminalText.preview(query, limit: 40))”…")
        let mailbox = self.mailbox
        Task.detached {
            do {
                let hits = try await services.searchCatalogue(query)
                mailbox.withLock { $0.append(.catalogue(hits, query: query)) }
            } catch {
                mailbox.withLock { $0.append(.catalogueFailed((error as? any UserFacingError)?.message ?? "\(error)")) }
            }
        }
    }

    private func loadInfo(_ playlistID: String) {
        guard let services else { return }
        do {
            state.showInfo(try services.statistics(playlistID), of: playlistID)
        } catch {
            state.reportError((error as? any UserFacingError)?.message ?? "\(error)")
        }
    }

    private func reloadPlaylists() {
        do {
            state.setPlaylists(try source.playlists(), folders: try source.folders())
        } catch {
            state.status.lastError = TerminalText.preview("\(error)", limit: 80)
            state.addMessage("\(error)")
        }
    }

    /// The tracks a playlist holds, as the cache has them (none when it cannot be read: said in `M`).
    private func cachedURIs(of playlistID: String) -> Set<String> {
        do {
            return Set(try source.tracks(of: playlistID).map(\.uri))
        } catch {
            state.addMessage("could not read “\(playlistID)” from the cache to look for duplicates: \(error)")
            return []
        }
    }

    private func loadTracks(_ playlistID: String) {
        do {
            state.setTracks(try source.tracks(of: playlistID), of: playlistID)
        } catch {
            state.status.lastError = TerminalText.preview("\(error)", limit: 80)
            state.addMessage("\(error)")
        }
    }

    /// `F`: every cached playlist, searched in the cache (nothing is loaded into memory for it).
    private func search(_ query: String) {
        do {
            state.showSearchResults(try source.search(query, limit: Self.searchLimit), query: query, limit: Self.searchLimit)
        } catch {
            state.status.lastError = TerminalText.preview("\(error)", limit: 80)
            state.addMessage("\(error)")
        }
    }

    static let searchLimit = 1000

    // MARK: Background sync

    private func startSync() {
        guard let sync, syncTask == nil else { return }
        state.status.syncProgress = "…"
        state.status.lastError = nil
        let mailbox = self.mailbox
        syncTask = Task.detached {
            let watcher = Task.detached {
                while !Task.isCancelled {
                    let wait = await sync.rateLimitWait()
                    mailbox.withLock { $0.append(.rateLimit(wait)) }
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
            defer { watcher.cancel() }
            do {
                let report = try await sync.run { progress in mailbox.withLock { $0.append(.progress(progress)) } }
                mailbox.withLock { $0.append(.finished(report)) }
            } catch {
                let message = (error as? any UserFacingError)?.message ?? "\(error)"
                var offline = false
                if case .connection? = error as? TransportError { offline = true }
                mailbox.withLock { $0.append(.failed(message: message, offline: offline)) }
            }
        }
    }

    /// Applies what the background sync reported; true when anything arrived.
    private func drainMailbox() -> Bool {
        let events = mailbox.withLock { events -> [Event] in
            let taken = events
            events = []
            return taken
        }
        for event in events {
            switch event {
            case .progress(let progress):
                state.status.syncProgress = "\(progress.done)/\(progress.total)"
            case .rateLimit(let wait):
                state.status.rateLimitWait = wait
            case .finished(let report):
                syncTask = nil
                state.status.syncProgress = nil
                state.status.rateLimitWait = nil
                state.status.offline = false
                state.status.lastSync = Self.clock()
                if report.failed > 0 {
                    state.status.lastError = "\(report.failed) playlist(s) failed to sync"
                    state.addMessage("\(report.failed) playlist(s) failed to sync")
                }
                for warning in report.warnings { state.addMessage(warning) }
                reloadPlaylists()
                // A sync that changed no items leaves the open list as it is (no second copy of a
                // 10,000-row list while the first is still shown).
                if report.updated > 0 || report.likedUpdated || report.removed > 0, let opened = state.openedPlaylistID {
                    loadTracks(opened)
                }
            case .editStarted(let label, let queued):
                pace.reset()
                state.status.editProgress = label
                state.status.editsQueued = queued
            case .editProgress(let label, let done, let total):
                // Only worth a number when there are several writes.
                guard total > 1 else { break }
                state.status.editProgress = "\(label): \(done)/\(total) writes" + (pace.left(done: done, total: total).map { ", \($0)" } ?? "")
                let stoppable = services?.stop.isStoppable == true && services?.stop.isRequested == false
                state.status.editStopKey = stoppable && done < total ? "Esc" : nil
            case .editFinished(let edit, let report):
                (state.status.editProgress, state.status.editStopKey, rewriting) = (nil, nil, false)
                state.setMessage(TerminalText.preview(report.message, limit: 300))
                for warning in report.warnings { state.addMessage(warning) }
                // More edits to come: the view stays ahead (re-read when the last one ends).
                state.editEnded(edit)
                if edits.waiting > 0 || lastMove?.isOpen == true { reloadPlaylists() } else { afterEdit(edit) }
                if let id = report.createdPlaylistID { state.selectPlaylist(id: id) }
                if let ask = report.ask { state.ask(ask.question, [.edit(ask.edit)]) }
            case .editFailed(let edit, var message):
                (state.status.editProgress, state.status.editStopKey, rewriting) = (nil, nil, false)
                // The edits queued after it were planned on the list it would have left: none is
                // sent (their positions would name other entries now).
                lastMove = nil
                let dropped = edits.dropWaiting()
                if dropped > 0 {
                    message += " — \(dropped) edit\(dropped == 1 ? "" : "s") queued after it dropped (nothing of \(dropped == 1 ? "it" : "them") was sent)"
                }
                state.status.editsQueued = 0
                state.editEnded(edit, all: true)
                state.reportError(message)
                afterEdit(edit)
            case .catalogue(let hits, let query):
                state.showCatalogueResults(hits, query: query)
            case .orderQuestion(let cost, let answer):
                // One question at a time: edits run one by one, so no other is waiting.
                pendingOrder?.resume(.cancel)
                pendingOrder = answer
                state.askOrder(cost)
            case .catalogueFailed(let message):
                state.reportError("catalogue search failed: " + message)
            case .failed(let message, let offline):
                syncTask = nil
                state.status.syncProgress = nil
                state.status.offline = offline
                state.status.lastError = TerminalText.preview(message, limit: 100)
                state.addMessage("sync failed: " + message)
                if offline { state.status.hint = "showing the cache; U retries" }
            }
        }
        return !events.isEmpty
    }

    /// After an edit, done or failed, the view is read again from the cache it wrote through.
    private func afterEdit(_ edit: TUIEdit) {
        reloadPlaylists()
        if let opened = state.openedPlaylistID {
            if case .delete(let id) = edit, id == opened { return }
            loadTracks(opened)
        }
    }

    private static func clock() -> String { ClockText.localTime(Date()) }

    /// Ctrl-C asks like `q` (edits still to send are not dropped without a word); SIGTERM and
    /// SIGHUP end the loop at once. The terminal is restored by `run`.
    private func watchSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [stopRequested, interrupted] in
                if number == SIGINT { interrupted.withLock { $0 = true } } else { stopRequested.withLock { $0 = true } }
            }
            source.resume()
            return source
        }
    }
}
