import Foundation

/// Who can change timbre's files. config.toml decides which certificates timbre trusts (`ca_file`)
/// and which keys it pins, so — as ssh does for ~/.ssh — a config that another user could have
/// written is refused rather than read.
public enum FilePermissions {
    /// The problem with `path` when someone other than this user (or root) could write it.
    public static func writableByOthers(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_uid != geteuid() && info.st_uid != 0 {
            return "\(path) belongs to another user (uid \(info.st_uid))"
        }
        // A symlink's own mode means nothing; what it points to is checked by the caller's open.
        if info.st_mode & S_IFMT == S_IFLNK { return nil }
        if info.st_mode & 0o022 != 0 {
            return "\(path) can be written by other users (mode \(String(info.st_mode & 0o7777, radix: 8)))"
        }
        return nil
    }

    /// Refuses a config file that others could have written, or that sits in such a folder.
    public static func requireSafeConfig(_ path: String) throws(ConfigError) {
        let folder = (path as NSString).deletingLastPathComponent
        for candidate in [folder.isEmpty ? "." : folder, path] {
            guard let problem = writableByOthers(candidate) else { continue }
            let fix = problem.contains("belongs to another user") ? "make it yours (`chown`)" : "run `chmod go-w \(candidate)`"
            throw ConfigError(path: path, detail: "is not trusted: \(problem), and the config decides which certificates timbre trusts — \(fix), then try again")
        }
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
}
