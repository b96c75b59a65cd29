import Foundation
import TimbreCore
import TimbreLibrary

/// `H`: the versions timbre kept of a playlist (#36), newest first — j/k choose one, Enter shows
/// what restoring it would change against the current list (`+` put back, `-` taken out, `~`
/// moved), `r` restores it after a question naming the counts, Esc goes back (then closes).
extension TUIState {
    public struct Versions: Sendable, Equatable {
        public internal(set) var playlistID: String
        public internal(set) var title: String
        public internal(set) var rows: [PlaylistVersion]
        public internal(set) var cursor = 0
        /// The comparison on screen, after Enter.
        public internal(set) var diff: VersionChanges?
    }

    /// A version against the current list, as lines to read and counts to ask with.
    public struct VersionChanges: Sendable, Equatable {
        public var version: Int
        public var lines: [String]
        public var top = 0
        /// What a restore would do: entries put back, taken out, moved.
        public var back: Int
        public var out: Int
        public var moved: Int

        public init(version: Int, lines: [String], back: Int, out: Int, moved: Int) {
            self.version = version
            self.lines = lines
            self.back = back
            self.out = out
            self.moved = moved
        }
    }

    public var versions: Versions? {
        if case .versions(let versions) = mode { return versions }
        return nil
    }

    /// `H` on a playlist: its versions, read by the app (`loadVersions`).
    mutating func openVersions() -> [Effect] {
        guard let playlist = subjectPlaylist, !playlist.isLiked else {
            message = "select a playlist for its versions (Liked Songs has none)"
            return []
        }
        return [.loadVersions(playlist.id)]
    }

    public mutating func showVersions(_ rows: [PlaylistVersion], of playlistID: String) {
        let title = playlists.first { $0.id == playlistID }?.name ?? ""
        guard !rows.isEmpty else {
            message = "timbre has no versions of “\(TerminalText.preview(title, limit: 40))” yet: one is kept when a sync or an edit changes it"
            return
        }
        mode = .versions(Versions(playlistID: playlistID, title: title, rows: rows))
    }

    public mutating func showVersionChanges(_ changes: VersionChanges) {
        guard var versions, versions.rows.indices.contains(versions.cursor), versions.rows[versions.cursor].version == changes.version else { return }
        versions.diff = changes
        mode = .versions(versions)
    }

    mutating func versionsKey(_ event: Terminal.InputEvent) -> [Effect] {
        guard var versions else { return [] }
        let name: String
        switch event {
        case .key(let key): name = key.name
        case .character(let character): name = String(character)
        case .resize: return []
        }
        let page = max(1, pageSize - 1)
        if var diff = versions.diff {
            switch name {
            case "Esc", "q", "h", "Left": versions.diff = nil
            case "j", "Down": diff.top += 1
            case "k", "Up": diff.top -= 1
            case "C-d": diff.top += max(1, page / 2)
            case "C-u": diff.top -= max(1, page / 2)
            case "g": diff.top = 0
            case "G": diff.top = diff.lines.count
            case "r": return askRestore(versions, diff)
            default: return []
            }
            if versions.diff != nil {
                diff.top = min(max(0, diff.top), max(0, diff.lines.count - page))
                versions.diff = diff
            }
            mode = .versions(versions)
            return []
        }
        switch name {
        case "Esc", "q", "H":
            mode = .normal
            return []
        case "j", "Down": versions.cursor = min(versions.cursor + 1, versions.rows.count - 1)
        case "k", "Up": versions.cursor = max(versions.cursor - 1, 0)
        case "g": versions.cursor = 0
        case "G": versions.cursor = versions.rows.count - 1
        case "Enter", "l", "Right", "r":
            let version = versions.rows[versions.cursor].version
            mode = .versions(versions)
            return [.loadVersionChanges(versions.playlistID, version: version)]
        default: return []
        }
        mode = .versions(versions)
        return []
    }

    /// `r`: the question, naming what the restore would do; y runs it as one edit.
    private mutating func askRestore(_ versions: Versions, _ diff: VersionChanges) -> [Effect] {
        guard let playlist = playlists.first(where: { $0.id == versions.playlistID }), playlist.editable else {
            message = "🔒 only the owner or collaborators can restore “\(TerminalText.preview(versions.title, limit: 40))”; nothing was sent"
            return []
        }
        guard diff.back + diff.out + diff.moved > 0 else {
            message = "the list is already version \(diff.version); nothing to restore"
            return []
        }
        var parts: [String] = []
        if diff.back > 0 { parts.append("\(TUIEdit.count(diff.back)) back (dated today)") }
        if diff.out > 0 { parts.append("\(diff.out) taken out") }
        if diff.moved > 0 { parts.append("\(diff.moved) moved") }
        guard let id = SpotifyID(versions.playlistID) else {
            reportError("“\(TerminalText.preview(versions.title, limit: 40))” is not a playlist Spotify can restore; nothing was sent")
            return []
        }
        ask(
            "Restore “\(TerminalText.preview(versions.title, limit: 40))” to version \(diff.version): \(parts.joined(separator: ", ")); the other entries keep their dates? (y/n)",
            [.edit(.restoreVersion(id, version: diff.version))])
        return []
    }

    /// The lines of the versions view: the list (with the cursor) or the comparison.
    var versionLines: [(text: String, selected: Bool)] {
        guard let versions else { return [] }
        if let diff = versions.diff {
            let head = "Version \(diff.version) → now: restoring it puts \(diff.back) back, takes \(diff.out) out, moves \(diff.moved) — r restores, Esc back"
            return [(head, false), ("", false)] + diff.lines.dropFirst(diff.top).map { ($0, false) }
        }
        return versions.rows.enumerated().map { index, version in (version.line, index == versions.cursor) }
    }
}
