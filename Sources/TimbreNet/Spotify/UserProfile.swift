/// The signed-in user, as `GET /me` describes them.
public struct UserProfile: Decodable, Sendable, Equatable {
    public var id: String
    public var displayName: String?

    public init(id: String, displayName: String?) {
        self.id = id
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey { case id, displayName = "display_name" }
}
