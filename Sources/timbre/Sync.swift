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
            let report = try await engine.run()
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
    private let enabled: Bool
    private let drawn = Locked(false)

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: SyncProgress) {
        guard enabled else { return }
        let width = 30
        let filled = progress.total > 0 ? min(width, width * progress.done / progress.total) : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(bar) \(progress.done)/\(progress.total) \(TerminalText.preview(progress.description, limit: 40))\u{1B}[K"
        drawn.withLock { $0 = true }
        Output.stderr(line)
    }

    func finish() {
        guard enabled, drawn.current else { return }
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
