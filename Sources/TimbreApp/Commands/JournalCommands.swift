import Foundation
import TimbreCore
import TimbreLibrary

/// `timbre undo` and `timbre redo`.
public struct UndoCommand: Sendable {
    public var redo: Bool
    /// --force and --json (the others do not apply).
    public var flags: EditFlags

    public init(redo: Bool, flags: EditFlags) {
        self.redo = redo
        self.flags = flags
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let outcome: EditOutcome?
        do {
            outcome = try await context.library().perform(redo ? .redo(force: flags.force) : .undo(force: flags.force)).edit
        } catch let nothing as NothingToUndo where nothing == .noEdit || nothing == .noUndoneEdit {
            // Nothing to do is an answer, not a failure: a sentence, exit 0.
            if flags.json { context.console.json(.object([("done", .bool(false)), ("message", .string(nothing.message))])) }
            context.console.say("\(nothing.message.prefix(1).uppercased())\(nothing.message.dropFirst()); nothing was changed.")
            return .success
        }
        if let outcome { EditReport.show(outcome, json: flags.json, console: context.console) }
        return .success
    }
}

/// `timbre history`: the journal, newest first; `--abandon ID` ends an interrupted edit unfinished.
public struct HistoryCommand: Sendable {
    public var json: Bool
    public var limit: Int
    public var abandon: Int64?

    public init(json: Bool, limit: Int, abandon: Int64? = nil) {
        self.json = json
        self.limit = limit
        self.abandon = abandon
    }

    public func run(_ invocation: Invocation) async throws -> ExitStatus {
        let context = try invocation.context()
        let console = context.console
        if let abandon {
            guard FileManager.default.fileExists(atPath: context.paths.data) else {
                throw UsageError(message: "there is no edit \(abandon) in the journal (no edits yet)")
            }
            // Reads what Spotify holds to say what the edit leaves; sends no write.
            let leaves = try await context.editor().abandon(abandon)
            console.line("Abandoned edit \(abandon): nothing more of it will be sent; \(leaves).")
            return .success
        }
        guard FileManager.default.fileExists(atPath: context.paths.data) else {
            if json { console.json(.array([])) } else { console.say("no edits yet") }
            return .success
        }
        let entries = try context.userData.open().journal.history(limit: limit)
        if json {
            console.json(
                .array(
                    entries.map { entry in
                        .object([
                            ("id", .int(Int(entry.id))), ("at", .string(ClockText.iso(entry.at))), ("op", .string(entry.op.rawValue)),
                            ("playlist", .string(entry.playlist?.description ?? "")), ("summary", .string(entry.summary)),
                            ("state", .string(Self.state(entry))),
                            ("reason", .optional(entry.reason ?? entry.told)),
                        ])
                    }))
        } else {
            console.lines(
                entries.map { entry in
                    var line =
                        "\(String(entry.id).leftPadded(to: 5))  \(ClockText.localDateTime(entry.at))  \(Self.state(entry).padding(toLength: 11, withPad: " ", startingAt: 0)) \(TerminalText.sanitize(entry.summary))"
                    if entry.state == .running, let told = entry.told {
                        line += " — \(TerminalText.sanitize(told)) (`timbre history --abandon \(entry.id)` drops it)"
                    } else if entry.state == .running {
                        line += " — finished by the next sync or edit (`timbre history --abandon \(entry.id)` drops it)"
                    } else if entry.state == .failed, let reason = entry.reason {
                        line += " — \(TerminalText.sanitize(reason))"
                    }
                    return line
                })
        }
        return .success
    }

    /// `running` in the journal is an edit whose process stopped: `interrupted` until a command finishes it.
    static func state(_ entry: EditJournal.Entry) -> String {
        entry.state == .running ? "interrupted" : entry.state.rawValue
    }
}
