import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary

/// `timbre backup [-o FILE] [--force]`: the whole library in one versioned JSON file
/// (docs/BACKUP.md), written from the cache right after the same sync `timbre sync` runs, the
/// local folders and the owned playlists' descriptions.
public struct BackupCommand: Sendable {
    public var output: String?
    public var force: Bool

    public init(output: String?, force: Bool) {
        self.output = output
        self.force = force
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let now = Date()
        let path = output ?? Backup.defaultFileName(at: now)
        let toStdout = path == "-"
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        // Before any request: a file that is there already stays unless --force (an empty one, as
        // `mktemp` makes, holds nothing to lose).
        if !toStdout, !force, FileManager.default.fileExists(atPath: full), Self.size(of: full) != 0 {
            throw UsageError(message: "\(TerminalText.preview(path)) exists already; nothing was written", hint: "give --force to replace it, or -o FILE")
        }
        let context = try invocation.context()
        let console = context.console
        let vault = context.vault()
        guard try await vault.refreshToken() != nil else { throw AuthError.notSignedIn }
        let api = try context.spotify(vault: vault)
        console.say(Self.costLine(known: try? context.existingCache()?.playlists().filter { !$0.isLiked }.count))
        let report = try await context.syncForBackup(api: api)
        guard let cache = try context.existingCache() else { throw UsageError(message: "the cache is empty: nothing to back up") }
        let me = try await api.me()
        let account = Backup.Account(id: me.id, name: me.displayName)
        let descriptions = try await Backup.descriptions(of: cache, owner: me.id, api: api)
        let folders = try context.userData.existing()?.folders.list() ?? []
        let backup = try Backup.make(cache: cache, folders: folders, account: account, descriptions: descriptions, createdAt: now)
        if toStdout {
            console.write(String(decoding: backup.data, as: UTF8.self))
        } else {
            try PrivateFile.write(backup.data, to: full)
        }
        let where_ = toStdout ? "stdout" : TerminalText.sanitize(path)
        console.say(
            "Backed up \(backup.playlists.count) playlists (\(OrderCost.grouped(backup.entryCount)) entries), \(backup.followed.count) followed, "
                + "\(OrderCost.grouped(backup.liked.count)) liked songs and \(backup.folders.count) folders to \(where_)")
        if report.exitStatus == .partial {
            console.warning("some playlists could not be synced; their entries in the backup are as last synced — `timbre sync` says which")
            return .partial
        }
        return .success
    }

    /// Said before the first request: a no-change sync (the listing, Liked Songs' first page),
    /// `GET /me` and the listing again for the descriptions; playlists changed since the last sync
    /// are read on top. `known`: the playlists the cache lists (nil: no cache, a first sync).
    static func costLine(known: Int?) -> String {
        guard let known, known > 0 else {
            return "Backup: the library is synced first (no cache yet: about one request per 50 entries, of the day's quota)"
        }
        let listing = EntryPages.count(known)
        return RequestCost.line("Backup", requests: listing + 1 + 1 + listing) + "; more for playlists changed since the last sync"
    }

    /// The file's size; nil when it cannot be told (then it counts as holding something).
    static func size(of path: String) -> Int? {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size]
        return (size as? NSNumber)?.intValue ?? (size as? UInt64).map { Int(clamping: $0) } ?? (size as? Int)
    }
}

/// `timbre restore FILE [--dry-run] [--json]`: a backup into the signed-in account, journaled and
/// resumable (`RestorePlan`, `BackupRestore`, `RestoreJournal`); what is there already is skipped.
public struct RestoreCommand: Sendable {
    public var file: String
    public var dryRun: Bool
    public var json: Bool

