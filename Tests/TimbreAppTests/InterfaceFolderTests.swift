import Foundation
import GRDB
import Testing
import TimbreCore
import TimbreTUI
import TimbreTestSupport

@testable import TimbreApp
@testable import TimbreLibrary

/// The interface's services over the user data (`UserData`, one queue with a busy timeout shared
/// by the journal and the folders) on a real SQLite file, with another process's edit in the way.
@Suite struct InterfaceFolderTests {
    /// A folder toggle from the interface (its services, its folder list) while a `timbre playlist …`
    /// in another process holds the journal in a write transaction: the toggle waits for it, and
    /// both succeed (it used to fail at once: "the cache could not be read or written: the folders in …").
    @Test func aFolderToggleWaitsForAnEditHoldingTheJournal() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        let context = try Invocation(console: Console.buffered(environment: cli.environment).0, environment: cli.environment).context()
        let services = InterfaceServices(context: context, makeEditor: { _ in throw UsageError(message: "no editor in this test") })
        _ = try await services.run(.folder(.create("Mix")), progress: { _, _ in })
        let cache = try LibraryCache.open(path: context.paths.cache, warn: { _ in })
        let source = CacheLibrarySource(cache: cache, userData: context.userData)
        #expect(try source.folders().map(\.expanded) == [true])

        // The CLI edit: its own connection, an edit begun, then a step confirmed in a transaction
        // held until the toggle has been started.
        let edit = try UserData(path: context.paths.data)
        let id = try edit.journal.begin(op: .add, playlist: .liked, summary: "the CLI's edit", change: .entries(.insert(uris: ["u"], position: 0), before: []))
        let held = DispatchSemaphore(value: 0), toggleStarted = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let holderError = Locked<(any Error)?>(nil)
        // A thread of its own (not the concurrency pool's): it blocks inside the transaction.
        DispatchQueue.global().async {
            defer { done.signal() }
            do {
                try edit.queue.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        try db.execute(sql: "UPDATE edit SET step = 1 WHERE id = ?", arguments: [id])
                        held.signal()
                        toggleStarted.wait()
                        // Long enough for the toggle to meet the lock; far shorter than the busy timeout.
                        Thread.sleep(forTimeInterval: 0.5)
                        return .commit
                    }
                }
            } catch {
                holderError.withLock { $0 = error }
            }
        }
        await Self.wait(held)
        toggleStarted.signal()
        _ = try await services.run(.folder(.setExpanded("Mix", false)), progress: { _, _ in })
        await Self.wait(done)
        if let error = holderError.current { throw error }

        #expect(try source.folders().map(\.expanded) == [false])
        #expect(try UserData(path: context.paths.data).journal.history(limit: 5).map(\.step) == [1], "the edit's step is kept")
    }

    private static func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}
