import Foundation
import TimbreCore

/// What the status line reports.
public struct StatusInfo: Sendable, Equatable {
    public var user: String?
    public var lastSync: String?
    public var syncProgress: String?
    public var rateLimitWait: Int?
    public var offline: Bool
    public var hint: String?
    public var lastError: String?
    /// The latest warning from background work (the whole list: `:messages`).
    public var lastMessage: String?
    /// The edit running in the background ("removing 3 entries"), and how many wait after it.
    public var editProgress: String?
    public var editsQueued = 0
    /// The key that stops the edit under way between two writes ("Esc"), while one can.
    public var editStopKey: String?

    public init(
        user: String? = nil, lastSync: String? = nil, syncProgress: String? = nil, rateLimitWait: Int? = nil,
        offline: Bool = false, hint: String? = nil, lastError: String? = nil
    ) {
        self.user = user
        self.lastSync = lastSync
        self.syncProgress = syncProgress
        self.rateLimitWait = rateLimitWait
        self.offline = offline
        self.hint = hint
        self.lastError = lastError
    }
}
