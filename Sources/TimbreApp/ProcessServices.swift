import TimbreAuth
import TimbreCore
import TimbreNet

/// What one process shares between everything it runs, per profile and settings: one
/// `RequestExecutor` (and so one `RateBudget`: Spotify limits the app, not each caller) and one
/// `TokenManager` (one refresh at a time, one session in memory). The interface's background sync,
/// its editor and its searches, and whatever comes later, all take theirs from here.
///
/// Made with the run's first `Invocation` and handed to every invocation derived from it (global
/// options, replay, the demo's profile, the interface's quiet console), so a process has one; an
/// in-process test's run gets its own.
public final class ProcessServices: Sendable {
    private let executors = Locked<[String: RequestExecutor]>([:])
    private let managers = Locked<[String: TokenManager]>([:])

    public init() {}

    /// The executor for `key`, made by `make` the first time.
    func executor(key: String, make: () -> RequestExecutor) -> RequestExecutor {
        executors.withLock { cache in
            if let existing = cache[key] { return existing }
            let made = make()
            cache[key] = made
            return made
        }
    }

    /// The token manager for `key`, made by `make` the first time.
    func tokens(key: String, make: () throws -> TokenManager) rethrows -> TokenManager {
        try managers.withLock { cache in
            if let existing = cache[key] { return existing }
            let made = try make()
            cache[key] = made
            return made
        }
    }
}
