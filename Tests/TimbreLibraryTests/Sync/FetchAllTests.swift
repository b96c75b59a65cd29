import Testing
import TimbreCore
import TimbreNet

@testable import TimbreLibrary

/// Paging a list: a bounded pool of workers, whatever total the server claims.
@Suite struct FetchAllTests {
    @Test func neverMoreFetchesAliveThanTheWorkersAndEveryOffsetOnce() async throws {
        let alive = Locked((now: 0, peak: 0, offsets: [Int]()))
        let pages = try await PlaylistReader.fetchAll(from: 50, to: 10_000, by: 50, workers: 4) { offset in
            alive.withLock {
                $0.now += 1
                $0.peak = max($0.peak, $0.now)
                $0.offsets.append(offset)
            }
            await Task.yield()
            alive.withLock { $0.now -= 1 }
            return offset / 50
        }
        let seen = alive.current
        #expect(seen.peak <= 4 && seen.peak >= 1)
        #expect(seen.offsets.sorted() == Array(stride(from: 50, to: 10_000, by: 50)))
        #expect(pages.count == 199 && pages[9_950] == 199)
    }

    @Test func aFailingPageCancelsTheRestAndIsThrown() async throws {
        struct Boom: Error {}
        let started = Locked(0)
        await #expect(throws: Boom.self) {
            _ = try await PlaylistReader.fetchAll(from: 0, to: 1_000_000, by: 1, workers: 3) { offset -> Int in
                started.withLock { $0 += 1 }
                if offset == 10 { throw Boom() }
                await Task.yield()
                return offset
            }
        }
        #expect(started.current < 1_000, "the pool stopped taking offsets after the failure: \(started.current)")
    }

    /// Requests stopping (the daily quota, `--max-requests`) cancels nothing: the pages already
    /// asked for arrive (a stopped sync keeps them), no new one is asked, and the stop is thrown.
    @Test func aStopLetsThePagesAlreadyAskedForArriveAndIsThrown() async throws {
        let stop = RequestsStopped(.limit(3))
        let stopped = Locked(false), released = Gate()
        let seen = Locked((asked: [Int](), delivered: [Int](), cancelled: 0))
        await #expect(throws: RequestsStopped.self) {
            _ = try await PlaylistReader.fetchAll(offsets: Array(0..<20), workers: 4) { offset -> Int in
                // As the rate budget does: once stopped, every request is refused before it goes out.
                if stopped.current { throw stop }
                seen.withLock { $0.asked.append(offset) }
                if offset == 3 {
                    stopped.withLock { $0 = true }
                    released.open()
                    throw stop
                }
                // Out when the stop comes: answered after it.
                await released.wait()
                await Task.yield()
                if Task.isCancelled { seen.withLock { $0.cancelled += 1 } }
                seen.withLock { $0.delivered.append(offset) }
                return offset
            }
        }
        let result = seen.current
        #expect(result.asked.sorted() == [0, 1, 2, 3])
        #expect(result.delivered.sorted() == [0, 1, 2], "the pages asked for before the stop arrive")
        #expect(result.cancelled == 0)
    }

    @Test func anEmptyOrBackwardsRangeFetchesNothing() async throws {
        let calls = Locked(0)
        for (start, end) in [(50, 50), (50, 0), (50, -5_000_000_000)] {
            let pages = try await PlaylistReader.fetchAll(from: start, to: end, by: 50, workers: 8) { _ in calls.withLock { $0 += 1 } }
            #expect(pages.isEmpty)
        }
        #expect(calls.current == 0)
    }

    @Test func theCapsAreSpotifysLimits() {
        #expect(PlaylistReader.maxPlaylistEntries == 10_000)
        #expect(PlaylistReader.maxLikedEntries >= 10_000 && PlaylistReader.maxPlaylists >= 10_000)
    }
}
