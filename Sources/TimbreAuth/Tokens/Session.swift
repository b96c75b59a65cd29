import Foundation

/// What timbre remembers between runs besides the refresh token: the access token, its expiry,
/// and who it belongs to. Stored as the `session` secret (standard tier).
public struct Session: Codable, Sendable, Equatable {
    public var accessToken: String
    public var expiresAt: Date
    public var scopes: [String]
    public var userID: String?
    public var displayName: String?

    public init(accessToken: String, expiresAt: Date, scopes: [String], userID: String? = nil, displayName: String? = nil) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.userID = userID
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", expiresAt = "expires_at", scopes, userID = "user_id", displayName = "display_name"
    }

    /// Usable for at least `margin` more.
    public func isValid(for margin: TimeInterval, now: Date = Date()) -> Bool {
        expiresAt.timeIntervalSince(now) > margin
    }

    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    static func decode(_ text: String) -> Session? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Session.self, from: Data(text.utf8))
    }
}
