import Foundation
import TimbreCore
import TimbreLibrary

/// The interface's edits: queued one at a time, moves joined, the view kept ahead, quitting asked.
extension TUIApp {
    // MARK: Edits

    /// Queues an edit; the status line shows it until it ends. Without a sign-in nothing is sent.
    func startEdit(_ edit: TUIEdit) {
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
                if case .move(let start, _, let to) = edit.entryChange?.what, start == to {
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
    func stopsEdit(_ event: Terminal.InputEvent) -> Bool {
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
        guard let (playlist, what) = edit.entryChange else { return nil }
        switch what {
        case .move, .removePositions, .removeMixed: return playlist.rawValue
        case .add(_, let position): return position == nil ? nil : playlist.rawValue
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
}
