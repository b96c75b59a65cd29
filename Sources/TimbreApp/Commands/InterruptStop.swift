import Dispatch
import Foundation
import TimbreCore
import TimbreLibrary

/// Ctrl-C during `timbre playlist shuffle|sort`: range moves stop after the write under way, as
/// Esc stops them in the interface — every entry there with its date, the moves made journalled
/// as the edit (`timbre undo` puts the old order back), exit 3. A rewrite cannot stop part-way: it
/// finishes. A second Ctrl-C, or one while nothing is being written (the y/r/n question), ends
/// the process at once, as before; the next command finishes an edit left half-applied.
enum InterruptStop {
    static func watching<T>(_ stop: EditStop, console: Console, _ body: () async throws -> T) async throws -> T {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let pressed = Locked(0)
        source.setEventHandler {
            let first = pressed.withLock { count in
                count += 1
                return count == 1
            }
            let answer = first ? stop.request() : .idle
            switch answer {
            case .stopping:
                console.writeError("stopping after the move under way… (Ctrl-C again ends timbre at once)\n")
            case .finishes:
                console.writeError("a rewrite cannot stop part-way: it finishes (Ctrl-C again ends timbre at once; the next command finishes it)\n")
            case .idle:
                source.cancel()
                signal(SIGINT, SIG_DFL)
                kill(getpid(), SIGINT)
            }
        }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        return try await body()
    }
}
