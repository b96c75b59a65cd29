import Foundation
import TimbreCore

#if canImport(Glibc)
import Glibc
#endif

/// The profile's count of requests and its stored wait, shared by every process of the profile,
/// in its state folder (`$XDG_STATE_HOME/timbre[/profiles/NAME]`):
///
/// - `requests-DAY.log` (DAY: days since 1970, UTC): one line per request sent, `MILLISECONDS KIND`,
///   appended with `O_APPEND` — one `write(2)` of a few bytes each, which the kernel never
///   interleaves with another process's, so no lock is taken on the path of every request. The
///   last 24 h are read from today's file and yesterday's; older ones are removed.
/// - `quota.json`: the wait Spotify asked for (until when, whether it was the quota, the app's
///   client id) and the last 429, replaced atomically under `quota.lock` (read, change, write).
///
/// Every request is checked against the stored wait (a `stat` of `quota.json`; it is read again
/// only when it changed), so a process that is running when another one is told to wait stops too.
/// Failures to write here never fail a request: the count is a report, not a guard.
public final class RequestLedger: Sendable {
    public let directory: String
    /// The app (client id) a stored wait applies to: another app's wait is not this one's.
    public let app: String?

    /// The stored state (`quota.json`).
    public struct State: Codable, Sendable, Equatable {
        public var blockedUntil: Double?
        public var blockedAt: Double?
        public var blockedQuota: Bool?
        public var blockedGiven: Int?
        public var blockedBudget: Int?
        public var blockedApp: String?
        public var last429: Last429?

        public init() {}

        enum CodingKeys: String, CodingKey {
            case blockedUntil = "blocked_until", blockedAt = "blocked_at", blockedQuota = "blocked_quota"
            case blockedGiven = "blocked_given", blockedBudget = "blocked_budget", blockedApp = "blocked_app"
            case last429 = "last_429"
        }
    }

    /// The last rate-limit answer: when, its `Retry-After` (nil: none), whether it named the quota.
    public struct Last429: Codable, Sendable, Equatable {
        public var at: Double
        public var retryAfter: Int?
        public var quota: Bool

        public init(at: Double, retryAfter: Int?, quota: Bool) {
            self.at = at
            self.retryAfter = retryAfter
            self.quota = quota
        }

        enum CodingKeys: String, CodingKey {
            case at, retryAfter = "retry_after", quota
        }
    }

    private struct Stamp: Equatable {
        var inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int
    }

    private struct Cache {
        var stamp: Stamp?
        var state = State()
        var folderMade = false
        var prunedDay: Int?
    }

    private let cache = Locked(Cache())

    public init(directory: String, app: String?) {
        self.directory = directory
        self.app = app
    }

    var statePath: String { directory + "/quota.json" }
    var lockPath: String { directory + "/quota.lock" }
    func logPath(day: Int) -> String { directory + "/requests-\(day).log" }
    static func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    // MARK: Counting

    /// Records one request of `kind` sent at `date`.
    public func sent(_ kind: RequestKind, at date: Date = Date()) {
        let day = Self.day(date)
        let (makeFolder, prune) = cache.withLock { cache -> (Bool, Bool) in
            defer {
                cache.folderMade = true
                cache.prunedDay = day
            }
            return (!cache.folderMade, cache.prunedDay != day)
        }
        if makeFolder { try? Paths.ensureParentDirectory(of: statePath) }
        if prune { removeOldLogs(today: day) }
        let line = Array("\(Int64((date.timeIntervalSince1970 * 1000).rounded(.down))) \(kind.rawValue)\n".utf8)
        let fd = open(logPath(day: day), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withUnsafeBytes { bytes in
            var result = Glibc.write(fd, bytes.baseAddress, bytes.count)
            while result < 0, errno == EINTR { result = Glibc.write(fd, bytes.baseAddress, bytes.count) }
            return result
        }
    }

    /// Requests of each kind sent in the 24 hours before `now`, by every process of the profile.
    public func counts(now: Date = Date()) -> [RequestKind: Int] {
        var counts = Dictionary(uniqueKeysWithValues: RequestKind.allCases.map { ($0, 0) })
        let from = Int64(((now.timeIntervalSince1970 - 86_400) * 1000).rounded(.down))
        let to = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let today = Self.day(now)
        for day in [today - 1, today] {
            guard let data = FileManager.default.contents(atPath: logPath(day: day)) else { continue }
            for line in data.split(separator: UInt8(ascii: "\n")) {
                let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 1)
                guard parts.count == 2, let ms = Int64(String(decoding: parts[0], as: UTF8.self)), ms > from, ms <= to,
                    let kind = RequestKind(rawValue: String(decoding: parts[1], as: UTF8.self))
                else { continue }
                counts[kind, default: 0] += 1
            }
        }
        return counts
    }

