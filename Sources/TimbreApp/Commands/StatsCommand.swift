import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre stats REF`: offline figures about a cached playlist (docs/CLI.md has the JSON).
public struct StatsCommand: Sendable {
    public var ref: String
    public var json: Bool

    public init(ref: String, json: Bool) {
        self.ref = ref
        self.json = json
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let reference = try invocation.playlistRef(ref)
        let context = try invocation.context()
        let stats = try context.statistics(of: reference)
        if json {
            context.console.json(stats.json)
            return .success
        }
        context.console.lines(stats.lines.map(TerminalText.sanitize))
        return .success
    }

}

extension AppContext {
    /// The figures of a cached playlist (offline); `NotCached` when the cache lacks it.
    func statistics(of reference: PlaylistRef) throws -> PlaylistStatistics.Figures {
        guard let cache = try existingCache(), let figures = try PlaylistStatistics.figures(of: reference, in: cache) else {
            throw NotCached(reference: reference)
        }
        return figures
    }
}

/// `timbre export REF [-o FILE]`: CSV in Exportify's layout (watsonbox/exportify: its 19 columns in
/// its order, artists joined by `, ` with commas in names escaped `\,`); the columns timbre does not
/// keep stay empty (docs/CLI.md lists them). Cells a spreadsheet would run as a formula are neutralised.
/// A file already at `-o FILE` is replaced only after a yes on a terminal (as the interface's
/// `:export` asks), or with `--force`; otherwise exit 2 and the file stays as it was.
public struct ExportCommand: Sendable {
    public var ref: String
    public var output: String?
    public var force: Bool

    public init(ref: String, output: String?, force: Bool = false) {
        self.ref = ref
        self.output = output
        self.force = force
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let reference = try invocation.playlistRef(ref)
        let context = try invocation.context()
        let entries = try context.cachedEntries(of: reference).entries
        guard let output, output != "-" else {
            context.console.write(PlaylistExport.csv(entries))
            return .success
        }
        if !force, Self.exists(output) {
            let console = context.console
            let absolute = output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output
            let shown = TerminalText.preview((absolute as NSString).standardizingPath, limit: 120)
            guard console.stdinIsTTY else {
                throw UsageError(
                    message: "“\(shown)” exists; nothing was written",
                    hint: "add --force to replace it, or give another file with -o")
            }
            console.writeError("“\(shown)” exists — overwrite? (y/n) ")
            guard let answer = console.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), answer == "y" || answer == "yes" else {
                // Declining is an answer: exit 0, the file as it was.
                console.say("Nothing written; “\(shown)” is as it was.")
                return .success
            }
        }
        try PlaylistExport.write(entries, to: output)
        context.console.say("Exported \(entries.count) entries to \(TerminalText.sanitize(output))")
        return .success
    }

    /// Something is at `path` (a file, a folder, or a link — dangling or not).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
