import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Quota: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Show the requests sent to Spotify in the last 24 h, and any wait Spotify asked for.",
            discussion: """
                Spotify gives a development-mode app a small daily request quota. Every request of \
                every timbre process of the profile is counted, by kind: sync, edit, search, player, \
                other. When Spotify asks for a wait longer than rate_limit_budget (or answers \
                QUOTA_EXCEEDED), the run ends at once and the wait is kept: until then every command \
                that would talk to Spotify says so without sending anything (exit 3 for sync, 1 for \
                others). --reset forgets that wait (after changing client_id, or when you know better). \
                --json: {"last_24h": N, "by_kind": {...}, "blocked_until": ISO|null, \
                "last_429": {"at", "retry_after", "quota"}|null}.
                """)

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        @Flag(help: "Forget the stored wait: the next command sends its requests.")
        var reset = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await QuotaCommand(json: json, reset: reset).run(invocation)
        }
    }
}
