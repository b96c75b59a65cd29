import Foundation
import TimbreCore

extension TUIState {
    /// `:folder …`: names are matched ignoring case ("chill out" is the folder “Chill Out”); a
    /// name that matches no folder is made only when the person says so.
    mutating func folderVerb(_ action: Command.FolderAction) -> [Effect] {
        let folderOfSelected = selectedPlaylist.flatMap { playlist in folders.first { $0.playlists.contains(playlist.id) } }
        switch action {
        case .create(let name):
            return [.edit(.folder(.create(name)))]
        case .rename(let new):
            guard let folder = selectedFolder ?? folderOfSelected else {
                message = "put the cursor on a folder to rename it"
                return []
            }
            return [.edit(.folder(.rename(folder.name, to: new)))]
        case .delete:
            guard let folder = selectedFolder else {
                message = "put the cursor on a folder to delete it (its playlists stay)"
                return []
            }
            return [.edit(.folder(.delete(folder.name)))]
        case .add(let name):
            guard let playlist = selectedPlaylist, !playlist.isLiked else {
                message = "select a playlist (left pane) to put in “\(TerminalText.preview(name, limit: 30))”"
                return []
            }
            if let folder = folder(named: name) { return [.edit(.folder(.add(playlistID: playlist.id, to: folder.name)))] }
            let typed = name.trimmingCharacters(in: .whitespaces)
            ask("No folder “\(TerminalText.preview(typed, limit: 40))” — create it? (y/n)", [.edit(.folder(.add(playlistID: playlist.id, to: typed)))])
            return []
        case .remove:
            guard let playlist = selectedPlaylist, let folder = folderOfSelected else {
                message = "the selected playlist is in no folder"
                return []
            }
            return [.edit(.folder(.remove(playlistID: playlist.id, from: folder.name)))]
        }
    }

    /// The folder `name` means: spelt exactly so, else equal ignoring case and surrounding spaces.
    func folder(named name: String) -> FolderRow? {
        let key = Self.folded(name)
        return folders.first { $0.name == name } ?? folders.first { Self.folded($0.name) == key }
    }

    static func folded(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).folding(options: [.caseInsensitive], locale: nil)
    }
}
