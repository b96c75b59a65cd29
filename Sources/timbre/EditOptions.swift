import ArgumentParser
import TimbreApp
import TimbreCore

/// `N` or `N-M` (counting from 1, inclusive). Any whole number parses, 0 and negatives too: the
/// command says that positions count from 1 (exit 2), which a parse failure could not.
struct PositionRange: ExpressibleByArgument {
    let range: ClosedRange<Int>

    init?(argument: String) {
        if let single = Int(argument) {
            range = single...single
            return
        }
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), high >= low, high - low < 10_000 else { return nil }
        range = low...high
    }
}

/// What every edit takes. Each edit flag is declared once, in one of these groups, and the
/// groups become the `EditFlags` TimbreApp's commands take as they are.
struct EditOptions: ParsableArguments {
    @Flag(help: "Print the plan (the writes it would send); read Spotify, write nothing.")
    var dryRun = false

    @OptionGroup var output: JSONOption

    var json: Bool { output.json }
}

/// `--json` of an edit, undo and redo: the outcome as one object.
struct JSONOption: ParsableArguments {
    @Flag(help: "Print one JSON object on stdout.")
    var json = false
}

/// `--force`: an edit that names positions (or an undo, a redo), on a playlist that changed since.
struct ForceOption: ParsableArguments {
    @Flag(help: "Apply even if the playlist changed on Spotify since it was synced or edited (the same entries, found by track and occurrence).")
    var force = false
}

/// Shuffle and sort: how the new order is written.
struct OrderOptions: ParsableArguments {
    @Flag(help: "Rewrite the list in ⌈n/100⌉ requests: fewer requests, but every entry's date added becomes today.")
    var rewrite = false
}

/// `--yes`: no question first.
struct YesOption: ParsableArguments {
    @Flag(help: "Do not ask first.")
    var yes = false
}

extension EditFlags {
    init(_ options: EditOptions, force: ForceOption? = nil, order: OrderOptions? = nil, yes: YesOption? = nil) {
        self.init(dryRun: options.dryRun, json: options.json, force: force?.force ?? false, rewrite: order?.rewrite ?? false, yes: yes?.yes ?? false)
    }
}
