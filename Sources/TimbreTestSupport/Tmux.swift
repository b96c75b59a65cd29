import Foundation
import Testing

/// The interface driven in tmux: one server per test on a socket of its own, commands run off the
/// cooperative pool, and `waitFor`, the one wait every tmux test reads a screen through (the text
/// present and the capture unchanged over two reads `settle` apart).
public final class Tmux: @unchecked Sendable {
    public let socket = "timbre-test-\(UUID().uuidString.prefix(8))"
    /// Captures join lines the terminal wrapped (`capture-pane -J`): a shell's long command line
    /// reads as one.
    let joinsWrappedLines: Bool
    /// How long `waitUntil` waits when not told (a hang guard, not a speed bound).
    let patience: Duration

    public init(joinsWrappedLines: Bool = false, patience: Duration = .seconds(60)) {
        self.joinsWrappedLines = joinsWrappedLines
        self.patience = patience
    }

    /// One tmux command, run off the cooperative pool (`ChildProcess.runOffPool`).
    public func run(_ arguments: [String]) async throws -> String {
        try await ChildProcess.runOffPool(["/usr/bin/tmux", "-L", socket] + arguments).output
    }

    public func screen() async throws -> String { try await run(["capture-pane", "-p"] + (joinsWrappedLines ? ["-J"] : [])) }
    public func keys(_ keys: String...) async throws { _ = try await run(["send-keys"] + keys) }
    public func type(_ text: String) async throws { _ = try await run(["send-keys", "-l", text]) }
    public func title() async throws -> String {
        try await run(["display-message", "-p", "#{pane_title}"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    /// Ends the server and waits until it is gone (a new session started meanwhile would join
    /// the dying server and vanish with it).
    public func kill() async {
        _ = try? await run(["kill-server"])
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline,
            (try? await ChildProcess.runOffPool(["/usr/bin/tmux", "-L", socket, "list-sessions"]).status) == 0
        {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Starts the real `timbre` (no arguments: the interface) in a new session, with `cli`'s
    /// homes and sign-in; returns the file its exit status is written to when it ends.
    /// `arguments`: what `timbre` is given (none: the interface; `demo --library small`).
    public func startTimbre(_ cli: TimbreCLI, columns: Int, rows: Int, arguments: [String] = []) async throws -> String {
        let bin = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
        var env = ["LANG=C.UTF-8", "TERM=tmux-256color"]
        for key in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "TIMBRE_REFRESH_TOKEN", "HOME", "PATH"] {
            if let value = cli.environment[key] { env.append("\(key)=\(value)") }
        }
        let marker = cli.home.appendingPathComponent("exit-status").path
        let command =
            "env " + env.map { "'\($0)'" }.joined(separator: " ") + " " + ([bin] + arguments).map { "'\($0)'" }.joined(separator: " ")
            + "; echo $? > '\(marker)'; sleep 60"
        _ = try await run(["new-session", "-d", "-x", String(columns), "-y", String(rows), command])
        return marker
    }

    /// Waits until the screen contains `text` AND has settled: two captures `settle` apart are
    /// the same. The first capture holding the text may be a frame tmux is still being sent
    /// (an overlay's header drawn, its lines not yet), so it is never the one returned.
    /// `settled: false` is for a screen that keeps changing while the text is there (a progress
    /// line counting writes): the first capture holding the text is returned.
    public func waitFor(_ text: String, timeout: Duration? = nil, settled: Bool = true) async throws -> String {
        try await waitUntil("“\(text)”", timeout: timeout, settled: settled) { $0.contains(text) }
    }

    /// `waitFor` with a condition of the caller's: the screen once `done` holds for it and it stayed
    /// the same across two captures `settle` apart; records an issue naming `what` at the deadline.
    public func waitUntil(
        _ what: String, timeout: Duration? = nil, settled: Bool = true, _ done: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + (timeout ?? patience)
        var last = ""
        while ContinuousClock.now < deadline {
            last = try await screen()
            if done(last), !settled { return last }
            if done(last) {
                try await Task.sleep(for: Self.settle)
                let again = try await screen()
                if again == last { return again }
                // Still drawing: look again at once.
                continue
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the screen never showed \(what)\(settled ? " (settled)" : ""):\n\(last)")
        return last
    }

    /// How long a screen must stay the same to count as drawn.
    public static let settle: Duration = .milliseconds(60)

    /// The exit status the interface wrote to `marker` when it ended (`startTimbre`); nil while it
    /// still runs after `seconds`.
    public static func exitStatus(_ marker: String, within seconds: Int = 60) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            // The shell creates the file before it writes the status: an empty read is "not yet".
            if let text = try? String(contentsOfFile: marker, encoding: .utf8), !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
