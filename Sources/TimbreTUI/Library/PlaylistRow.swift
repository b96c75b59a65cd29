import Foundation
import TimbreCore

/// A playlist as the TUI shows it.
public struct PlaylistRow: Sendable, Equatable {
    public var id: String
    public var name: String
    public var trackCount: Int
    public var owner: String
    public var unavailable: Bool
    /// Whether the signed-in user may change its entries (owner or collaborative). A locked
    /// playlist shows 🔒 and every edit of it is refused before anything is sent.
    public var editable: Bool
    /// Why Spotify does not show its entries, when `unavailable`.
    public var unavailableReason: String?
    /// Who sees it on Spotify: shown in the playlists pane (◦ private, ⇄ collaborative) and the header.
    public var visibility: Visibility

    public enum Visibility: String, Sendable, Equatable {
        case `public`, `private`, collaborative

        public init(isPublic: Bool, collaborative: Bool) {
            self = collaborative ? .collaborative : (isPublic ? .public : .private)
        }

        /// The pane's one-cell marker (public has none).
        var marker: String {
            switch self {
            case .public: return " "
            case .private: return "◦"
            case .collaborative: return "⇄"
            }
        }
    }

    public init(
        id: String, name: String, trackCount: Int, owner: String, unavailable: Bool, editable: Bool = true,
        unavailableReason: String? = nil, visibility: Visibility = .public
    ) {
        self.visibility = visibility
        self.id = id
        self.name = name
        self.trackCount = trackCount
        self.owner = owner
        self.unavailable = unavailable
        self.editable = editable
        self.unavailableReason = unavailableReason
    }

    public var isLiked: Bool { id == "liked" }
}

/// A local folder (Timor's): a name, expanded or not, the ids of its playlists in order.
public struct FolderRow: Sendable, Equatable {
    public var name: String
    public var expanded: Bool
    public var playlists: [String]

    public init(name: String, expanded: Bool, playlists: [String]) {
        self.name = name
        self.expanded = expanded
        self.playlists = playlists
    }
}
