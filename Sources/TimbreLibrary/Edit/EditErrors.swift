import TimbreCore

/// A positional edit planned on the cached playlist, which Spotify has changed since.
public struct EditConflict: UserFacingError, Equatable {
    public var playlist: String
    public var cached: String?
    public var live: String?
    public var message: String { "“\(TerminalText.preview(playlist, limit: 60))” changed on Spotify since it was last synced; nothing was written" }
    public var hint: String? { "run `timbre sync --playlist …` and check the positions again, or add --force to apply the edit to the same entries (found by track and occurrence)" }
    public var exitStatus: ExitStatus { .conflict }
}

/// A playlist the user neither owns nor collaborates on.
public struct NotPermitted: UserFacingError, Equatable {
    public var playlist: String
    public var owner: String
    public var message: String {
        "“\(TerminalText.preview(playlist, limit: 60))” belongs to \(TerminalText.preview(owner, limit: 60)) and is not collaborative: Spotify lets only its owner change it; nothing was written"
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
