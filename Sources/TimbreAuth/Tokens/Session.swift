import Foundation
import TimbreCore
import TimbreNet

/// What timbre remembers between runs besides the refresh token: the access token, its expiry,
/// and who it belongs to. Stored as the `session` secret (standard tier).
public struct Session: Codable, Sendable, Equatable {
    public var accessToken: String
    public var expiresAt: Date
    public var scopes: [String]
    public var userID: String?
    public var displayName: String?
    /// Which refresh token this session goes with (`grant(of:)`: a digest, never the token): a
    /// session stored by a process holding another refresh token — another account given in
    /// `TIMBRE_REFRESH_TOKEN`, or a sign-in since — is not taken over. Nil in sessions stored before.
    public var grant: String?

    public init(
        accessToken: String, expiresAt: Date, scopes: [String], userID: String? = nil, displayName: String? = nil, grant: String? = nil
    ) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.userID = userID
        self.displayName = displayName
        self.grant = grant
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", expiresAt = "expires_at", scopes, userID = "user_id", displayName = "display_name", grant
    }

    /// The first 16 bytes of the refresh token's SHA-256, in hex: enough to tell two tokens apart,
    /// nothing to learn the token from.
    public static func grant(of refreshToken: SecretBytes) -> String {
        let digest = refreshToken.withString { Crypto.sha256(Array($0.utf8)) }
        return digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Usable for at least `margin` more.
    public func isValid(for margin: TimeInterval, now: Date = Date()) -> Bool {
        expiresAt.timeIntervalSince(now) > margin
    }

    // Dates as `2026-11-22T10:00:00Z` (what `.iso8601` wrote), through ClockText: Foundation's
    // ISO 8601 strategy loads ICU's calendar and time-zone data for it.
    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ClockText.iso(date))
        }
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    static func decode(_ text: String) -> Session? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard text.hasSuffix("Z"), let date = ClockText.parseSQLite(String(text.dropLast())) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO 8601 time in UTC")
            }
            return date
        }
        return try? decoder.decode(Session.self, from: Data(text.utf8))
    }
}
