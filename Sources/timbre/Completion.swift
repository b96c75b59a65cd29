import ArgumentParser
import Foundation
import TimbreApp

/// Tab completion beyond ArgumentParser's own (commands and options): what a REF, a folder or
/// `--by` can be. The shells run `timbre ---completion …`, which answers from the cache of the
/// profile the line names (`--profile`, else `TIMBRE_PROFILE`).
extension CompletionKind {
    /// Cached playlist names and ids, and `liked`.
    static var playlists: CompletionKind {
        .custom { words, _, prefix in
            ShellCompletion.playlists(words: words, prefix: prefix, environment: ProcessInfo.processInfo.environment)
        }
    }

    /// The local folders' names.
    static var folders: CompletionKind {
        .custom { words, _, prefix in
            ShellCompletion.folders(words: words, prefix: prefix, environment: ProcessInfo.processInfo.environment)
        }
    }

    static var sortFields: CompletionKind { .list(ShellCompletion.sortFields) }
}