    private func removeOldLogs(today: Int) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix("requests-") && name.hasSuffix(".log") {
            guard let day = Int(name.dropFirst("requests-".count).dropLast(".log".count)), day < today - 1 else { continue }
            unlink(directory + "/" + name)
        }
    }

    // MARK: The stored wait

    /// The stored state, read again only when `quota.json` changed since the last look.
    public func state() -> State {
        var info = stat()
        guard lstat(statePath, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return cache.withLock { cache in
                cache.stamp = nil
                cache.state = State()
                return cache.state
            }
        }
        let stamp = Stamp(
            inode: UInt64(info.st_ino), size: Int64(info.st_size), seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
        if let known = cache.withLock({ $0.stamp == stamp ? $0.state : nil }) { return known }
        let read = FileManager.default.contents(atPath: statePath).flatMap { try? JSONDecoder().decode(State.self, from: $0) } ?? State()
        cache.withLock { cache in
            cache.stamp = stamp
            cache.state = read
        }
        return read
    }

    /// The wait still in force at `now` for this app, as the error every request ends with.
    public func storedStop(now: Date = Date()) -> RequestsStopped? {
        let state = state()
        guard let until = state.blockedUntil, until > now.timeIntervalSince1970 else { return nil }
        if let stored = state.blockedApp, let app, stored != app { return nil }
        return RequestsStopped(
            .wait(
                until: Date(timeIntervalSince1970: until), quota: state.blockedQuota ?? false, given: state.blockedGiven,
                budget: state.blockedBudget ?? 0), at: now)
    }

    /// Records a 429 answered at `at`; `stop`: the wait it imposes on the profile, stored too.
    public func rateLimited(at: Date, retryAfter: Int?, quota: Bool, stop: RequestsStopped?) async {
        try? await update { state in
            state.last429 = Last429(at: at.timeIntervalSince1970, retryAfter: retryAfter, quota: quota)
            guard let stop, case .wait(let until, let quota, let given, let budget) = stop.reason else { return }
            // The later of the two waits is kept (another process may have stored a longer one).
            if let stored = state.blockedUntil, stored >= until.timeIntervalSince1970, state.blockedApp == app { return }
            state.blockedUntil = until.timeIntervalSince1970
            state.blockedAt = at.timeIntervalSince1970
            state.blockedQuota = quota
            state.blockedGiven = given
            state.blockedBudget = budget
            state.blockedApp = app
        }
    }

    /// Forgets the stored wait (`timbre quota --reset`); the last 429 is kept as a fact.
    public func reset() async throws {
        try await update { state in
            state.blockedUntil = nil
            state.blockedAt = nil
            state.blockedQuota = nil
            state.blockedGiven = nil
            state.blockedBudget = nil
            state.blockedApp = nil
        }
    }

    /// Read, change and write `quota.json` under `quota.lock` (git's `index.lock` shape).
    private func update(_ change: (inout State) -> Void) async throws {
        try Paths.ensureParentDirectory(of: statePath)
        let lock = try await FileLock.acquire(path: lockPath, wait: .seconds(5))
        defer { lock.release() }
        var state = FileManager.default.contents(atPath: statePath).flatMap { try? JSONDecoder().decode(State.self, from: $0) } ?? State()
        change(&state)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try PrivateFile.write(try encoder.encode(state), to: statePath)
    }
}
