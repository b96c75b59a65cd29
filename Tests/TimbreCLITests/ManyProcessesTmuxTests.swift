import Foundation
import Testing
import TimbreTestSupport

/// Many processes, one profile (#40): the interface open while `timbre sync` and CLI edits run in
/// other processes. Each process holds one cache pool, and no timbre code opens and closes a
/// database file beside a connection — which on Linux drops the process's POSIX locks on it and
/// lets another process delete the `-wal` under the interface.
@Suite(.serialized, .tags(.integration), .integrationTier) struct ManyProcessesTmuxTests {

    struct Files {
        let cache: String
        let data: String
    }

    func parse(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// Where this CLI's profile keeps its cache and user data (`timbre paths --json`).
    func files(_ cli: TimbreCLI) async throws -> Files {
        let result = try await cli.run(["paths", "--json"])
        let object = try #require(parse(result.stdout) as? [String: Any], "\(result.stdout)\(result.stderr)")
        return Files(cache: try #require(object["cache"] as? String), data: try #require(object["data"] as? String))
    }

    /// The interface's process: the `timbre` child of the pane's shell.
    func interfacePID(_ tmux: Tmux) async throws -> Int32 {
        let pane = try #require(Int32(try await tmux.run(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let pid = ProcessFiles.children(of: pane).first(where: { ProcessFiles.executable(pid: $0)?.hasSuffix("/timbre") == true }) {
                return pid
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CancellationError()
    }

    /// The screen once it shows `text` and two captures 50 ms apart are the same.
    func settled(_ tmux: Tmux, _ text: String) async throws -> String {
        var screen = try await tmux.waitFor(text)
        while true {
            try await Task.sleep(for: .milliseconds(50))
            let next = try await tmux.screen()
            if next == screen, next.contains(text) { return next }
            screen = next.contains(text) ? next : try await tmux.waitFor(text)
        }
    }

    /// The database files `pid` holds a descriptor of after another process deleted them.
    func deletedDatabaseFiles(_ pid: Int32, _ files: Files) -> [String] {
        ProcessFiles.openFiles(pid: pid).filter { target in
            target.hasSuffix("(deleted)") && (target.hasPrefix(files.cache) || target.hasPrefix(files.data))
        }
    }

    /// The URIs `timbre tracks REF --json` lists from the cache.
    func cachedURIs(_ cli: TimbreCLI, _ ref: String) async throws -> [String] {
        let result = try await cli.run(["tracks", ref, "--json"])
        #expect(result.status == 0, "tracks \(ref): \(result.stderr)")
        return (parse(result.stdout) as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
    }

    /// Waits until the sandbox holds `expected` for `id` (an edit another process sent); the list
    /// it holds last.
    func sandboxReaches(_ sandbox: SandboxProcess, _ id: String, _ expected: [String]) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(60)
        var entries = try await sandbox.entries(of: id)
        while entries != expected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            entries = try await sandbox.entries(of: id)
        }
        return entries
    }

    /// SQLite's own shell's verdict on a database, once no timbre process has it open.
    func integrity(_ path: String) throws -> String {
        try ChildProcess.run(["/usr/bin/sqlite3", "-readonly", path, "PRAGMA integrity_check"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The interface holds its locks on the cache (a read lock on the database and on the `-shm`,
    /// as any WAL connection does); a `timbre tracks` in another process then leaves the `-wal` in
    /// place, and the interface's edit is what the CLI reads next.
    @Test func theInterfaceKeepsItsLocksAndItsWALThroughACLIRead() async throws {
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let files = try await files(cli)
            let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await settled(tmux, "synced")
            let pid = try await interfacePID(tmux)
            #expect(!ProcessFiles.posixLocks(pid: pid, on: files.cache).isEmpty, "the interface holds no lock on \(files.cache)")
            #expect(!ProcessFiles.posixLocks(pid: pid, on: files.cache + "-shm").isEmpty, "the interface holds no lock on the -shm")

            let read = try await cli.run(["tracks", "Morning Coffee"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(FileManager.default.fileExists(atPath: files.cache + "-wal"), "a CLI read deleted the -wal under the interface")
            #expect(deletedDatabaseFiles(pid, files).isEmpty, "\(ProcessFiles.openFiles(pid: pid))")
            #expect(!ProcessFiles.posixLocks(pid: pid, on: files.cache).isEmpty)

            // The interface's move, then the CLI's: each sees the other's without a sync.
            let coffee = try await s.id(of: "Morning Coffee")
            try await s.open("Morning Coffee")
            let before = try await sandbox.entries(of: coffee)
            try await tmux.keys("g", "J")
            _ = try await settled(tmux, "Moved")
            var moved = before
            moved.insert(moved.removeFirst(), at: 1)
            #expect(try await sandboxReaches(sandbox, coffee, moved) == moved)
            #expect(try await cachedURIs(cli, coffee) == moved.filter { !$0.isEmpty }, "the CLI reads the interface's edit")
            let back = try await cli.run(["playlist", "move", coffee, "--position", "2", "--to", "1"])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(try await sandbox.entries(of: coffee) == before)
            // The edit opened the user data (its journal) in both processes.
            #expect(FileManager.default.fileExists(atPath: files.data))
            #expect(FileManager.default.fileExists(atPath: files.cache + "-wal"))
            #expect(deletedDatabaseFiles(pid, files).isEmpty, "\(ProcessFiles.openFiles(pid: pid))")
            #expect(!ProcessFiles.posixLocks(pid: pid, on: files.cache).isEmpty)

            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
            #expect(try integrity(files.cache) == "ok")
            #expect(try integrity(files.data) == "ok")
        }
    }

    /// The interface moving an entry each round, `timbre sync` each round and CLI edits (add, move)
    /// of two other playlists: every edit lands on the sandbox, the cache agrees with it after a
    /// last sync, the interface never holds a deleted database file, and both databases pass
    /// `PRAGMA integrity_check` once every process has ended. `TIMBRE_SOAK_ROUNDS` (default 6)
    /// runs a longer soak by hand.
    @Test func theInterfaceSyncsAndCLIEditsTogetherLeaveBothDatabasesSound() async throws {
        let rounds = ProcessInfo.processInfo.environment["TIMBRE_SOAK_ROUNDS"].flatMap { Int($0) }.map { max(1, $0) } ?? 6
        try await InterfaceSession.withSyncedSandbox(.small) { sandbox, cli, tmux in
            let files = try await files(cli)
            let s = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            let coffee = try await s.id(of: "Morning Coffee")
            let pool = try await sandbox.entries(of: coffee).filter { $0.hasPrefix("spotify:track:") }
            try #require(pool.count >= 8)
            // Two playlists of the CLI's own, five entries each.
            var others: [(id: String, expected: [String])] = []
            for name in ["Soak A", "Soak B"] {
                let created = try await cli.run(["playlist", "create", name])
                let id = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(created.status == 0 && id.count == 22, "\(created.stderr)")
                let seed = Array(pool.prefix(5))
                #expect(try await cli.run(["playlist", "add", id] + seed).status == 0)
                others.append((id, seed))
            }

            let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            _ = try await settled(tmux, "synced")
            let pid = try await interfacePID(tmux)
            try await s.open("Morning Coffee")
            try await tmux.keys("g")
            var coffeeExpected = try await sandbox.entries(of: coffee)
            // The entry the interface moves: down to the end, then back up.
            var position = 0, step = 1
            var edits = 0, syncs = 0
            for round in 0..<rounds {
                if position + step < 0 || position + step >= coffeeExpected.count { step = -step }
                try await tmux.keys(step > 0 ? "J" : "K")
                coffeeExpected.swapAt(position, position + step)
                position += step
                edits += 1

                let sync = try await cli.run(["sync", "--quiet"])
                #expect(sync.status == 0, "round \(round): sync: \(sync.stderr)")
                syncs += 1

                let index = round % others.count
                let uri = pool[(round + 5) % pool.count]
                let add = try await cli.run(["playlist", "add", others[index].id, uri])
                #expect(add.status == 0, "round \(round): add: \(add.stderr)")
                others[index].expected.append(uri)
                let move = try await cli.run(["playlist", "move", others[index].id, "--position", "1", "--to", "3"])
                #expect(move.status == 0, "round \(round): move: \(move.stderr)")
                others[index].expected.insert(others[index].expected.removeFirst(), at: 2)
                edits += 2

                // Every edit on the sandbox; the interface's files all still there.
                #expect(try await sandboxReaches(sandbox, coffee, coffeeExpected) == coffeeExpected, "round \(round): the interface's move")
                for other in others { #expect(try await sandbox.entries(of: other.id) == other.expected, "round \(round)") }
                #expect(FileManager.default.fileExists(atPath: files.cache + "-wal"), "round \(round): the -wal was deleted under the interface")
                #expect(deletedDatabaseFiles(pid, files).isEmpty, "round \(round): \(ProcessFiles.openFiles(pid: pid))")
                #expect(!ProcessFiles.posixLocks(pid: pid, on: files.cache).isEmpty, "round \(round): the interface lost its locks")
            }

            let last = try await cli.run(["sync", "--quiet"])
            #expect(last.status == 0, "\(last.stderr)")
            for id in [coffee] + others.map(\.id) {
                let server = try await sandbox.entries(of: id).filter { !$0.isEmpty }
                #expect(try await cachedURIs(cli, id) == server, "the cache of \(id) after the last sync")
            }
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
            let verdicts = (cache: try integrity(files.cache), data: try integrity(files.data))
            #expect(verdicts.cache == "ok")
            #expect(verdicts.data == "ok")
            print(
                "soak: \(rounds) rounds, \(edits) edits (\(rounds) in the interface), \(syncs + 1) CLI syncs; integrity: cache \(verdicts.cache), user data \(verdicts.data)"
            )
        }
    }
}
