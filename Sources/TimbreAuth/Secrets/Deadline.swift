import Foundation
import TimbreCore

/// Runs blocking work (a synchronous libsecret call) on a thread of its own, so Swift's cooperative
/// pool is never blocked, and gives up at the deadline: `cancel` runs (it cancels the GCancellable
/// the work watches) and the caller gets `.timeout` at once, whether or not the work notices.
func runWithDeadline<T: Sendable>(
    seconds: Double,
    cancel: @escaping @Sendable () -> Void,
    _ work: @escaping @Sendable () throws(SecretStoreError) -> T
) async throws(SecretStoreError) -> T {
    let result: Result<T, SecretStoreError> = await withCheckedContinuation { continuation in
        let finished = Locked(false)
        let finish: @Sendable (Result<T, SecretStoreError>) -> Void = { result in
            let first = finished.withLock { done -> Bool in
                if done { return false }
                done = true
                return true
            }
            if first { continuation.resume(returning: result) }
        }
        let thread = Thread {
            do throws(SecretStoreError) {
                finish(.success(try work()))
            } catch {
                finish(.failure(error))
            }
        }
        thread.name = "timbre-keyring"
        thread.start()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            // Answer first: the cancelled work would otherwise race to report its own error.
            finish(.failure(.timeout(seconds: seconds)))
            cancel()
        }
    }
    return try result.get()
}
