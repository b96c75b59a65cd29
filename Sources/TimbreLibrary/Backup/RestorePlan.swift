import Foundation
import TimbreCore

/// What a restore will do, worked out before anything is sent from the backup, the account's
/// library as a sync just stored it, and the restore journal: which owned playlists to create (or
/// finish, when an earlier restore began them), which to follow, which songs to like — and what is
/// there already and is skipped. `--dry-run` prints it; `BackupRestore` carries it out.
public struct RestorePlan: Sendable {
    /// An owned playlist of the backup to create, or to finish when the journal has it.
    public struct PlaylistStep: Sendable, Equatable {
        public var playlist: Backup.OwnedPlaylist
        /// The journal's row when an earlier restore began this playlist.
        public var row: RestoreJournal.Row?
        /// Entries the journal says are still to add (for the estimate; the live count decides).
        public var remaining: Int
        /// The backup is of this account and the playlist was deleted since: it is followed back
        /// first (Spotify keeps a deleted playlist for its owner, entries and dates included), and
        /// made anew only when Spotify no longer has it.
        public var followBack = false
        /// A create is sent (not begun earlier, or begun and maybe never sent).
        public var creates: Bool { row?.target == nil }
    }

    public var account: String
    /// Owned playlists to create or finish, in the order they are sent (the backup's last first:
    /// Spotify lists a new playlist first, so the list ends in the backup's order).
    public var playlists: [PlaylistStep]
    /// Playlists to follow: the backup's followed ones that are not in the library, and playlists an
    /// earlier restore made that have been deleted since (following them brings them back).
    public var follows: [String]
    /// Songs to like, most recent first (the backup's order).
    public var likes: [String]
    public var folders: [Backup.Folder]
    /// Backed-up playlist id → the id it has in this account, for what exists already.
    public var known: [String: String]
    public var skippedPlaylists: Int
    public var skippedFollows: Int
    public var skippedLikes: Int
    /// Liked songs the backup lists more than once (one like restores them all): with
    /// `skippedLikes` and `likes`, every liked entry of the backup is accounted for.
    public var repeatedLikes = 0
    /// Entries that are local files: Spotify's API cannot add them (they stay in the file).
    public var localFiles: Int
    /// Pages of `/me/playlists` one search for a create whose answer was lost reads.
    var libraryPages: Int

    public static let addChunk = 100
    public static let libraryChunk = LibraryEdit.maxURIs

    /// The plan for `backup` in the account `account`, whose library the cache holds.
    public static func make(backup: Backup, cache: LibraryCache, journal: [String: RestoreJournal.Row], account: String) throws -> RestorePlan {
        let library = try cache.playlists().filter { !$0.isLiked }
        let present = Set(library.map(\.id))
        let liked = Set(try cache.entries(of: .liked)?.map(\.uri) ?? [])
        var plan = RestorePlan(
            account: account, playlists: [], follows: [], likes: [], folders: backup.folders, known: [:], skippedPlaylists: 0,
            skippedFollows: 0, skippedLikes: 0, localFiles: 0, libraryPages: max(1, EntryPages.count(library.count)))
        for playlist in backup.playlists.reversed() {
            let uris = playlist.addableURIs
            if present.contains(playlist.id) {
                plan.known[playlist.id] = playlist.id
                plan.skippedPlaylists += 1
                continue
            }
            let row = journal[playlist.id]
            if let row, row.state == .filled, let target = row.target {
                plan.known[playlist.id] = target
                if present.contains(target) { plan.skippedPlaylists += 1 } else { plan.follows.append(target) }
                continue
            }
            plan.localFiles += playlist.entries.count - uris.count
            var step = PlaylistStep(playlist: playlist, row: row, remaining: max(0, uris.count - (row?.added ?? 0)))
            step.followBack = row == nil && backup.account.id == account
            if step.followBack { step.remaining = 0 }
            plan.playlists.append(step)
        }
        var seen = Set(plan.follows)
        for followed in backup.followed where seen.insert(followed.id).inserted {
            if present.contains(followed.id) {
                plan.known[followed.id] = followed.id
                plan.skippedFollows += 1
            } else {
                plan.follows.append(followed.id)
            }
        }
        var seenLikes = Set<String>()
        for entry in backup.liked {
            guard seenLikes.insert(entry.uri).inserted else {
                plan.repeatedLikes += 1
                continue
            }
            if liked.contains(entry.uri) { plan.skippedLikes += 1 } else { plan.likes.append(entry.uri) }
        }
        return plan
    }

    /// Playlists created afresh (a create is sent).
    public var creates: Int { playlists.filter { $0.creates && !$0.followBack }.count }
    /// Deleted playlists of this same account, followed back.
    public var followsBack: Int { playlists.filter(\.followBack).count }
    /// Playlists an earlier restore began (their entries are finished).
    public var resumes: Int { playlists.filter { $0.row != nil }.count }
    public var entriesToAdd: Int { playlists.reduce(0) { $0 + $1.remaining } }
    /// Add requests (≤ 100 entries each).
    public var addRequests: Int { playlists.reduce(0) { $0 + Self.chunks($1.remaining, Self.addChunk) } }

    /// Requests the restore sends, reads to resume included (the syncs before and after are not).
    public var requests: Int {
        var total = creates + followsBack + addRequests + Self.chunks(follows.count, Self.libraryChunk) + Self.chunks(likes.count, Self.libraryChunk)
        for step in playlists where step.row != nil {
            // A begun playlist: its live count is read; a create whose answer was lost, the library searched.
            total += step.row?.target == nil ? libraryPages : 1
        }
        return total
    }

    /// Nothing to send.
    public var isEmpty: Bool { playlists.isEmpty && follows.isEmpty && likes.isEmpty }

    static func chunks(_ count: Int, _ size: Int) -> Int { (count + size - 1) / size }
}
