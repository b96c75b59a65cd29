import Foundation

/// What the kernel says a process holds on files (Linux `/proc`): the POSIX locks SQLite takes
/// (`/proc/locks`) and the descriptors it has open (`/proc/PID/fd`). A connection in WAL mode
/// holds a read lock on its database and one on its `-shm` for as long as it is open; a process
/// that lost them lets another process delete the `-wal` under it.
public enum ProcessFiles {
    /// The POSIX (fcntl) locks `pid` holds on the file at `path` (matched by inode); empty when it
    /// holds none or the file is missing.
    public static func posixLocks(pid: Int32, on path: String) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
        let inode = String(info.st_ino)
        // The leading ordinal ("12:") is /proc/locks' row number, which moves as other locks come and
        // go: it is dropped, so two readings of the same locks compare equal.
        return text.split(separator: "\n").map(String.init).filter { line in
            // "12: POSIX  ADVISORY  READ 4242 08:01:1234567 1073741826 1073742335"; waiters start with "->".
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let kind = fields.firstIndex(of: "POSIX"), fields.count > kind + 4, !fields.contains("->") else { return false }
            return fields[kind + 3] == String(pid) && fields[kind + 4].split(separator: ":").last.map(String.init) == inode
        }.map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).drop { !$0.hasPrefix("POSIX") }.joined(separator: " ")
        }
    }

    /// The targets of `pid`'s open descriptors (`/proc/PID/fd`), e.g. "/…/library.sqlite-wal (deleted)".
    public static func openFiles(pid: Int32) -> [String] {
        let folder = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0) }
    }

    /// The children of `pid` (from each process's `/proc/N/stat`).
    public static func children(of pid: Int32) -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { name -> Int32? in
            guard let child = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8) else { return nil }
            // "pid (comm) state ppid …": comm may hold spaces and parentheses; the last ")" ends it.
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let rest = stat[stat.index(after: close)...].split(separator: " ")
            return rest.count > 1 && Int32(rest[1]) == pid ? child : nil
        }
    }

    /// The path `pid` runs (`/proc/PID/exe`).
    public static func executable(pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }
}
