import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre folder …`: local folders of playlists (Timor's), in the user-data database.
public struct FolderCommand: Sendable {
    public enum Action: Sendable {
        case create(String)
        case rename(String, to: String)
        case delete(String)
        case add(String, refs: [String])
        case remove(String, refs: [String])
        case list(json: Bool)
    }

    public var action: Action

    public init(action: Action) { self.action = action }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let paths = invocation.paths
        let console = invocation.console
        if case .list(let json) = action, !FileManager.default.fileExists(atPath: paths.data) {
            if json { console.json(.array([])) } else { console.say("no folders yet — `timbre folder create NAME`") }
            return .success
        }
        let change: FolderEdit
        switch action {
        case .create(let name): change = .create(name)
        case .rename(let name, let new): change = .rename(name, to: new)
        case .delete(let name): change = .delete(name)
        case .add(let name, let refs): change = .add(playlistIDs: try Self.ids(refs, invocation), to: name, createMissing: false)
        case .remove(let name, let refs): change = .remove(playlistIDs: try Self.ids(refs, invocation), from: name)
        case .list(let json):
            let all = try UserData(path: paths.data).folders.list()
            let names =
                try invocation.context().existingCache().map { cache in
                    Dictionary(try cache.playlists().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
                } ?? [:]
            if json {
                console.json(
                    .array(
                        all.map { folder in
                            .object([
                                ("name", .string(folder.name)), ("expanded", .bool(folder.expanded)),
                                ("playlists", .array(folder.playlists.map { .object([("id", .string($0)), ("name", .optional(names[$0]))]) })),
                            ])
                        }))
            } else {
                var lines: [String] = []
                for folder in all {
                    lines.append("\(folder.expanded ? "▾" : "▸") \(folder.name) (\(folder.playlists.count))")
                    lines += folder.playlists.map { "    \($0)  \(names[$0] ?? "(not in the cache)")" }
                }
                console.lines(lines.map(TerminalText.sanitize))
            }
            return .success
        }
        // Local: no config.toml, no sign-in (the editor is made only for changes sent to Spotify).
        let userData = try UserData(path: paths.data)
        let library = Library(folders: { userData.folders }, editor: { try await invocation.context().editor() })
        _ = try await library.perform(.folder(change))
        return .success
    }

    static func ids(_ refs: [String], _ invocation: Invocation) throws -> [String] {
        guard !refs.isEmpty else { throw UsageError(message: "name at least one playlist") }
        return try refs.map { ref in
            guard case .playlist(let id) = try invocation.playlistRef(ref) else { throw UsageError(message: "Liked Songs cannot go in a folder") }
            return id.rawValue
        }
    }
}
