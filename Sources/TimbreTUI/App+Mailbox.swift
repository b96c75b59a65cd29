import Foundation
import TimbreCore
import TimbreLibrary

/// What background work (the sync, edits, catalogue searches) reports, applied on the interface's thread.
extension TUIApp {
    /// Applies what the background sync reported; true when anything arrived.
    func drainMailbox() -> Bool {
        let events = mailbox.withLock { events -> [Event] in
            let taken = events
            events = []
            return taken
        }
        for event in events where !apply(editEvent: event) && !apply(playerEvent: event) {
            apply(otherEvent: event)
        }
        return !events.isEmpty
    }

    /// An edit's event (started, progress, finished, failed, its order question); false for the others.
    func apply(editEvent event: Event) -> Bool {
        switch event {
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
        case .orderQuestion(let cost, let answer):
            // One question at a time: edits run one by one, so no other is waiting.
            pendingOrder?.resume(.cancel)
            pendingOrder = answer
            state.askOrder(cost)
        default: return false
        }
        return true
    }

    /// The sync's and the catalogue's events.
    func apply(otherEvent event: Event) {
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
        case .catalog(let hits, let query):
            state.showCatalogResults(hits, query: query)
        case .catalogFailed(let message):
            state.reportError("catalogue search failed: " + message)
        case .failed(let message, let offline):
            syncTask = nil
            state.status.syncProgress = nil
            state.status.offline = offline
            state.status.lastError = TerminalText.preview(message, limit: 100)
            state.addMessage("sync failed: " + message)
            if offline { state.status.hint = "showing the cache; U retries" }
        default: break
        }
    }

    /// After an edit, done or failed, the view is read again from the cache it wrote through.
    func afterEdit(_ edit: TUIEdit) {
        reloadPlaylists()
        if let opened = state.openedPlaylistID {
            if case .change(.delete(let ids)) = edit, ids.contains(where: { $0.rawValue == opened }) { return }
            loadTracks(opened)
        }
    }
}
