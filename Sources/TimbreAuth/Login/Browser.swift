import Foundation
import TimbreCore

/// Opens the sign-in page: `$BROWSER` (the first of a colon-separated list; `%s` is replaced by
/// the URL, otherwise the URL is the last argument), else `xdg-open`, else nothing (the caller
/// prints the URL). The URL is passed as one argument, never through a shell.
public enum Browser {
    /// `searchPath` finds an executable by name; by default on `environment`'s PATH.
    public static func command(for url: String, environment: [String: String], searchPath: ((String) -> String?)? = nil) -> [String]? {
        let searchPath = searchPath ?? { which($0, environment: environment) }
        if let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init),
            !browser.trimmingCharacters(in: .whitespaces).isEmpty
        {
            var words = browser.split(separator: " ").map(String.init)
            if words.contains(where: { $0.contains("%s") }) {
                words = words.map { $0.replacingOccurrences(of: "%s", with: url) }
            } else {
                words.append(url)
            }
            guard let executable = words.first, let resolved = executable.contains("/") ? executable : searchPath(executable) else { return nil }
            return [resolved] + words.dropFirst()
        }
        if let opener = searchPath("xdg-open") { return [opener, url] }
        return nil
    }

    /// Starts the browser and does not wait for it. Returns false when none could be started.
    public static func open(_ url: String, environment: [String: String]) -> Bool {
        guard let command = command(for: url, environment: environment) else { return false }
        // Not `Process`: the browser would inherit the task pool's blocked signals (see `Spawn`).
        guard let pid = try? Spawn.start(command, environment: Spawn.childEnvironment(environment)) else { return false }
        Spawn.reapWhenDone(pid)
        return true
    }

    public static func which(_ name: String, environment: [String: String]) -> String? {
        for dir in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
