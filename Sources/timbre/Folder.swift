import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Folder: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Local folders of playlists (Timor's): kept on this machine; Spotify has no folders.",
            subcommands: [Create.self, Rename.self, Delete.self, Add.self, Remove.self, List.self])

        struct Create: Runnable {
            static let configuration = CommandConfiguration(abstract: "Create a folder.")
            @Argument(help: "The name.") var name: String
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .create(name)).run(invocation) }
        }

        struct Rename: Runnable {
            static let configuration = CommandConfiguration(abstract: "Rename a folder.")
            @Argument(help: "The folder.", completion: .folders) var name: String
            @Argument(help: "Its new name.") var new: String
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .rename(name, to: new)).run(invocation) }
        }

        struct Delete: Runnable {
            static let configuration = CommandConfiguration(abstract: "Delete a folder (its playlists stay in your library).")
            @Argument(help: "The folder.", completion: .folders) var name: String
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .delete(name)).run(invocation) }
        }

        struct Add: Runnable {
            static let configuration = CommandConfiguration(
                abstract: "Put playlists in a folder (out of any other); NAME is matched ignoring case, `folder create` makes a new one.")
            @Argument(help: "The folder.", completion: .folders) var name: String
            @Argument(help: "Playlists: names, IDs, URIs or links.", completion: .playlists) var refs: [String]
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .add(name, refs: refs)).run(invocation) }
        }

        struct Remove: Runnable {
            static let configuration = CommandConfiguration(abstract: "Take playlists out of a folder.")
            @Argument(help: "The folder.", completion: .folders) var name: String
            @Argument(help: "Playlists: names, IDs, URIs or links.", completion: .playlists) var refs: [String]
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .remove(name, refs: refs)).run(invocation) }
        }

        struct List: Runnable {
            static let configuration = CommandConfiguration(abstract: "The folders and their playlists.")
            @Flag(help: "Print a JSON array.") var json = false
            func run(_ invocation: Invocation) async throws -> ExitStatus { try await FolderCommand(action: .list(json: json)).run(invocation) }
        }
    }
}
