import Foundation

/// Starts programs with a clean signal state. A child started from Swift's task pool otherwise
/// inherits that thread's blocked signal mask (SIGINT, SIGTERM, SIGHUP, SIGCHLD… are blocked on
/// the pool's threads) and keeps it across `exec`: it can be neither interrupted nor terminated,
/// and a tmux server started that way ignored `kill-server`. Foundation's `Process` passes the mask
/// on: use this for programs started from async code (the browser). `Process` stays where a pipe
/// is needed and the caller is on the main thread (the demo's sandbox).
public enum Spawn {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `argv` (`argv[0]` a path) with every signal unblocked and at its default action,
    /// stdin from /dev/null, stdout to `stdoutPath` (or /dev/null), stderr to /dev/null or, with
    /// `mergeStderr`, to stdout. Returns the child's pid; the caller reaps it (`wait`).
    public static func start(_ argv: [String], stdoutPath: String? = nil, mergeStderr: Bool = false) throws(Failure) -> pid_t {
        guard let program = argv.first else { throw Failure(description: "nothing to start") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergeStderr {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, &attributes, &arguments, environ)
        guard status == 0 else { throw Failure(description: "cannot start \(program): \(String(cString: strerror(status)))") }
        return pid
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Reaps the child on a thread of its own, for programs nobody waits for (a browser).
    public static func reapWhenDone(_ pid: pid_t) {
        Thread.detachNewThread { _ = wait(pid) }
    }
}
