import Foundation
import TimbreCore

/// `x` (as ncspot's share; spotify-player calls it CopyLink): the open.spotify.com link of the
/// current entry (tracks pane, search hits, catalogue results) or of the selected playlist
/// (playlists pane) goes to the system clipboard through the terminal (OSC 52, `Terminal.copy`).
extension TUIState {
    mutating func copyLink() -> [Effect] {
        let subject: (uri: String, title: String)?
        switch mode {
        case .searchResults(let results):
            subject = results.hits.indices.contains(results.cursor) ? (results.hits[results.cursor].track.uri, results.hits[results.cursor].track.title) : nil
        case .catalogResults(let results):
            subject = results.hits.indices.contains(results.cursor) ? (results.hits[results.cursor].uri, results.hits[results.cursor].title) : nil
        default:
            if focus == .tracks {
                subject = selectedTrack.map { ($0.uri, $0.title) }
            } else {
                subject = selectedPlaylist.map { ($0.isLiked ? "spotify:collection:tracks" : "spotify:playlist:\($0.id)", $0.name) }
            }
        }
        guard let subject else {
            message = "x copies the link of the entry or playlist under the cursor: put the cursor on one"
            return []
        }
        let title = TerminalText.preview(subject.title, limit: 40)
        guard let link = Self.link(for: subject.uri) else {
            message =
                subject.uri.hasPrefix("spotify:local:")
                ? "“\(title)” is a local file: it has no link on open.spotify.com; nothing was copied"
                : "“\(title)” has no Spotify link; nothing was copied"
            return []
        }
        message = "copied the link of “\(title)” (\(link))"
        return [.copyToClipboard(link)]
    }

    /// `spotify:track:ID` → `https://open.spotify.com/track/ID` (also episode, playlist, album,
    /// artist; Liked Songs is `collection/tracks`); nil for a local file or anything else.
    static func link(for uri: String) -> String? {
        if uri == "spotify:collection:tracks" { return "https://open.spotify.com/collection/tracks" }
        let parts = uri.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "spotify", ["track", "episode", "playlist", "album", "artist", "show"].contains(parts[1]),
            !parts[2].isEmpty, parts[2].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        return "https://open.spotify.com/\(parts[1])/\(parts[2])"
    }
}
