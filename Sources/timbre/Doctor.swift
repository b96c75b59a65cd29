import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Doctor: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Check the setup: config, client id, keyring, cache, pins, and (with --online) connectivity.",
            discussion: """
                One line per check: ok, warn or fail, with the fix. Exits 1 when any check fails. \
                --json prints {"checks": [{"name": "…", "level": "ok|warn|fail", "detail": "…", "fix": "…"}]} \
                ("fix" is empty when there is nothing to do).
                """)

        @Flag(help: "Also connect to the accounts and API hosts through the pinned transport.")
        var online = false

        @Flag(help: "Print one JSON object: every check with its name, level, detail and fix.")
        var json = false

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await DoctorCommand(online: online, json: json).run(invocation)
        }
    }
}
