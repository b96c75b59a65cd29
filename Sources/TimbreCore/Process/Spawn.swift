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
    /// stdin from `stdinPath` (or /dev/null), stdout to `stdoutPath` (or /dev/null), stderr to
    /// `stderrPath`, or with `mergeStderr` to stdout, or to /dev/null. Returns the child's pid; the
    /// caller reaps it (`wait`). The child gets no descriptor beyond 0-2, and `environment` when
    /// given (else this process's; pass `childEnvironment(…)` for programs that are not timbre's own).
    public static func start(
        _ argv: [String], stdinPath: String? = nil, stdoutPath: String? = nil, stderrPath: String? = nil, mergeStderr: Bool = false,
        environment: [String: String]? = nil
    ) throws(Failure) -> pid_t {
        guard let program = argv.first else { throw Failure(description: "nothing to start") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergeStderr {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else if let stderrPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // Descriptors opened without close-on-exec elsewhere in the process (curl's socketpair, a
        // library's) must not reach a browser. Closing one that is gone by now is not an error.
        for fd in openDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
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
        var environmentStrings = (environment ?? [:]).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environmentStrings.forEach { free($0) } }
        var pid: pid_t = 0
        let status =
            environment == nil
            ? posix_spawn(&pid, program, &actions, &attributes, &arguments, environ)
            : posix_spawn(&pid, program, &actions, &attributes, &arguments, &environmentStrings)
        guard status == 0 else { throw Failure(description: "cannot start \(program): \(String(cString: strerror(status)))") }
        return pid
    }

    /// What a child of timbre may see of its environment: everything but timbre's own variables
    /// (`TIMBRE_REFRESH_TOKEN` is a credential, the rest are none of a browser's business) and
    /// anything named like a secret. DISPLAY, WAYLAND_DISPLAY, XDG_*, HOME, PATH, LANG, LC_*,
    /// DBUS_SESSION_BUS_ADDRESS and BROWSER pass, so a browser still finds the session.
    public static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { key, _ in
            let upper = key.uppercased()
            if upper.hasPrefix("TIMBRE_") { return false }
            return !["TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "API_KEY", "PRIVATE_KEY"].contains { upper.contains($0) }
        }
    }

    /// The descriptors open in this process now, from /proc/self/fd.
    static func openDescriptors() -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap { Int32($0) }
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return decoded(status)
    }

    /// The child's exit status (as `wait` gives it) once it has ended, reaping it; nil while it runs.
    public static func ended(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, WNOHANG) } while result == -1 && errno == EINTR
        guard result == pid else { return nil }
        return decoded(status)
    }

    /// A raw wait status as a shell says it: the exit status, or 128 + the signal that ended it.
    private static func decoded(_ status: Int32) -> Int32 {
        (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Reaps the child on a thread of its own, for programs nobody waits for (a browser).
    public static func reapWhenDone(_ pid: pid_t) {
        Thread.detachNewThread { _ = wait(pid) }
    }
}
