import Foundation
import TimbreCore
import TimbreLibrary

/// Adding entries whose tracks the target holds already asks first: "3 already in “X” — add
/// anyway? (y/n/s=skip them)"; y adds all, s only the new ones, n sends nothing. What the target
/// holds comes from the cache: the open playlist's rows, or (`A`, another playlist)
/// `Effect.checkAdd`, which `TUIApp` answers with `LibrarySource.tracks(of:)` and `resolveAdd`.
extension TUIState {
    /// An add waiting to be checked against the target's tracks.
    public struct PendingAdd: Sendable, Equatable {
        public var playlistID: String
        public var playlistName: String
        public var uris: [String]
        /// Where (Spotify's 0-based index), nil: at the end.
        public var position: Int?

        public init(playlistID: String, playlistName: String, uris: [String], position: Int?) {
            self.playlistID = playlistID
            self.playlistName = playlistName
            self.uris = uris
            self.position = position
        }
    }

    /// The add as an edit when none of its tracks is in `existing` (the target's URIs), else the
    /// duplicate question.
    public mutating func resolveAdd(_ add: PendingAdd, existing: Set<String>) -> [Effect] {
        guard let id = SpotifyID(add.playlistID) else {
            reportError("“\(TerminalText.preview(add.playlistName, limit: 40))” is not a playlist Spotify can add to that way; nothing was sent")
            return []
        }
        func edit(_ uris: [String]) -> Effect { .edit(.entries(id, .add(uris: uris, position: add.position))) }
        let fresh = add.uris.filter { !existing.contains($0) }
        guard fresh.count < add.uris.count else {
            marks = []
            rangeAnchor = nil
            return [edit(add.uris)]
        }
        let already = add.uris.count - fresh.count
        let name = TerminalText.preview(add.playlistName, limit: 40)
        mode = .confirm(
            Question(
                text: "\(already) already in “\(name)” — add anyway? (y/n/s=skip them)", effects: [edit(add.uris)], skip: fresh.isEmpty ? [] : [edit(fresh)]))
        return []
    }
}

extension TUIState {
    /// `s` to the duplicate question: only the new ones (nothing when all are there).
    mutating func skipAnswer(_ effects: [Effect]) -> [Effect] {
        if effects.isEmpty { message = "all of them are there already; nothing was sent" }
        return effects
    }

    /// `d` answered y: the removed entries are in the register, as `y` would have put them.
    mutating func fillRegister(_ uris: [String]) {
        guard !uris.isEmpty else { return }
        register = uris
        registerSource = openedPlaylist?.name ?? ""
        message = "\(TUIEdit.count(uris.count)) in the register too — p pastes them in another playlist (d then p moves them)"
    }
}
