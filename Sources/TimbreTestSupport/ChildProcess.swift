import Foundation
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

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
            let chunk = out.fileHandleForReading.readSome()
            guard !chunk.isEmpty else { throw EarlyExit(description: "\(name) exited before it was ready") }
            buffer.append(chunk)
        }
        return (process, String(decoding: buffer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }
}

extension FileHandle {
    /// What is there to read (empty at the end), read(2) by hand: Foundation's `availableData`
    /// stops the whole test process with a fatal error when a signal interrupts the read (EINTR),
    /// which a loaded machine running many children makes likely. A read that fails for any
    /// other reason is the end.
    public func readSome(upTo count: Int = 65_536) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        while true {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, count) }
            if got >= 0 { return Data(bytes.prefix(got)) }
            if errno != EINTR { return Data() }
        }
    }
}

extension ChildProcess {
    /// Runs a program to completion with posix_spawn + waitpid on exactly that child, returning its
    /// stdout (and stderr, when `mergeStderr`) and exit status. Foundation's Process sometimes never
    /// reaped short-lived children here when many ran at once, leaving `isRunning` true forever.
    public static func run(_ argv: [String], mergeStderr: Bool = false) throws -> (output: String, status: Int32) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        defer { unlink(output) }
        let pid: pid_t
        do { pid = try Spawn.start(argv, stdoutPath: output, mergeStderr: mergeStderr) } catch { throw EarlyExit(description: error.description) }
        let status = Spawn.wait(pid)
        return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "", status)
    }
}

extension ChildProcess {
    /// `run` on a thread of its own, awaited (`offThePool`): tmux polled every few tens of ms,
    /// curl and the like must not hold the runner's cooperative threads in waitpid.
    public static func runOffPool(_ argv: [String], mergeStderr: Bool = false) async throws -> (output: String, status: Int32) {
        try await offThePool { try run(argv, mergeStderr: mergeStderr) }
    }
}

extension Process {
    /// Whether the child has ended, asked of the kernel as well as of Foundation, without reaping
    /// it (Foundation still does). On Linux Foundation learns of an exit when a socket the child
    /// inherited closes, and a process another test starts at the same moment can inherit that
    /// socket too (swift-corelibs-foundation #4795): `isRunning` then stays true for as long as
    /// that other process lives. Loops that wait for a child to end use this.
    public var hasEnded: Bool { endedStatus != nil }

    /// The exit status once the child has ended — or 128 + the signal that ended it, as a shell
    /// says it (Foundation's `terminationStatus` gives the bare signal) — nil while it runs.
    public var endedStatus: Int32? {
        guard processIdentifier > 0 else { return nil }
        if !isRunning { return terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
            info._sifields._sigchld.si_pid == processIdentifier
        else { return nil }
        let code = info.si_code
        let value = info._sifields._sigchld.si_status
        // CLD_EXITED (1): si_status is the exit status; CLD_KILLED (2) or CLD_DUMPED (3): the signal.
        return code == 1 ? value : 128 + value
    }
}
