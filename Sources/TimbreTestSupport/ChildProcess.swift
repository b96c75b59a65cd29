import Foundation

/// Test helper processes that announce themselves with one line on stdout (a port, a bus address).
public enum ChildProcess {
    public struct EarlyExit: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable`, blocks until its first stdout line, returns the process and that line.
    /// Call it off the cooperative pool (it blocks on the pipe).
    public static func startAndReadFirstLine(_ executable: String, _ arguments: [String], name: String) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw EarlyExit(description: "\(name) exited before it was ready") }
            buffer.append(chunk)
        }
        return (process, String(decoding: buffer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }
}

extension ChildProcess {
    /// Runs a program to completion with posix_spawn + waitpid on exactly that child, returning its
    /// stdout (and stderr, when `mergeStderr`) and exit status. Foundation's Process sometimes never
    /// reaped short-lived children here when many ran at once, leaving `isRunning` true forever.
    public static func run(_ argv: [String], mergeStderr: Bool = false) throws -> (output: String, status: Int32) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergeStderr {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, environ)
        guard spawned == 0 else { throw EarlyExit(description: "cannot start \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "", exitStatus)
    }
}
