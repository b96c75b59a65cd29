import Foundation

/// Who can change timbre's files. config.toml decides which certificates timbre trusts (`ca_file`)
/// and which keys it pins, so — as ssh does for ~/.ssh — a config that another user could have
/// written is refused rather than read.
public enum FilePermissions {
    /// The problem with `path` when someone other than this user (or root) could write it
    /// (`lstat`: a link itself is judged by its owner only; `readTrustedConfig` checks what a
    /// link leads to).
    public static func writableByOthers(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFLNK {
            return isOthers(info.st_uid) ? "\(path) belongs to another user (uid \(info.st_uid))" : nil
        }
        return problem(info, path, folderMayBeSticky: false)?.problem
    }

    /// Reads config.toml — nil when there is none — refusing it unless the file actually opened
    /// (through any links: `fstat` of the open descriptor) and every folder on the way to it, by
    /// the path as given and by the path the links lead to, are writable by this user or root
    /// alone. A shared folder with the sticky bit (/tmp) is fine: others cannot replace what is in it.
    public static func readTrustedConfig(_ path: String, limit: Int = 1 << 20) throws(ConfigError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw ConfigError(path: path, detail: "cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError(path: path, detail: "is not a regular file")
        }
        let real = realPath(path) ?? path
        var linkInfo = stat()
        let isLink = lstat(path, &linkInfo) == 0 && linkInfo.st_mode & S_IFMT == S_IFLNK
        let shown = isLink ? "\(path) (a link to \(real))" : path
        if let found = problem(info, real, folderMayBeSticky: false) {
            throw untrusted(path, shown: shown, found)
        }
        var seen = Set<String>()
        for folder in ancestors(of: real) + ancestors(of: absolute(path)) where seen.insert(folder).inserted {
            var folderInfo = stat()
            guard stat(folder, &folderInfo) == 0 else { continue }
            if let found = problem(folderInfo, folder, folderMayBeSticky: true) { throw untrusted(path, shown: shown, found) }
        }
        guard let data = BoundedRead.descriptor(fd, limit: limit) else {
            throw ConfigError(path: path, detail: "cannot be read, or is over \(limit >> 20) MB: not a config file")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ConfigError(path: path, detail: "is not UTF-8 text") }
        return text
    }

    /// Refuses a config file that others could have written, or that sits in such a folder.
    public static func requireSafeConfig(_ path: String) throws(ConfigError) {
        _ = try readTrustedConfig(path)
    }

