import TimbreCore

/// A positional edit planned on the cached playlist, which Spotify has changed since.
public struct EditConflict: UserFacingError, Equatable {
    public var playlist: String
    public var cached: String?
    public var live: String?
    public var message: String { "“\(TerminalText.preview(playlist, limit: 60))” changed on Spotify since it was last synced; nothing was written" }
    public var hint: String? {
        "run `timbre sync --playlist …` and check the positions again, or add --force to apply the edit to the same entries (found by track and occurrence)"
    }
    public var exitStatus: ExitStatus { .conflict }
}

/// A playlist the user neither owns nor collaborates on.
public struct NotPermitted: UserFacingError, Equatable {
    public var playlist: String
    public var owner: String
    /// Refused from what the cache knows, before any request (the interface's sentence).
    public var beforeSending = false
    public var message: String {
        beforeSending
            ? "“\(TerminalText.preview(playlist, limit: 60))” belongs to \(TerminalText.preview(owner, limit: 60)): only its owner or collaborators can change it; nothing was sent"
            : "“\(TerminalText.preview(playlist, limit: 60))” belongs to \(TerminalText.preview(owner, limit: 60)) and is not collaborative: Spotify lets only its owner change it; nothing was written"
    }
    public var hint: String? { "copy it into a playlist of your own: `timbre playlist create NAME`, then `timbre playlist add`" }
    public var exitStatus: ExitStatus { .notPermitted }
}

/// An edit that cannot be planned: a position outside the playlist, or nothing to do.
public struct InvalidEdit: UserFacingError, Equatable {
    public var message: String
    public var hint: String?
    public var exitStatus: ExitStatus { .usage }
}

/// The playlist is not where an interrupted or undone edit left it, and no step of the edit
/// explains what Spotify holds: timbre stops rather than guess.
public struct EditLost: UserFacingError, Equatable {
    public var journalID: Int64
    public var playlist: String
    public var message: String {
        "edit \(journalID) on “\(TerminalText.preview(playlist, limit: 60))” could not be finished: the playlist changed in a way the edit cannot account for"
    }
    public var hint: String? { "`timbre history` shows it as failed; the entries it had before are in the journal (`timbre history --json`)" }
    public var exitStatus: ExitStatus { .failure }
}

/// Nothing to undo or redo, or the playlist moved on since.
public struct NothingToUndo: UserFacingError, Equatable {
    public var message: String
    public var hint: String? {
        switch self {
        case .noEdit: return "`timbre history` lists the edits made with this profile"
        case .noUndoneEdit: return "redo applies an edit `timbre undo` reverted, until a new edit is made"
        default: return "`timbre history` shows the edit; `timbre sync` then `timbre tracks REF` show the playlist as it is"
        }
    }
    public var exitStatus: ExitStatus { .failure }

    /// The journal has no edit to undo, or no undone edit to redo: `timbre undo`/`redo` say so and exit 0.
    public static let noEdit = NothingToUndo(message: "there is no edit to undo")
    public static let noUndoneEdit = NothingToUndo(message: "there is no undone edit to redo")
}

/// An edit that would leave the playlist as it is. `apply` answers it with an outcome that sent
/// nothing (exit 0: a cron job deduping a clean playlist succeeded); elsewhere (an undo whose
/// change is already undone) it is the usage error it always was.
public struct NothingToChange: UserFacingError, Equatable {
    public var message: String
    public var hint: String? { nil }
    public var exitStatus: ExitStatus { .usage }
}

/// Spotify refused a write for good (a 4xx other than 401, 408 and 429): the edit ended, and
/// nothing of it is ever resent. `applied` of `total` writes had been accepted before.
public struct EditRefused: UserFacingError, Equatable {
    public var journalID: Int64
    public var playlist: String
    public var status: Int
    /// Spotify's own words.
    public var spotify: String
    public var applied: Int
    public var total: Int
    /// What the journal says of the edit now (`failed`, or `done`/`undone` when a refused undo or
    /// redo changed nothing).
    public var leftAs: EditJournal.Entry.State

    public init(
        journalID: Int64, playlist: String, status: Int, spotify: String, applied: Int, total: Int,
        leftAs: EditJournal.Entry.State
    ) {
        self.journalID = journalID
        self.playlist = playlist
        self.status = status
        self.spotify = spotify
        self.applied = applied
        self.total = total
        self.leftAs = leftAs
    }