    public init(file: String, dryRun: Bool, json: Bool) {
        self.file = file
        self.dryRun = dryRun
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        // The whole file is checked before anything is read from Spotify or sent.
        let backup = try Backup.read(path: file)
        let context = try invocation.context()
        let console = context.console
        let editor = try await context.editor()
        // Every request of the command is counted: the syncs before and after too.
        let start = RequestCost.sent(editor)
        let report = try await context.syncForBackup(api: editor.webAPI, cache: editor.libraryCache)
        for warning in report.warnings { console.warning(warning) }
        let me = try await BackupRestore.account(editor: editor)
        let userData = try context.userData.open()
        let plan = try RestorePlan.make(
            backup: backup, cache: editor.libraryCache, journal: try userData.restoreJournal.rows(account: me.id), account: me.id)
        // What the command will have sent: its reads so far, the restore, the sync after it.
        let total = RequestCost.sent(editor) - start + plan.requests + RestoreReport.syncAfter(plan, cache: editor.libraryCache)
        if dryRun {
            RestoreReport.showPlan(plan, backup: backup, requests: total, json: json, console: console)
            return .success
        }
        if !plan.isEmpty { console.say(RequestCost.line("Restore of the backup", requests: total)) }
        let sentBefore = editor.webAPI.pacing.requestsSent()
        let bar = ProgressBar(console: console, enabled: !json && console.showsProgress)
        let lock = try await SyncLock.acquire(cachePath: context.paths.cache, wait: .seconds(10))
        let restore = BackupRestore(editor: editor, userData: userData) { done, total in
            bar.update(SyncProgress(phase: .items, description: "restoring", done: done, total: total))
        }
        let result = await Result { try await restore.run(plan) }
        lock.release()
        bar.finish()
        let outcome: BackupRestore.Outcome
        do { outcome = try result.get() } catch { throw RestoreInterrupted(error) }
        let requests = editor.webAPI.pacing.requestsSent() - sentBefore
        if !plan.isEmpty {
            // The cache learns what the restore made.
            let after = try await context.syncForBackup(api: editor.webAPI, cache: editor.libraryCache)
            for warning in after.warnings { console.warning(warning) }
        }
        RestoreReport.show(
            outcome, plan: plan, requests: RequestCost.sent(editor) - start, restoreRequests: requests, json: json, console: console)
        return outcome.notDone.isEmpty ? .success : .partial
    }
}

/// A restore stopped by something other than Spotify's refusal (signing in, trust, the network, a
/// kill of the server): the journal keeps what was done.
struct RestoreInterrupted: UserFacingError {
    let underlying: any Error
    init(_ error: any Error) { underlying = error }
    var message: String {
        let reason = (underlying as? any UserFacingError)?.message ?? String(describing: underlying)
        return "the restore stopped before the end: \(reason)"
    }
    var hint: String? {
        let first = (underlying as? any UserFacingError)?.hint.map { $0 + "; then " } ?? ""
        return first + "run the same `timbre restore` again: it goes on where this one stopped and creates nothing twice"
    }
    var exitStatus: ExitStatus {
        let status = (underlying as? any UserFacingError)?.exitStatus ?? .failure
        return status == .usage || status == .success ? .failure : status
    }
}

extension AppContext {
    /// The same sync `timbre sync` runs (the whole library), so a backup or a restore's plan is
    /// made from what Spotify holds now. A sync that could not read the library ends the command.
    func syncForBackup(api: any SpotifyAPI, cache: LibraryCache? = nil) async throws -> SyncReport {
        let bar = ProgressBar(console: console, enabled: console.showsProgress)
        let sync = librarySync(api: api)
        let report = try await bar.showing(rateLimits: sync.pacing.remainingPause) { progress in
            try await sync.run(cache: cache, lockWait: .seconds(10), progress: progress)
        }
        guard report.status != .failed else { throw LibraryNotSynced(reason: report.warnings.first) }
        return report
    }
}

/// The sync before a backup or a restore could not read the library: nothing was written or sent.
struct LibraryNotSynced: UserFacingError {
    var reason: String?
    var message: String { "the library could not be synced\(reason.map { ": " + $0 } ?? ""); nothing was written" }
    var hint: String? { "run `timbre sync` to see why, then try again" }
    var exitStatus: ExitStatus { .failure }
}
