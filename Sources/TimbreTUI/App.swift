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
    enum Event {
        case progress(SyncProgress)
        case finished(SyncReport)
        case failed(message: String, offline: Bool)
        case rateLimit(Int?)
        case editStarted(String, queued: Int)
        case editProgress(String, done: Int, total: Int)
        case editFinished(TUIEdit, TUIEditReport)
        case editFailed(TUIEdit, message: String)
        case catalog([CatalogHit], query: String)
        case catalogFailed(String)
        /// An edit waits for the answer to an order change's question.
        case orderQuestion(OrderCost, OrderAnswer)
        /// The player was read (App+Player.swift), at that instant of the local clock.
        case playerState(NowPlaying?, at: ContinuousClock.Instant)
        case playerReadFailed(String)
        /// A rate-limit pause or quota wait in force: nothing was sent.
        case playerWait(PlayerWait, at: ContinuousClock.Instant, read: Bool)
        /// A player command was answered (nil) or failed.
        case playerAnswered(PlayerRequest, PlayerFailure?)
        case playerDevices([PlayerDevice], then: PlayerRequest?)
        case playerDevicesFailed(String)
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

    let source: any LibrarySource
    let sync: BackgroundSync?
    let services: TUIServices?
    /// Edits wait here and run one at a time, in order, off the interface's thread.
    let edits = EditQueue()
    let environment: [String: String]
    let inbox: MessageInbox
    let stderrLog: String?
    /// Where the views' orders are kept across restarts (nil: not kept).
    let viewOrdersPath: String?
    var state = TUIState()
    let mailbox = Locked<[Event]>([])
    let stopRequested = Locked(false)
    var syncTask: Task<Void, Never>?
    var quitRequested = false
    /// `q` (or Ctrl-C) was pressed with edits still to send: the interface quits once they are
    /// sent, or at once on a second `q`.
    var quitWhenSent = false
    /// A playlist shown by its first rows whose other rows are read after the next paint.
    var restOfTracks: String?
    /// The newest move waiting to be sent, which the next J/K of the same rows joins.
    var lastMove: PendingMove?
    /// Ctrl-C, asked like `q` (SIGTERM and SIGHUP stop at once).
    let interrupted = Locked(false)
    /// The edit waiting for the question on screen (y / r / n), if any.
    var pendingOrder: OrderAnswer?
    /// The pace of the running edit's writes, for the time left; whether it is a rewrite (which Esc cannot stop).
    var pace = EditPace()
    var rewriting = false
    /// Set (under the mailbox's lock) once the interface has quit: a question an edit asks after
    /// that is answered "no" at once, so the edit ends and quitting never waits on it.
    let closing = Locked(false)
    /// When the player is read (few requests: Player/PlayerPoll.swift).
    var poll: PlayerPoll
    /// Player commands run one at a time, in order; the newest volume or seek waiting to be sent,
    /// which the next one replaces (held keys: one request).
    let playerCommands = EditQueue()
    var lastPlayerRequest: PendingPlayerRequest?
    /// The now-playing line last painted (a new second of progress repaints).
    var paintedPlayerLine: String?
    /// The last read's failure, said once (not every poll).
    var lastPlayerProblem: String?
    /// `c` waits for the read under way (it was pressed while the last read said nothing plays).
    var playPauseWhenRead = false

    /// `inbox` brings warnings from background work (the keyring, the token manager, the cache)
    /// to the status line and `:messages`; `stderrLog` is where fd 2 points while the interface
    /// owns the terminal (nil leaves fd 2 alone: tests of the loop); `greeting` is the first
    /// screen's message (the demo's), a message and not a warning.
    public init(
        source: any LibrarySource, sync: BackgroundSync?, status: StatusInfo, keys: [String: String],
        services: TUIServices? = nil,
        environment: [String: String],
        inbox: MessageInbox = MessageInbox(), stderrLog: String? = nil, viewOrders: String? = nil, greeting: String? = nil,
        playerPoll: Int = 30
    ) {
        poll = PlayerPoll(seconds: playerPoll)
        state.enablePlayer(services?.player != nil)
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
        } else if let greeting {
            state.setMessage(greeting)
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

    func loop(_ terminal: Terminal) throws {
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
            state.setClock(.now)
            pollPlayer()
            if playerLineChanged() { dirty = true }
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
            if loadRestOfTracks() { paint(terminal) }
        }
    }

    /// How many of the state's messages are in the log already.
    var loggedMessages = 0

    /// Every message also goes to timbre.log (where fd 2 points while the interface runs).
    func logMessages() {
        let new = min(state.messagesAdded - loggedMessages, state.messages.count)
        loggedMessages = state.messagesAdded
        for message in state.messages.suffix(max(0, new)) { StderrCapture.log(message.text) }
    }

    /// Draws the state (and first logs the messages it has not logged yet).
    func paint(_ terminal: Terminal) {
        logMessages()
        let (rows, columns) = terminal.size
        state.pageSize = max(1, rows - 4 - (state.player.enabled ? 1 : 0))
        state.columns = columns
        paintedPlayerLine = Screen.nowPlayingLine(state, width: columns)?.text
        terminal.draw(Screen.render(state, rows: rows, columns: columns))
    }

    /// Runs what a key asked for beyond the state change, which `TUIState.handle` already made.
    func perform(_ effects: [TUIState.Effect], _ terminal: Terminal) {
        for effect in effects {
            switch effect {
            case .loadTracks(let playlistID, let position):
                if let position {
                    loadTracks(playlistID)
                    state.focusTrack(at: position)
                } else {
                    openTracks(playlistID)
                }
            case .search(let query): search(query)
            case .startSync: startSync()
            case .redraw: terminal.redrawAll()
            case .quit: askToQuit()
            case .edit(let edit): startEdit(edit)
            case .catalogSearch(let query): searchCatalog(query)
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
            case .player(let request): sendPlayer(request)
            case .pickDevice(let request): loadDevices(then: request)
            case .playPauseAfterRead: playPauseAfterRead()
            case .openPlaying(let playlistID, let uri):
                loadTracks(playlistID)
                state.focusTrack(uri: uri)
            }
        }
    }

    /// Quits, unless edits are still to send: then says so, and quits when they are sent or on
    /// a second `q` (which drops those not started; the one under way is finished).
    func askToQuit() {
        let pending = edits.pending
        guard pending > 0, !quitWhenSent else {
            quitRequested = true
            return
        }
        quitWhenSent = true
        state.setMessage("\(pending) edit\(pending == 1 ? "" : "s") still to send — q again to drop \(pending == 1 ? "it" : "them"), or wait")
    }

    func searchCatalog(_ query: String) {
        guard let services else {
            state.setMessage("not signed in: `timbre login` to search Spotify")
            return
        }
        state.setMessage("searching Spotify for “\(TerminalText.preview(query, limit: 40))”…")
        let mailbox = self.mailbox
        Task.detached {
            do {
                let hits = try await services.searchCatalog(query)
                mailbox.withLock { $0.append(.catalog(hits, query: query)) }
            } catch {
                mailbox.withLock { $0.append(.catalogFailed((error as? any UserFacingError)?.message ?? "\(error)")) }
            }
        }
    }

    func loadInfo(_ playlistID: String) {
        guard let services else { return }
        do {
            state.showInfo(try services.statistics(playlistID), of: playlistID)
        } catch {
            state.reportError((error as? any UserFacingError)?.message ?? "\(error)")
        }
    }

    func reloadPlaylists() {
        do {
            state.setPlaylists(try source.playlists(), folders: try source.folders())
        } catch {
            state.status.lastError = TerminalText.preview("\(error)", limit: 80)
            state.addMessage("\(error)")
        }
    }

    /// The tracks a playlist holds, as the cache has them (none when it cannot be read: said in `M`).
    func cachedURIs(of playlistID: String) -> Set<String> {
        do {
            return Set(try source.tracks(of: playlistID).map(\.uri))
        } catch {
            state.addMessage("could not read “\(playlistID)” from the cache to look for duplicates: \(error)")
            return []
        }
    }

    /// Rows a long playlist shows at once when it opens: more than a screen holds.
    static let firstRows = 300

    /// Opens a playlist as a key asks: a long one (another than the open one, in its own order,
    /// unfiltered) shows its first rows in the frame that answers the key, and the rest are read
    /// once it is painted (`loadRestOfTracks`), before the next key is read — so no key ever acts
    /// on part of a list.
    func openTracks(_ playlistID: String) {
        let remembered = state.viewOrders[playlistID]
        guard state.openedPlaylistID != playlistID, state.trackFilter.isEmpty, state.entryFilter.isEmpty,
            (remembered?.field ?? .position) == .position, (remembered?.order ?? .asc) == .asc
        else { return loadTracks(playlistID) }
        do {
            let head = try source.tracks(of: playlistID, first: Self.firstRows)
            state.setTracks(head.rows, of: playlistID, total: head.total)
            if state.tracksToCome != nil { restOfTracks = playlistID }
        } catch {
            loadTracks(playlistID)
        }
    }

    /// After the frame of `openTracks`: the whole list.
    func loadRestOfTracks() -> Bool {
        guard let playlistID = restOfTracks else { return false }
        restOfTracks = nil
        if state.openedPlaylistID == playlistID { loadTracks(playlistID) }
        return true
    }

    func loadTracks(_ playlistID: String) {
        do {
            state.setTracks(try source.tracks(of: playlistID), of: playlistID)
        } catch {
            state.status.lastError = TerminalText.preview("\(error)", limit: 80)
            state.addMessage("\(error)")
        }
    }

    /// `F`: every cached playlist, searched in the cache (nothing is loaded into memory for it).
    func search(_ query: String) {
        do {
            state.showSearchResults(try source.search(query, limit: Self.searchLimit), query: query, limit: Self.searchLimit)
        } catch {
            state.status.lastError = TerminalText.preview("\(error)", limit: 80)
            state.addMessage("\(error)")
        }
    }

    static let searchLimit = 1000

    // MARK: Background sync

    func startSync() {
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

    static func clock() -> String { ClockText.localTime(Date()) }

    /// Ctrl-C asks like `q` (edits still to send are not dropped without a word); SIGTERM and
    /// SIGHUP end the loop at once. The terminal is restored by `run`.
    func watchSignals() -> [any DispatchSourceSignal] {
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
