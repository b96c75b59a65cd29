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

    /// Decodes and checks a backup's bytes, with the byte-level `JSONReader` (no Foundation object
    /// tree: JSONSerialization of a 68 MB file peaked at 2 GB). A syntax pass, then two: the first only checks —
    /// it keeps nothing, so a hostile file is refused using little more memory than its own bytes —
    /// the second, run only on a file found good, builds the `Backup`.
    public static func decode(_ data: Data) throws -> Backup {
        let notJSON = BackupFileError(
            message: "the file is not valid JSON (damaged or cut short?): not a timbre backup; nothing was sent",
            hint: "give the file `timbre backup` wrote")
        // RFC 8259 text is UTF-8; the reader would put U+FFFD for a bad byte, the file is refused instead.
        guard data.withUnsafeBytes({ isUTF8($0.bindMemory(to: UInt8.self)) }) else { throw notJSON }
        do {
            // Syntax first, to the last byte: trailing data is "not JSON" before any member's refusal.
            try JSONReader.read(data) { reader in try reader.skipValue() }
            _ = try JSONReader.read(data) { reader in try parse(&reader, keep: false) }
            return try JSONReader.read(data) { reader in try parse(&reader, keep: true) }
        } catch is JSONReader.SyntaxError {
            throw notJSON
        }
    }

    /// Whether `bytes` are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
    /// past U+10FFFF), in one pass that allocates nothing.
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            guard i + length <= n, (low...high).contains(bytes[i + 1]) else { return false }
            for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }

    /// One member's value when it is not an object or a list (those are read where they are).
    enum Scalar {
        case absent, null, string(String), bool(Bool), int(Int), other

        static func read(_ reader: inout JSONReader) throws -> Scalar {
            switch try reader.peek() {
            case .string: return .string(try reader.readString())
            case .bool: return try reader.bool().map(Scalar.bool) ?? .other
            case .null:
                _ = try reader.skipNull()
                return .null
            case .number: return try reader.int().map(Scalar.int) ?? .other
            case .object, .array:
                try reader.skipValue()
                return .other
            }
        }
    }

    /// A member read and checked, or the reason it is refused (reported in the order the members
    /// are checked, whatever their order in the file).
    typealias Checked<T> = Result<T, BackupFileError>

    static func check<T>(_ body: () throws -> T) -> Checked<T> {
        do {
            return .success(try body())
        } catch let error as BackupFileError {
            return .failure(error)
        } catch {
            return .failure(damaged("\(error)"))
        }
    }

    /// A list read: its elements (when kept), and what refuses it — its shape (not a list, too
    /// long) or its first refused element.
    struct Listed<T> {
        var values: [T] = []
        var shape: BackupFileError?
        var element: BackupFileError?

        var checked: Checked<[T]> {
            if let refusal = shape ?? element { return .failure(refusal) }
            return .success(values)
        }
    }

    /// The top-level object. `keep`: false checks only (lists stay empty).
    private static func parse(_ reader: inout JSONReader, keep: Bool) throws -> Backup {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            throw BackupFileError(
                message: "the file is not valid JSON (damaged or cut short?): not a timbre backup; nothing was sent",
                hint: "give the file `timbre backup` wrote")
        }
        var format = Scalar.absent, version = Scalar.absent, createdAt = Scalar.absent
        var account: Checked<(Scalar, Scalar)>?
        var playlists: Checked<[OwnedPlaylist]>?, followed: Checked<[FollowedPlaylist]>?
        var folders: Checked<[Folder]>?, liked: Checked<[Entry]>?
        var more = try reader.enterObject()
        while more {
            let key = try reader.readKey()
            if reader.key(key, is: "format") {
                format = try Scalar.read(&reader)
            } else if reader.key(key, is: "version") {
                version = try Scalar.read(&reader)
            } else if reader.key(key, is: "created_at") {
                createdAt = try Scalar.read(&reader)
            } else if reader.key(key, is: "account") {
                account = try object(&reader, "account") { reader, _ in
                    var id = Scalar.absent, name = Scalar.absent
                    try members(&reader) { reader, key in
                        if reader.key(key, is: "id") {
                            id = try Scalar.read(&reader)
                        } else if reader.key(key, is: "name") {
                            name = try Scalar.read(&reader)
                        } else {
                            return false
                        }
                        return true
                    }
                    return .success((id, name))
                }
            } else if reader.key(key, is: "playlists") {
                playlists = try list(&reader, "playlists", keep: keep) { reader, path in try owned(&reader, path, keep: keep) }.checked
            } else if reader.key(key, is: "followed") {
                followed = try list(&reader, "followed", keep: keep) { reader, path in try Self.followed(&reader, path) }.checked
            } else if reader.key(key, is: "folders") {
                folders = try list(&reader, "folders", keep: keep) { reader, path in try folder(&reader, path, keep: keep) }.checked
            } else if reader.key(key, is: "liked") {
                liked = try list(&reader, "liked", keep: keep) { reader, path in
                    try entry(&reader, path).flatMap { entry in
                        guard entry.uri.hasPrefix("spotify:track:") || entry.uri.hasPrefix("spotify:episode:") else {
                            return .failure(damaged("\(path).uri is not a track or episode URI"))
                        }
                        return .success(entry)
                    }
                }.checked
            } else {
                try reader.skipValue()
            }
            more = try reader.nextMember()
        }

        guard case .string(formatName) = format else {
            throw BackupFileError(
                message: "the file is not a timbre backup (no \"format\": \"\(formatName)\"); nothing was sent", hint: "give the file `timbre backup` wrote")
        }
        guard case .int(let number) = version, number >= 1 else { throw damaged("its version is missing or not a positive number") }
        guard number <= currentVersion else {
            throw BackupFileError(
                message: "the backup is version \(number), made by a newer timbre; this one reads version \(currentVersion) and older; nothing was sent",
                hint: "update timbre, then run the restore again")
        }
        let (accountID, accountName) = try (account ?? .failure(damaged("account is missing or not an object"))).get()
        let created = try string(createdAt, "created_at", max: 100)
        let owner = Account(id: try string(accountID, "account.id", max: maxNameLength), name: try optionalString(accountName, "account.name"))
        return Backup(
            createdAt: created, account: owner,
            playlists: try (playlists ?? .failure(damaged("playlists is missing or not a list"))).get(),
            followed: try (followed ?? .failure(damaged("followed is missing or not a list"))).get(),
            folders: try (folders ?? .failure(damaged("folders is missing or not a list"))).get(),
            liked: try (liked ?? .failure(damaged("liked is missing or not a list"))).get(),
            version: number)
    }

    /// Reads an object's members: `body` reads the value of a key it knows and returns true, or
    /// returns false (having read nothing) and the value is skipped.
    private static func members(_ reader: inout JSONReader, _ body: (inout JSONReader, JSONReader.Key) throws -> Bool) throws {
        var more = try reader.enterObject()
        while more {
            let key = try reader.readKey()
            if try !body(&reader, key) { try reader.skipValue() }
            more = try reader.nextMember()
        }
    }

    /// A value that must be an object: `body` reads it; anything else is skipped and refused.
    private static func object<T>(
        _ reader: inout JSONReader, _ path: String, _ body: (inout JSONReader, String) throws -> Checked<T>
    ) throws -> Checked<T> {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return .failure(damaged("\(path) is missing or not an object"))
        }
        return try body(&reader, path)
    }

    /// A value that must be a list: each element is read by `element` until the first refused one
    /// (the rest are only skipped); kept only when `keep`. `limit`: the most elements allowed.
    private static func list<T>(
        _ reader: inout JSONReader, _ path: String, keep: Bool, limit: (max: Int, refusal: (Int) -> BackupFileError)? = nil,
        _ element: (inout JSONReader, String) throws -> Checked<T>
    ) throws -> Listed<T> {
        var listed = Listed<T>()
        guard try reader.peek() == .array else {
            try reader.skipValue()
            listed.shape = damaged("\(path) is missing or not a list")
            return listed
        }
        var count = 0
        var more = try reader.enterArray()
        while more {
            if listed.element == nil {
                switch try element(&reader, "\(path)[\(count)]") {
                case let .success(value): if keep { listed.values.append(value) }
                case let .failure(error): listed.element = error
                }
            } else {
                try reader.skipValue()
            }
            count += 1
            more = try reader.nextElement()
        }
        if let limit, count > limit.max { listed.shape = limit.refusal(count) }
        return listed
    }

    private static func owned(_ reader: inout JSONReader, _ path: String, keep: Bool) throws -> Checked<OwnedPlaylist> {
        try object(&reader, path) { reader, path in
            var id = Scalar.absent, name = Scalar.absent, description = Scalar.absent, isPublic = Scalar.absent, collaborative = Scalar.absent
            var entries: Listed<Entry>?
            try members(&reader) { reader, key in
                if reader.key(key, is: "entries") {
                    entries = try list(
                        &reader, path + ".entries", keep: keep,
                        limit: (10_000, { damaged("\(path) holds \(OrderCost.grouped($0)) entries; Spotify allows 10,000") })
                    ) { reader, entryPath in try entry(&reader, entryPath) }
                } else if reader.key(key, is: "id") {
                    id = try Scalar.read(&reader)
                } else if reader.key(key, is: "name") {
                    name = try Scalar.read(&reader)
                } else if reader.key(key, is: "description") {
                    description = try Scalar.read(&reader)
                } else if reader.key(key, is: "public") {
                    isPublic = try Scalar.read(&reader)
                } else if reader.key(key, is: "collaborative") {
                    collaborative = try Scalar.read(&reader)
                } else {
                    return false
                }
                return true
            }
            return check {
                // The order the members are checked in: the entries' shape and count first, their content last.
                let entries = entries ?? Listed(shape: damaged("\(path).entries is missing or not a list"))
                if let shape = entries.shape { throw shape }
                let playlist = OwnedPlaylist(
                    id: try playlistID(id, path + ".id"), name: try string(name, path + ".name", max: maxNameLength),
                    description: try optionalString(description, path + ".description", max: maxDescriptionLength),
                    isPublic: try bool(isPublic, path + ".public"), collaborative: try bool(collaborative, path + ".collaborative"),
                    entries: try entries.checked.get())
                return playlist
            }
        }
    }

    private static func followed(_ reader: inout JSONReader, _ path: String) throws -> Checked<FollowedPlaylist> {
        try object(&reader, path) { reader, path in
            var id = Scalar.absent, name = Scalar.absent, owner = Scalar.absent
            try members(&reader) { reader, key in
                if reader.key(key, is: "id") {
                    id = try Scalar.read(&reader)
                } else if reader.key(key, is: "name") {
                    name = try Scalar.read(&reader)
                } else if reader.key(key, is: "owner") {
                    owner = try Scalar.read(&reader)
                } else {
                    return false
                }
                return true
            }
            return check {
                FollowedPlaylist(
                    id: try playlistID(id, path + ".id"), name: try string(name, path + ".name", max: maxNameLength),
                    owner: try optionalString(owner, path + ".owner"))
            }
        }
    }

    private static func folder(_ reader: inout JSONReader, _ path: String, keep: Bool) throws -> Checked<Folder> {
        try object(&reader, path) { reader, path in
            var name = Scalar.absent
            var ids: Listed<String>?
            try members(&reader) { reader, key in
                if reader.key(key, is: "name") {
                    name = try Scalar.read(&reader)
                } else if reader.key(key, is: "playlists") {
                    // Always kept: a folder's ids are few, and the name is checked before them.
                    ids = try list(&reader, path + ".playlists", keep: true) { reader, idPath in
                        let value = try Scalar.read(&reader)
                        return check { try playlistID(value, idPath) }
                    }
                } else {
                    return false
                }
                return true
            }
            return check {
                let text = try string(name, path + ".name", max: 200)
                guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw damaged("\(path).name is empty") }
                return Folder(name: text, playlists: try (ids ?? Listed(shape: damaged("\(path).playlists is missing or not a list"))).checked.get())
            }
        }
    }

    private static func entry(_ reader: inout JSONReader, _ path: String) throws -> Checked<Entry> {
        try object(&reader, path) { reader, path in
            var uri = Scalar.absent, addedAt = Scalar.absent, addedBy = Scalar.absent
            try members(&reader) { reader, key in
                if reader.key(key, is: "uri") {
                    uri = try Scalar.read(&reader)
                } else if reader.key(key, is: "added_at") {
                    addedAt = try Scalar.read(&reader)
                } else if reader.key(key, is: "added_by") {
                    addedBy = try Scalar.read(&reader)
                } else {
                    return false
                }
                return true
            }
            return check {
                let text = try string(uri, path + ".uri", max: maxURILength)
                guard isEntryURI(text) else { throw damaged("\(path).uri is not a track, episode or local-file URI") }
                return Entry(
                    uri: text, addedAt: try optionalString(addedAt, path + ".added_at", max: 100),
                    addedBy: try optionalString(addedBy, path + ".added_by"))
            }
        }
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

    private static func string(_ value: Scalar, _ path: String, max: Int = Backup.maxNameLength) throws -> String {
        guard case .string(let text) = value else { throw damaged("\(path) is missing or not text") }
        guard text.unicodeScalars.count <= max else { throw damaged("\(path) is longer than \(OrderCost.grouped(max)) characters") }
        return text
    }

    private static func optionalString(_ value: Scalar, _ path: String, max: Int = Backup.maxNameLength) throws -> String? {
        switch value {
        case .absent, .null: return nil
        default: return try string(value, path, max: max)
        }
    }

    private static func bool(_ value: Scalar, _ path: String) throws -> Bool {
        guard case .bool(let flag) = value else { throw damaged("\(path) is missing or not true/false") }
        return flag
    }

    private static func playlistID(_ value: Scalar, _ path: String) throws -> String {
        guard case .string(let text) = value, SpotifyID(text) != nil else { throw damaged("\(path) is not a Spotify playlist id") }
        return text
    }
}
