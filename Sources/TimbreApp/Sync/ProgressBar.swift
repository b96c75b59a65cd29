import TimbreCore
import TimbreLibrary
import TimbreNet

/// A one-line progress bar on stderr, only when a person watches stderr.
final class ProgressBar: Sendable {
    let enabled: Bool
    private let console: Console
    private struct Shown {
        var drawn = false
        var last: SyncProgress?
        var waiting: Int?
    }
    private let shown = Locked(Shown())

    init(console: Console, enabled: Bool) {
        self.console = console
        self.enabled = enabled
    }

    /// Runs `work` with the bar following its progress; while Spotify holds every request back no
    /// progress arrives, so the bar says why it stands still. The bar is gone when this returns.
    /// `remainingPause`: how long the rate limit still holds every request back (nil: not limited).
    func showing<T: Sendable>(
        rateLimits remainingPause: @escaping @Sendable () -> Duration?,
        _ work: (@escaping @Sendable (SyncProgress) -> Void) async throws -> T
    ) async throws -> T {
        let watcher =
            enabled
            ? Task {
                while !Task.isCancelled {
                    self.rateLimited(remainingPause().map { Int($0.components.seconds) + 1 })
                    try? await Task.sleep(for: .milliseconds(250))
                }
            } : nil
        let result = await Result(catching: { try await work { self.update($0) } })
        watcher?.cancel()
        await watcher?.value
        finish()
        return try result.get()
    }

    func update(_ progress: SyncProgress) {
        guard enabled else { return }
        let waiting = shown.withLock { shown -> Int? in
            shown.last = progress
            shown.drawn = true
            return shown.waiting
        }
        draw(progress, waiting: waiting)
    }

    /// Seconds Spotify's rate limit still holds every request back (nil: not limited).
    func rateLimited(_ seconds: Int?) {
        guard enabled else { return }
        let last = shown.withLock { shown -> SyncProgress?? in
            guard shown.waiting != seconds else { return .none }
            shown.waiting = seconds
            shown.drawn = true
            return .some(shown.last)
        }
        guard case .some(let progress) = last else { return }
        draw(progress ?? SyncProgress(phase: .listing, description: "", done: 0, total: 0), waiting: seconds)
    }

    private func draw(_ progress: SyncProgress, waiting: Int?) {
        let width = 30
        let filled = progress.total > 0 ? min(width, width * progress.done / progress.total) : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let note = waiting.map { "rate-limited by Spotify, waiting \($0) s" } ?? TerminalText.preview(progress.description, limit: 40)
        console.writeError("\r\(bar) \(progress.done)/\(progress.total) \(note)\u{1B}[K")
    }

    func finish() {
        guard enabled, shown.withLock({ $0.drawn }) else { return }
        console.writeError("\r\u{1B}[K")
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
