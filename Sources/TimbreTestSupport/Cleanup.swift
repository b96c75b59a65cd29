import SandboxCore

/// Runs `body`, then awaits `cleanup` whether `body` returned or threw (the error is rethrown after
/// the cleanup). A `defer { Task { … } }` would let the test end before its server stopped, and the
/// next test would start beside it.
public func withCleanup<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ cleanup: () async -> Void,
    _ body: () async throws -> T
) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}

extension SandboxProcess {
    /// Starts a sandbox, runs `body` with it, and awaits its stop however `body` ends.
    public static func with<T>(
        isolation: isolated (any Actor)? = #isolation,
        library: LibrarySize = .small, seed: UInt64 = 42, extraArguments: [String] = [],
        _ body: (SandboxProcess) async throws -> T
    ) async throws -> T {
        let sandbox = try await start(library: library, seed: seed, extraArguments: extraArguments)
        return try await withCleanup({ await sandbox.stop() }) { try await body(sandbox) }
    }
}