    /// What was and was not applied, for the journal and the message.
    public var reason: String {
        let words = TerminalText.preview(spotify, limit: 160)
        let what: String
        if applied == 0 {
            what = "nothing of it was applied"
        } else if applied < 0 {
            what = "what of it was applied could not be read back"
        } else {
            what = "\(applied) of \(total) writes had been applied and stay on Spotify"
        }
        return "Spotify refused it (\(status) \(words)); \(what)"
    }

    public var message: String {
        "edit \(journalID) on “\(TerminalText.preview(playlist, limit: 60))”: \(reason)"
    }

    public var hint: String? {
        switch leftAs {
        case .done: return "the edit stays done; nothing will be resent (`timbre history` shows it)"
        case .undone: return "the edit stays undone; nothing will be resent (`timbre history` shows it)"
        default: return "`timbre history` lists it as failed with this reason; nothing will be resent, and other edits go on as usual"
        }
    }

    public var exitStatus: ExitStatus { status == 403 ? .notPermitted : .failure }
}

/// A write to a playlist Spotify answers 404 for: it no longer exists (or this app may not see it).
/// Never resent to another endpoint.
public struct PlaylistGone: UserFacingError, Equatable {
    public var playlist: String
    public init(playlist: String) { self.playlist = playlist }
    public var message: String {
        "the playlist “\(TerminalText.preview(playlist, limit: 60))” no longer exists on Spotify (or Spotify does not let apps change it); nothing more was sent"
    }
    public var hint: String? { "run `timbre sync` to bring the cache up to date, then check `timbre playlists`" }
    public var exitStatus: ExitStatus { .failure }
}

/// An add Spotify refused whole because it does not know some of the items.
public struct UnknownItems: UserFacingError, Equatable {
    public var playlist: String
    /// The URIs Spotify does not have (empty when they could not be told apart).
    public var unknown: [String]
    public var applied: Int
    public init(playlist: String, unknown: [String], applied: Int) {
        self.playlist = playlist
        self.unknown = unknown
        self.applied = applied
    }
    public var message: String {
        let names = unknown.prefix(5).map { TerminalText.preview($0, limit: 60) }.joined(separator: ", ")
        let more = unknown.count > 5 ? " and \(unknown.count - 5) more" : ""
        let which = unknown.isEmpty ? "some of the items" : "\(unknown.count == 1 ? "this item" : "these \(unknown.count) items"): \(names)\(more)"
        let added = applied == 0 ? "nothing was added" : "the \(applied) \(applied == 1 ? "write" : "writes") before it stay on Spotify"
        return "Spotify does not know \(which); it refused the whole batch, so \(added) to “\(TerminalText.preview(playlist, limit: 60))”"
    }
    public var hint: String? { "check the ids (`timbre search` finds tracks by name), then add the others again" }
    public var exitStatus: ExitStatus { .usage }
}

/// Details (name, description, public, collaborative) of a playlist someone else owns:
/// collaborators may change its entries, only its owner its details.
public struct OnlyOwnerChangesDetails: UserFacingError, Equatable {
    public var playlist: String
    public var owner: String
    public init(playlist: String, owner: String) {
        self.playlist = playlist
        self.owner = owner
    }
    public var message: String {
        "“\(TerminalText.preview(playlist, limit: 60))” belongs to \(TerminalText.preview(owner, limit: 60)): Spotify lets only its owner change its name, description or visibility; nothing was written"
    }
    public var hint: String? { "as a collaborator you can still add, remove and move its entries" }
    public var exitStatus: ExitStatus { .notPermitted }
}

/// The one rule on visibility Spotify enforces: a collaborative playlist is never public.
public struct CollaborativeMustBePrivate: UserFacingError, Equatable {
    public var playlist: String
    public init(playlist: String) { self.playlist = playlist }
    public var message: String {
        "“\(TerminalText.preview(playlist, limit: 60))” would be public and collaborative: Spotify allows collaborative playlists only when they are private; nothing was written"
    }
    public var hint: String? { "add --private (`timbre playlist edit REF --collaborative --private`)" }
    public var exitStatus: ExitStatus { .usage }
}

/// A person asked before an order change answered no.
struct OrderCancelled: Error {}
