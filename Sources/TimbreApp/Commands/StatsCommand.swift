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
public struct ExportCommand: Sendable {
    public var ref: String
    public var output: String?

    public init(ref: String, output: String?) {
        self.ref = ref
        self.output = output
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let reference = try invocation.playlistRef(ref)
        let context = try invocation.context()
        let entries = try context.cachedEntries(of: reference).entries
        guard let output, output != "-" else {
            context.console.write(PlaylistExport.csv(entries))
            return .success
        }
        try PlaylistExport.write(entries, to: output)
        context.console.say("Exported \(entries.count) entries to \(TerminalText.sanitize(output))")
        return .success
    }
}
