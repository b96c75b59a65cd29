import TimbreCore

/// A playlist written to a file, or a file's rows added to a playlist: the interface's `:export`
/// and `:import`, which read or write a file around (at most) one `LibraryChange`.
public enum FileTransfer: Sendable, Equatable {
    /// The cached entries of `playlist` to `path` (as typed: `~` is the run's `$HOME`, a relative
    /// path the current directory's); `overwrite`: the person said yes to replacing a file there.
    case export(PlaylistRef, path: String, overwrite: Bool = false)
    /// The rows of the file at `path`, matched in the catalogue, added at the end of `into`.
    case importFile(path: String, into: SpotifyID)
}
