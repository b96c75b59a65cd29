import Foundation
import Logging
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreMPRIS
import TimbreTUI

/// `timbre` with no command: the interactive interface on the cache, with a background sync when
/// signed in.
public struct InterfaceCommand: Sendable {
    public init() {}

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        // The interface needs a terminal on both ends; otherwise this is a usage error.
        guard invocation.console.stdinIsTTY, invocation.console.stdoutIsTTY else {
            throw UsageError(
                message: "the interface needs a terminal on stdin and stdout",
                hint: "run `timbre` in a terminal, or use one of the commands above", showsHelp: true)
        }
        try await open(try invocation.context())
        return .success
    }

    /// Opens the interface on `context`'s cache; `vault` overrides the profile's (the demo's
    /// vault, signed in already); `greeting` is the first screen's message.
    func open(_ context: AppContext, vault: CredentialVault? = nil, greeting: String? = nil) async throws {
        // Once curses owns the terminal nothing may print under it: warnings go to the interface.
        let inbox = MessageInbox()
        // The first frame must not wait for a whole-file check: the background sync verifies first.
        let cache = try LibraryCache.open(path: context.paths.cache, verify: false, warn: { inbox.post($0) })
        let vault = vault ?? context.vault(warnings: { inbox.post($0) })
        var status = StatusInfo()
        var background: BackgroundSync?
        let signedIn = ((try? await vault.refreshToken()) ?? nil) != nil
        // Who is signed in: the status line's name, and whose playlists the interface may edit.
        let session = signedIn ? await vault.loadSession() : nil
        if signedIn, context.config.clientID != nil {
            status.user = session?.displayName ?? session?.userID ?? "signed in"
            let sync = context.librarySync(api: try context.spotify(vault: vault, whileWaiting: true), warnings: { inbox.post($0) })
            background = BackgroundSync(
                run: { progress in try await sync.run(cache: cache, lockWait: .seconds(2), progress: progress) },
                rateLimitWait: {
                    guard let left = sync.pacing.remainingPause() else { return nil }
                    return Int(left.components.seconds) + 1
                })
        } else {
            status.hint = signedIn ? "no client_id configured: showing the cache" : "not signed in — run `timbre login` to sync; showing the cache"
        }
        if let last = try? cache.lastSyncedAt() { status.lastSync = ClockText.localDateTime(last) }
        // Edits go through the CLI's editor, journal and folders; warnings to the interface.
        let toInbox = InboxOutput(inbox: inbox)
        let quietConsole = Console(
            input: BufferInput(""), output: toInbox, errors: toInbox, stdinIsTTY: false, stdoutIsTTY: false,
            stderrIsTTY: false, environment: context.environment)
        // One cache and one user data for the whole interface: the editor gets the cache read
        // here (no second pool, no whole-file check on the first edit), the folder list, folder
        // edits and the journal share one queue.
        let quiet = AppContext(
            invocation: Invocation(console: quietConsole, environment: context.environment, services: context.invocation.services),
            paths: context.paths,
            config: context.config, userData: context.userData)
        // Spotify's player, once signed in (the playback keys say so otherwise), and the MPRIS
        // bridge over it while the interface runs: media keys and `playerctl -p timbre` drive it,
        // told each read the interface makes (no reads of its own). No session bus: no bridge.
        var player: SharedPlayer?
        var bridge: MPRISBridge?
        // The bridge's commands, once answered, bring one read of the interface's (as its own
        // keys do): the now-playing line and the bridge's Metadata follow a media key at once.
        let elsewhere = PlayerCommandsElsewhere()
        let loop = MPRISLoopState(poll: PlayerPoll(seconds: context.config.playerPoll))
        if signedIn, context.config.clientID != nil {
            let shared = SharedPlayer { try await quiet.player(needs: PKCE.playbackScopes, vault: vault) }
            player = shared
            let made = MPRISBridge(player: MPRISControl(shared: shared, loop: loop, answered: { elsewhere.commandAnswered() }))
            do {
                let name = try await made.start()
                bridge = made
                Logger(label: "timbre.mpris").info("the interface owns \(name)")
            } catch {
                Logger(label: "timbre.mpris").info("no MPRIS bridge: \((error as? any UserFacingError)?.message ?? "\(error)")")
            }
        }
        let told = bridge
        let services = InterfaceServices(
            context: quiet, makeEditor: { progress in try await quiet.editor(vault: vault, cache: cache, progress: progress) },
            player: player,
            observePlayer: { state, at in
                // PlayPause toggles by what the interface read last.
                loop.observed(InterfacePlayer.nowPlaying(state, at: at))
                told?.update(MPRISCommand.mprisState(state, at: at))
            }, playerCommandsElsewhere: elsewhere
        )
        .services()
        let app = TUIApp(
            source: CacheLibrarySource(cache: cache, userID: session?.userID, userData: context.userData), sync: background, status: status,
            keys: context.config.keys, services: services,
            environment: context.environment, inbox: inbox, stderrLog: context.paths.log, viewOrders: context.paths.viewOrders,
            greeting: greeting, playerPoll: context.config.playerPoll)
        do {
            try await app.run()
        } catch {
            await bridge?.stop()
            throw error
        }
        await bridge?.stop()
    }
}

/// What the editor's layers would print, while curses owns the terminal: to the message list.
private struct InboxOutput: ConsoleOutput {
    let inbox: MessageInbox

    func write(_ text: String) {
        for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            inbox.post(line.hasPrefix(Console.warningPrefix) ? String(line.dropFirst(Console.warningPrefix.count)) : String(line))
        }
    }
}
