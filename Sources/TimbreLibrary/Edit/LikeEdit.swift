/// Liking or unliking tracks and episodes: `PUT` / `DELETE /me/library?uris=` (≤ 40 a request).
/// Both are idempotent, so an interrupted one is finished by sending it again. Only the items
/// whose state it changes are recorded, so an undo touches nothing else.
public struct LikeEdit: Equatable, Sendable, Codable {
    /// The items whose liked state the edit changes.
    public var uris: [String]
    /// True: like them; false: unlike them.
    public var like: Bool

    public init(uris: [String], like: Bool) {
        self.uris = uris
        self.like = like
    }

    public static let maxURIs = 40

    public var inverse: LikeEdit { LikeEdit(uris: uris, like: !like) }

    /// The URIs a request at a time.
    public var chunks: [[String]] {
        stride(from: 0, to: uris.count, by: Self.maxURIs).map { Array(uris[$0..<min($0 + Self.maxURIs, uris.count)]) }
    }
}
