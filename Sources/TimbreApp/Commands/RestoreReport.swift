import Foundation
import TimbreCore
import TimbreLibrary

/// How `timbre restore` tells its plan (`--dry-run`) and its outcome: sentences on stderr, or one
/// JSON object on stdout (docs/CLI.md has the shape).
enum RestoreReport {
    /// `requests`: what the command would send in all (its reads, the restore, the sync after).
    static func showPlan(_ plan: RestorePlan, backup: Backup, requests: Int, json: Bool, console: Console) {
        let seconds = (plan.requests + OrderCost.writesPerSecond - 1) / OrderCost.writesPerSecond
        if json {
            console.json(
                .object(
                    [("dry_run", .bool(true)), ("status", .string("ok")), ("account", .string(plan.account))]
                        + counts(
                            created: plan.creates, resumed: plan.resumes, entries: plan.entriesToAdd, followed: plan.follows.count + plan.followsBack,
                            liked: plan.likes.count, folders: plan.folders.count, plan: plan)
                        + [
                            ("requests", .int(requests)), ("restore_requests", .int(plan.requests)), ("add_requests", .int(plan.addRequests)),
                            ("seconds", .int(seconds)),
                            ("not_done", .array([])),
                        ]))
            return
        }
        let from = TerminalText.sanitize(backup.account.name ?? backup.account.id)
        console.line("Restore of the backup of \(from) made \(TerminalText.sanitize(backup.createdAt)) into \(TerminalText.sanitize(plan.account)) would:")
        var create = "  create \(plan.creates) \(plural(plan.creates, "playlist"))"
        if plan.resumes > 0 { create += " and finish \(plan.resumes) an earlier restore began" }
        if plan.followsBack > 0 {
            create += ", follow back \(plan.followsBack) deleted since the backup (made anew only if Spotify no longer has them)"
        }
        console.line(
            create + ", adding \(OrderCost.grouped(plan.entriesToAdd)) entries in \(OrderCost.grouped(plan.addRequests)) \(plural(plan.addRequests, "write"))")
        console.line(
            "  follow \(plan.follows.count) \(plural(plan.follows.count, "playlist")), like \(OrderCost.grouped(plan.likes.count)) \(plural(plan.likes.count, "song"))"
        )
        console.line("  put \(plan.folders.count) \(plural(plan.folders.count, "folder")) back (local)")
        console.line(skippedLine(plan))
        console.line(
            "  \(OrderCost.grouped(plan.requests)) \(plural(plan.requests, "request")), \(OrderCost.duration(of: plan.requests)) at Spotify's pace; "
                + "with the syncs before and after, about \(OrderCost.grouped(requests)) (of the day's quota)")
        console.line("Nothing was sent (--dry-run).")
    }

    /// `requests`: every request the command sent, the syncs before and after included;
    /// `restoreRequests`: those of the restore between them.
    static func show(_ outcome: BackupRestore.Outcome, plan: RestorePlan, requests: Int, restoreRequests: Int, json: Bool, console: Console) {
        if json {
            let notDone: [JSONValue] = outcome.notDone.map {
                .object([("what", .string($0.what)), ("id", .string($0.id)), ("name", .string($0.name)), ("reason", .string($0.reason))])
            }
            console.json(
                .object(
                    [
                        ("dry_run", .bool(false)), ("status", .string(outcome.notDone.isEmpty ? "ok" : "partial")),
                        ("account", .string(plan.account)),
                    ]
                        + counts(
                            created: outcome.created, resumed: outcome.resumed, entries: outcome.entriesAdded, followed: outcome.followed,
                            liked: outcome.liked, folders: outcome.folders, plan: plan)
                        + [("requests", .int(requests)), ("restore_requests", .int(restoreRequests)), ("not_done", .array(notDone))]))
            return
        }
        if plan.isEmpty {
            console.say("Nothing to restore: the account has everything in the backup (\(requests) \(plural(requests, "request")))")
            console.say(skippedLine(plan).trimmingCharacters(in: .whitespaces))
            return
        }
        var line = "Restored: created \(outcome.created) \(plural(outcome.created, "playlist"))"
        if outcome.resumed > 0 { line += " (finished \(outcome.resumed) begun earlier)" }
        line += " with \(OrderCost.grouped(outcome.entriesAdded)) entries, followed \(outcome.followed), liked \(OrderCost.grouped(outcome.liked))"
        console.say(line + ", \(outcome.folders) \(plural(outcome.folders, "folder")) (\(requests) \(plural(requests, "request")))")
        console.say(skippedLine(plan).trimmingCharacters(in: .whitespaces))
        for item in outcome.notDone {
            console.warning(TerminalText.sanitize("not restored: \(item.what) \(item.id) (\(TerminalText.preview(item.name, limit: 60))): \(item.reason)"))
        }
        if !outcome.notDone.isEmpty { console.say("\(outcome.notDone.count) not restored; running the restore again retries them") }
    }

    /// About what the sync after a restore reads: the listing, Liked Songs (all of it when likes
    /// were sent, else its first page), and each playlist made or followed (⌈n/50⌉ pages, one at
    /// least). Nothing when there is nothing to restore (no sync follows).
    static func syncAfter(_ plan: RestorePlan, cache: LibraryCache) -> Int {
        guard !plan.isEmpty else { return 0 }
        let playlists = ((try? cache.playlists().filter { !$0.isLiked }.count) ?? 0) + plan.playlists.count + plan.follows.count
        let liked = (try? cache.playlist(.liked)?.trackCount) ?? 0
        var requests = max(1, EntryPages.count(playlists))
        requests += plan.likes.isEmpty ? 1 : EntryPages.count(liked + plan.likes.count)
        for step in plan.playlists { requests += max(1, EntryPages.count(step.playlist.entries.count)) }
        return requests + plan.follows.count
    }

    private static func counts(
        created: Int, resumed: Int, entries: Int, followed: Int, liked: Int, folders: Int, plan: RestorePlan
    ) -> [(String, JSONValue)] {
        [
            ("created", .int(created)), ("resumed", .int(resumed)), ("entries_added", .int(entries)), ("followed", .int(followed)),
            ("liked", .int(liked)), ("folders", .int(folders)),
            ("skipped", .int(plan.skippedPlaylists + plan.skippedFollows + plan.skippedLikes)),
            ("skipped_playlists", .int(plan.skippedPlaylists)), ("skipped_followed", .int(plan.skippedFollows)),
            ("skipped_liked", .int(plan.skippedLikes)),
            ("local_files", .int(plan.localFiles)),
            ("repeated_liked", .int(plan.repeatedLikes)),
        ]
    }

    private static func skippedLine(_ plan: RestorePlan) -> String {
        var line =
            "  skip what is there already: \(plan.skippedPlaylists) own \(plural(plan.skippedPlaylists, "playlist")), "
            + "\(plan.skippedFollows) followed, \(OrderCost.grouped(plan.skippedLikes)) liked"
        if plan.repeatedLikes > 0 {
            let verb = plan.repeatedLikes == 1 ? "repeats" : "repeat"
            let repeated = "\(OrderCost.grouped(plan.repeatedLikes)) liked \(plural(plan.repeatedLikes, "entry"))"
            line += "; \(repeated) \(verb) a song listed before (one like covers them)"
        }
        if plan.localFiles > 0 {
            line += "; \(plan.localFiles) local \(plural(plan.localFiles, "file")) cannot be added through Spotify's API (they stay in the file)"
        }
        return line
    }

    private static func plural(_ count: Int, _ word: String) -> String {
        count == 1 ? word : word.hasSuffix("y") ? word.dropLast() + "ies" : word + "s"
    }
}
