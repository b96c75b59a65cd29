import Foundation
import TimbreCore

/// A playlist as the TUI shows it.
public struct PlaylistRow: Sendable, Equatable {
    public var id: String
    public var name: String
    public var trackCount: Int
    public var owner: String
    public var unavailable: Bool

    public init(id: String, name: String, trackCount: Int, owner: String, unavailable: Bool) {
        self.id = id
        self.name = name
        self.trackCount = trackCount
        self.owner = owner
        self.unavailable = unavailable
    }
}
