import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet
import TimbreTUI

/// Opens the interactive interface on the cache of `context`, with a background sync when signed in.
enum Interface {
    static func open(_ context: AppContext, vault: CredentialVault? = nil) async throws {
        // Once curses owns the terminal nothing may print under it: warnings go to the interface.
        let inbox = MessageInbox()
        // The first frame must not wait for a whole-file check: the background sync verifies first.
        let cache = try LibraryCache.open(path: context.paths.cache, verify: false, warn: { inbox.post($0) })
        let vault = vault ?? context.vault(warnings: { inbox.post($0) })
        var status = StatusInfo()
        var background: BackgroundSync?
        let signedIn = ((try? await vault.refreshToken()) ?? nil) != nil
        if signedIn, context.config.clientID != nil {
            let session = await vault.loadSession()
            status.user = session?.displayName ?? session?.userID ?? "signed in"
            let executor = context.executor()
            let tokens = try context.tokens(executor: executor, vault: vault)
            let client = AuthorizedClient(executor: executor, tokens: tokens, apiURL: context.config.apiURL)
            let cachePath = context.paths.cache
            background = BackgroundSync(
                run: { progress in
                    let lock = try await SyncLock.acquire(cachePath: cachePath, wait: .seconds(2))
                    defer { lock.release() }
                    guard try cache.integrityCheck() else { throw CacheError.damaged(path: cachePath) }
                    return try await SyncEngine(client: client, cache: cache, options: SyncOptions(), progress: progress).run()
                },
                rateLimitWait: {
                    guard let left = executor.budget.remainingPause else { return nil }
                    return Int(left.components.seconds) + 1
                })
        } else {
            status.hint = signedIn ? "no client_id configured: showing the cache" : "not signed in — run `timbre login` to sync; showing the cache"
        }
        if let last = try? cache.lastSyncedAt() { status.lastSync = ClockText.localDateTime(last) }
        let app = TUIApp(source: CacheLibrarySource(cache: cache), sync: background, status: status, keys: context.config.keys,
                         environment: context.environment, inbox: inbox, stderrLog: context.paths.log)
        try await app.run()
    }
}
