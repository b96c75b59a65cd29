import Foundation
import TimbreCore

/// Reading a backup file: everything is checked before a restore sends anything — the format and
/// version, every id and URI, every name's length — so a damaged or hostile file is refused whole
/// (exit 2) rather than half restored. Names are data: they are sent to Spotify as JSON strings and
/// shown only through `TerminalText`.
extension Backup {
    /// Larger than any library Spotify allows (10,000 playlists of 10,000 entries would be ~10 GB,
    /// but real ones are a few MB; 200,000 entries are ~20 MB).
    public static let maxBytes = 256 << 20
    /// Generous bounds that still refuse a hostile file: Spotify's names are not limited to what
    /// timbre's own create allows (1,000), so a backup keeps what the account holds.
    static let maxNameLength = 100_000
    static let maxDescriptionLength = 100_000
    static let maxURILength = 1_000

    /// Reads and checks the file at `path`.
    public static func read(path: String) throws -> Backup {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BackupFileError(
                message: "cannot read \(TerminalText.preview(path)): no such file, or not readable", hint: "give the file `timbre backup` wrote")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        guard data.count <= maxBytes else {
            throw BackupFileError(message: "\(TerminalText.preview(path)) is over 256 MB: not a timbre backup; nothing was sent")
        }
        return try decode(data)
    }

    /// Decodes and checks a backup's bytes.
    public static func decode(_ data: Data) throws -> Backup {
        guard let root = try? JSONSerialization.jsonObject(with: data), let object = root as? [String: Any] else {
            throw BackupFileError(
                message: "the file is not valid JSON (damaged or cut short?): not a timbre backup; nothing was sent",
                hint: "give the file `timbre backup` wrote")
        }
        guard object["format"] as? String == formatName else {
            throw BackupFileError(
                message: "the file is not a timbre backup (no \"format\": \"\(formatName)\"); nothing was sent", hint: "give the file `timbre backup` wrote")
        }
        guard let version = object["version"] as? Int, version >= 1 else { throw damaged("its version is missing or not a positive number") }
        guard version <= currentVersion else {
            throw BackupFileError(
                message: "the backup is version \(version), made by a newer timbre; this one reads version \(currentVersion) and older; nothing was sent",
                hint: "update timbre, then run the restore again")
        }
        let reader = Fields()
        let account = try reader.object(object["account"], "account")
        let backup = Backup(
            createdAt: try reader.string(object["created_at"], "created_at", max: 100),
            account: Account(
                id: try reader.string(account["id"], "account.id", max: maxNameLength), name: try reader.optionalString(account["name"], "account.name")),
            playlists: try reader.array(object["playlists"], "playlists").enumerated().map { try owned($1, "playlists[\($0)]", reader) },
            followed: try reader.array(object["followed"], "followed").enumerated().map { try followed($1, "followed[\($0)]", reader) },
            folders: try reader.array(object["folders"], "folders").enumerated().map { try folder($1, "folders[\($0)]", reader) },
            liked: try reader.array(object["liked"], "liked").enumerated().map { index, value in
                let entry = try entry(value, "liked[\(index)]", reader)
                guard entry.uri.hasPrefix("spotify:track:") || entry.uri.hasPrefix("spotify:episode:") else {
                    throw damaged("liked[\(index)].uri is not a track or episode URI")
                }
                return entry
            },
            version: version)
        return backup
    }

    private static func owned(_ value: Any, _ path: String, _ reader: Fields) throws -> OwnedPlaylist {
        let object = try reader.object(value, path)
        let entries = try reader.array(object["entries"], path + ".entries")
        guard entries.count <= 10_000 else { throw damaged("\(path) holds \(entries.count) entries; Spotify allows 10,000") }
        return OwnedPlaylist(
            id: try reader.id(object["id"], path + ".id"),
            name: try reader.string(object["name"], path + ".name", max: maxNameLength),
            description: try reader.optionalString(object["description"], path + ".description", max: maxDescriptionLength),
            isPublic: try reader.bool(object["public"], path + ".public"),
            collaborative: try reader.bool(object["collaborative"], path + ".collaborative"),
            entries: try entries.enumerated().map { try entry($1, "\(path).entries[\($0)]", reader) })
    }

    private static func followed(_ value: Any, _ path: String, _ reader: Fields) throws -> FollowedPlaylist {
        let object = try reader.object(value, path)
        return FollowedPlaylist(
            id: try reader.id(object["id"], path + ".id"), name: try reader.string(object["name"], path + ".name", max: maxNameLength),
            owner: try reader.optionalString(object["owner"], path + ".owner"))
    }

    private static func folder(_ value: Any, _ path: String, _ reader: Fields) throws -> Folder {
        let object = try reader.object(value, path)
        let name = try reader.string(object["name"], path + ".name", max: 200)
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw damaged("\(path).name is empty") }
        let ids = try reader.array(object["playlists"], path + ".playlists").enumerated().map { try reader.id($1, "\(path).playlists[\($0)]") }
        return Folder(name: name, playlists: ids)
    }

    private static func entry(_ value: Any, _ path: String, _ reader: Fields) throws -> Entry {
        let object = try reader.object(value, path)
        let uri = try reader.string(object["uri"], path + ".uri", max: maxURILength)
        guard isEntryURI(uri) else { throw damaged("\(path).uri is not a track, episode or local-file URI") }
        return Entry(
            uri: uri, addedAt: try reader.optionalString(object["added_at"], path + ".added_at", max: 100),
            addedBy: try reader.optionalString(object["added_by"], path + ".added_by"))
    }

    /// `spotify:track:ID`, `spotify:episode:ID` (22 base62 characters) or `spotify:local:…`.
    static func isEntryURI(_ uri: String) -> Bool {
        if uri.hasPrefix("spotify:local:") { return !uri.contains(where: { $0.isNewline }) }
        for prefix in ["spotify:track:", "spotify:episode:"] where uri.hasPrefix(prefix) {
            return SpotifyID(String(uri.dropFirst(prefix.count))) != nil
        }
        return false
    }

    static func damaged(_ detail: String) -> BackupFileError {
        BackupFileError(message: "the backup is damaged: \(detail); nothing was sent", hint: "give the file `timbre backup` wrote, unedited")
    }

    /// Typed access to JSONSerialization's values, each failure naming the member.
    struct Fields {
        func object(_ value: Any?, _ path: String) throws -> [String: Any] {
            guard let object = value as? [String: Any] else { throw damaged("\(path) is missing or not an object") }
            return object
        }

        func array(_ value: Any?, _ path: String) throws -> [Any] {
            guard let array = value as? [Any] else { throw damaged("\(path) is missing or not a list") }
            return array
        }

        func string(_ value: Any?, _ path: String, max: Int = Backup.maxNameLength) throws -> String {
            guard let text = value as? String else { throw damaged("\(path) is missing or not text") }
            guard text.unicodeScalars.count <= max else { throw damaged("\(path) is longer than \(OrderCost.grouped(max)) characters") }
            return text
        }

        func optionalString(_ value: Any?, _ path: String, max: Int = Backup.maxNameLength) throws -> String? {
            if value == nil || value is NSNull { return nil }
            return try string(value, path, max: max)
        }

        func bool(_ value: Any?, _ path: String) throws -> Bool {
            guard let flag = value as? Bool else { throw damaged("\(path) is missing or not true/false") }
            return flag
        }

        func id(_ value: Any?, _ path: String) throws -> String {
            guard let text = value as? String, SpotifyID(text) != nil else { throw damaged("\(path) is not a Spotify playlist id") }
            return text
        }
    }
}
