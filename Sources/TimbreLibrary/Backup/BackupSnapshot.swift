import Foundation
import TimbreCore
import TimbreNet

/// Making a backup: the library as the cache holds it right after a sync, the local folders, and
/// the owned playlists' descriptions (the cache does not keep descriptions: they are read from
/// `/me/playlists`, 50 playlists a request).
extension Backup {
    /// A playlist the cache lists without its entries: a backup of it would lose them.
    public struct NotSynced: UserFacingError, Equatable {
        public var name: String
        public var message: String { "“\(TerminalText.preview(name, limit: 60))” is not in the cache with its entries; no backup was written" }
        public var hint: String? { "run `timbre sync`, then `timbre backup` again" }
        public var exitStatus: ExitStatus { .partial }
    }

    /// The backup of `account`'s library: owned playlists (owner = the account) with their entries
    /// in order, the others by id, folders, Liked Songs.
    public static func make(
        cache: LibraryCache, folders: [Folders.Folder], account: Account, descriptions: [String: String], createdAt: Date
    ) throws -> Backup {
        var owned: [OwnedPlaylist] = []
        var followed: [FollowedPlaylist] = []
        for playlist in try cache.playlists() where !playlist.isLiked {
            guard playlist.ownerID == account.id else {
                followed.append(FollowedPlaylist(id: playlist.id, name: playlist.name, owner: playlist.ownerID))
                continue
            }
            guard let id = SpotifyID(playlist.id), let entries = try cache.entries(of: .playlist(id)) else { throw NotSynced(name: playlist.name) }
            owned.append(
                OwnedPlaylist(
                    id: playlist.id, name: playlist.name, description: descriptions[playlist.id], isPublic: playlist.isPublic,
                    collaborative: playlist.collaborative,
                    entries: entries.map { Entry(uri: $0.uri, addedAt: $0.addedAt, addedBy: $0.addedBy) }))
        }
        let liked = try cache.entries(of: .liked)?.map { Entry(uri: $0.uri, addedAt: $0.addedAt) } ?? []
        return Backup(
            createdAt: ClockText.iso(createdAt), account: account, playlists: owned, followed: followed,
            folders: folders.map { Folder(name: $0.name, playlists: $0.playlists) }, liked: liked)
    }

    /// The descriptions of the account's own cached playlists, read from Spotify (empty ones left
    /// out): the playlist objects of `/me/playlists` carry them, 50 a request — not one
    /// `GET /playlists/{id}` each.
    public static func descriptions(of cache: LibraryCache, owner: String, api: any SpotifyAPI) async throws -> [String: String] {
        let owned = Set(try cache.playlists().filter { !$0.isLiked && $0.ownerID == owner }.map(\.id))
        guard !owned.isEmpty else { return [:] }
        var result: [String: String] = [:]
        var offset = 0
        while true {
            let response = try await api.get("me/playlists?offset=\(offset)&limit=50")
            let page = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            let items = page?["items"] as? [Any] ?? []
            for case let object as [String: Any] in items {
                guard let id = object["id"] as? String, owned.contains(id) else { continue }
                if let text = object["description"] as? String, !text.isEmpty { result[id] = unescapingHTML(text) }
            }
            offset += 50
            let total = page?["total"] as? Int ?? 0
            if items.isEmpty || offset >= total { return result }
        }
    }

    /// Spotify answers descriptions HTML-escaped (`&amp;`, `&#x27;`) and escapes again what it is
    /// sent: the backup keeps the text as typed, so a restore gives back the same description.
    static func unescapingHTML(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[amp...]
            guard let semi = tail.prefix(12).firstIndex(of: ";") else {
                out.append("&")
                rest = tail.dropFirst()
                continue
            }
            let name = tail[tail.index(after: amp)..<semi]
            if let character = entity(String(name)) {
                out.append(character)
                rest = tail[tail.index(after: semi)...]
            } else {
                out.append("&")
                rest = tail.dropFirst()
            }
        }
        return out + rest
    }

    private static func entity(_ name: String) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let number: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                number = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                number = UInt32(name.dropFirst())
            } else {
                number = nil
            }
            return number.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }

    /// The default file name: `timbre-backup-YYYY-MM-DD.json` (UTC).
    public static func defaultFileName(at date: Date) -> String {
        "timbre-backup-\(ClockText.iso(date).prefix(10)).json"
    }
}
