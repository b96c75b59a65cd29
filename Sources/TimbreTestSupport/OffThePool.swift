import Foundation

/// Runs blocking work (waitpid, a blocking read, a D-Bus call) on a thread of its own and awaits
/// it. The test runner's cooperative pool has one thread per core: a test that blocks one starves
/// every other test's tasks — under load, for tens of seconds.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