    /// For a file timbre writes in place (a SQLite database and its side files): nothing there,
    /// or a regular file of this user's. A link is refused, not followed — it would make timbre
    /// write its tables into (and `chmod`) whatever file it names — as the log, lock and
    /// credentials already refuse one.
    public static func requireOwnFile(_ path: String) throws(UnsafeFileError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            let target = realPath(path).map { " to \($0)" } ?? ""
            throw UnsafeFileError(path: path, problem: "it is a symbolic link\(target)", fix: "remove the link (`rm \(path)`); timbre makes its own file there")
        case S_IFREG:
            guard info.st_uid == geteuid() else {
                throw UnsafeFileError(
                    path: path, problem: "it belongs to another user (uid \(info.st_uid))",
                    fix: "move it away (`mv \(path) \(path).other`), or make it yours: `chown \(userName()) \(path)` as root")
            }
        default:
            throw UnsafeFileError(path: path, problem: "it is not a regular file", fix: "move it away (`mv \(path) \(path).other`)")
        }
    }

    /// `chmod 0600` by path, when `path` is a regular file of this user's (`lstat`: a link is left
    /// alone). It opens no descriptor: on Linux closing *any* descriptor of a file drops every POSIX
    /// lock the process holds on it, so a descriptor opened and closed beside an SQLite connection
    /// would drop that connection's locks, and another process would then delete the `-wal` under
    /// it. (The folders these files live in are this user's 0700 ones: no one else can swap the
    /// file for a link between the `lstat` and the `chmod`.)
    public static func makePrivate(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return }
        if info.st_mode & 0o777 != 0o600 { _ = chmod(path, 0o600) }
    }

    /// Creates `path` empty with mode 0600 when nothing is there (`O_EXCL`, not following a link);
    /// an existing file is left as it is. The descriptor opened is that of a file that did not
    /// exist a moment before, so no connection of this process can hold it: this is how a
    /// database is made private before SQLite's first connection (SQLite then creates its `-wal`,
    /// `-shm` and `-journal` with the database's own mode, whatever the umask).
    public static func createPrivate(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0o600)
        guard fd >= 0 else { return }
        // The umask cannot widen 0600; this only narrows a stray mode (fchmod on a fresh file).
        _ = fchmod(fd, 0o600)
        close(fd)
    }

    /// A folder timbre writes files into that others could use to swap them (the recording
    /// folder): it must be this user's own, not a link, and writable by no one else.
    public static func requirePrivateFolder(_ path: String) -> (problem: String, fix: String)? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            return errno == ELOOP || errno == ENOTDIR
                ? ("it is a symbolic link or not a folder", "use a folder of your own, e.g. `mkdir -m 700 ~/timbre-rec`")
                : ("it cannot be opened (\(String(cString: strerror(errno))))", "use a folder of your own, e.g. `mkdir -m 700 ~/timbre-rec`")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return ("it cannot be examined", "use a folder of your own") }
        if info.st_uid != geteuid() {
            return ("it belongs to another user (uid \(info.st_uid))", "use a folder of your own, e.g. `mkdir -m 700 ~/timbre-rec`")
        }
        if info.st_mode & 0o022 != 0 {
            return ("other users can write it (mode \(String(info.st_mode & 0o7777, radix: 8)))", "run `chmod go-w \(path)`, or use a folder of your own")
        }
        return nil
    }

    /// Folders of timbre's that other users can enter, read or write, with the command that fixes
    /// each (`timbre doctor`).
    public static func looseDirectories(_ paths: Paths) -> [(path: String, fix: String)] {
        let folders = [paths.config, paths.cache, paths.log, paths.credentials, paths.data].map { ($0 as NSString).deletingLastPathComponent }
        var seen = Set<String>()
        return folders.compactMap { folder in
            guard seen.insert(folder).inserted else { return nil }
            var info = stat()
            guard stat(folder, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
            return (folder, "chmod go-rwx \(folder)")
        }
    }

    // MARK: - Helpers

    private static func isOthers(_ uid: uid_t) -> Bool { uid != geteuid() && uid != 0 }

    /// Another user owns it, or group or others may write it (a folder with the sticky bit
    /// excepted when `folderMayBeSticky`); with the command that fixes it.
    private static func problem(_ info: stat, _ path: String, folderMayBeSticky: Bool) -> (problem: String, fix: String)? {
        if isOthers(info.st_uid) {
            return ("\(path) belongs to another user (uid \(info.st_uid))", "make it yours (`chown \(userName()) \(path)` as root) or use a config of your own")
        }
        let isFolder = info.st_mode & S_IFMT == S_IFDIR
        if info.st_mode & 0o022 != 0, !(folderMayBeSticky && isFolder && info.st_mode & S_ISVTX != 0) {
            return ("\(path) can be written by other users (mode \(String(info.st_mode & 0o7777, radix: 8)))", "run `chmod go-w \(path)`")
        }
        return nil
    }

    private static func untrusted(_ path: String, shown: String, _ found: (problem: String, fix: String)) -> ConfigError {
        ConfigError(
            path: shown, detail: "is not trusted: \(found.problem), and the config decides which certificates timbre trusts — \(found.fix), then try again")
    }

    /// The path made absolute, `.` and `..` removed by the text alone: links are not resolved
    /// (Foundation's `standardizingPath` would), so the folders a link sits in are checked too.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Every folder above `path`, nearest first, up to `/`.
    private static func ancestors(of path: String) -> [String] {
        var folders: [String] = []
        var current = (path as NSString).deletingLastPathComponent
        while !current.isEmpty {
            folders.append(current)
            if current == "/" { break }
            current = (current as NSString).deletingLastPathComponent
        }
        return folders
    }

    static func userName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "\(geteuid())" }
        return String(cString: name)
    }
}

/// A file timbre would write that is a link, not a regular file, or someone else's (exit 1).
public struct UnsafeFileError: UserFacingError, Equatable {
    public let path: String
    public let problem: String
    public let fix: String

    public init(path: String, problem: String, fix: String) {
        self.path = path
        self.problem = problem
        self.fix = fix
    }

    public var message: String { "timbre will not open \(path): \(problem)" }
    public var hint: String? { fix }
    public var exitStatus: ExitStatus { .failure }
}

/// Reading with a ceiling: at most `limit` bytes are ever taken in; more means nil, found out
/// after reading `limit + 1` bytes, never after reading everything.
public enum BoundedRead {
    /// Everything left on `fd` when it is at most `limit` bytes; nil when there is more or a read fails.
    public static func descriptor(_ fd: Int32, limit: Int) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let wanted = min(buffer.count, limit + 1 - data.count)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    waitReadable(fd)
                    continue
                }
                return nil
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit { return nil }
        }
    }

    /// A regular file of at most `limit` bytes (its size is checked before reading); nil when it
    /// is larger, not a regular file, or unreadable. `tooLarge` tells which.
    public static func file(_ path: String, limit: Int) -> (data: Data?, tooLarge: Bool) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return (nil, false) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return (nil, false) }
        if Int(info.st_size) > limit { return (nil, true) }
        let data = descriptor(fd, limit: limit)
        return (data, data == nil)
    }

    private static func waitReadable(_ fd: Int32) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&poller, 1, -1)
    }
}
