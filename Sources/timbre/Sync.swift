import ArgumentParser
import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary

extension Root {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring the local cache up to date with your Spotify library (headless; for cron and servers).",
            discussion: """
                With no selection: every playlist plus Liked Songs. Only playlists whose snapshot \
                changed are fetched again, unless --force. Exit codes: 0 ok, 3 some playlists failed \
                (the rest are stored), 4 sign-in required, 5 TLS trust failure. Two syncs never run \
                at once: the second waits briefly, then gives up with a message.
                """)

        @Option(name: .customLong("playlist"), help: "Sync only this playlist (ID, spotify:playlist:ID, link, or liked). Repeatable.")
        var playlists: [String] = []

        @Flag(help: "Sync Liked Songs (alone, or with the --playlist selection).")
        var liked = false

        @Flag(help: "Refetch every selected playlist even if its snapshot did not change.")
        var force = false

        @Flag(help: "Print the summary as one JSON object on stdout.")
        var json = false

        @Flag(help: "Print nothing but errors.")
        var quiet = false

        func run() async throws {
            // Every reference is checked before any request is sent.
            var selected: [SpotifyID] = []
            var wantsLiked = liked
            for text in playlists {
                switch try PlaylistRef.parse(text) {
                case .liked: wantsLiked = true
                case .playlist(let id): if !selected.contains(id) { selected.append(id) }
                }
            }
            let context = try AppContext.load()
            let vault = context.vault()
            guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
            let lock = try await SyncLock.acquire(cachePath: context.paths.cache, wait: .seconds(10))
            defer { withExtendedLifetime(lock) {} }
            let cache = try LibraryCache.open(path: context.paths.cache, warn: { Output.warning($0) })
            let executor = context.executor()
            let client = AuthorizedClient(executor: executor, tokens: try context.tokens(executor: executor, vault: vault),
                                          apiURL: context.config.apiURL)
            HeapTrim.keep(upTo: 4 << 20)
            let bar = ProgressBar(enabled: !quiet && !json && isatty(STDERR_FILENO) == 1)
            let engine = SyncEngine(client: client, cache: cache,
                                    options: SyncOptions(playlists: selected, liked: wantsLiked, force: force),
                                    progress: { bar.update($0) })
            // While Spotify holds every request back no progress arrives: say why the bar stands still.
            let watcher = bar.enabled ? Task {
                while !Task.isCancelled {
                    bar.rateLimited(executor.budget.remainingPause.map { Int($0.components.seconds) + 1 })
                    try? await Task.sleep(for: .milliseconds(250))
                }
            } : nil
            let report: SyncReport
            do {
                report = try await engine.run()
            } catch {
                watcher?.cancel()
                await watcher?.value
                bar.finish()
                throw error
            }
            watcher?.cancel()
            await watcher?.value
            bar.finish()
            if json {
                Output.json(report.json)
            } else if !quiet {
                for warning in report.warnings { Output.warning(warning) }
                Output.lines([report.summary])
            }
            if report.exitStatus != .success { throw ExitCode(report.exitStatus.rawValue) }
        }
    }
}

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class ProgressBar: Sendable {
    let enabled: Bool
    private struct Shown {
        var drawn = false
        var last: SyncProgress?
        var waiting: Int?
    }
    private let shown = Locked(Shown())

    init(enabled: Bool) { self.enabled = enabled }

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
        Output.stderr("\r\(bar) \(progress.done)/\(progress.total) \(note)\u{1B}[K")
    }

    func finish() {
        guard enabled, shown.withLock({ $0.drawn }) else { return }
        Output.stderr("\r\u{1B}[K")
    }
}

extension SyncReport {
    /// The human summary line.
    var summary: String {
        var parts = ["\(checked) playlists checked", "\(updated) updated", "\(unchanged) unchanged"]
        if failed > 0 { parts.append("\(failed) failed") }
        if removed > 0 { parts.append("\(removed) removed") }
        let liked = likedUpdated ? "Liked Songs updated (\(likedCount))" : "Liked Songs unchanged (\(likedCount))"
        let seconds = String(format: "%.1f", Double(durationMS) / 1000)
        return "Synced: \(parts.joined(separator: ", ")); \(liked); \(itemsWritten) items written, \(requests) requests, \(seconds) s"
    }
}
