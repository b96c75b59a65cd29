import Foundation
import TimbreCore
import TimbreNet

/// What the accounts service's token endpoint returns.
public struct TokenResponse: Decodable, Sendable {
    public var accessToken: String
    public var tokenType: String?
    public var expiresIn: Int
    public var refreshToken: String?
    public var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case refreshToken = "refresh_token", scope
    }

    public var scopes: [String] { (scope ?? "").split(separator: " ").map(String.init) }
}

/// `POST {accounts_url}/api/token` through the pinned transport, like every other call.
public struct AccountsClient: Sendable {
    public let executor: RequestExecutor
    public let accountsURL: URL
    public let clientID: String

    public init(executor: RequestExecutor, accountsURL: URL, clientID: String) {
        self.executor = executor
        self.accountsURL = accountsURL
        self.clientID = clientID
    }

    public func exchange(code: String, verifier: String, redirectURI: String) async throws -> TokenResponse {
        try await post([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("client_id", clientID), ("code_verifier", verifier),
        ])
    }

    public func refresh(_ refreshToken: SecretBytes) async throws -> TokenResponse {
        let fields = refreshToken.withString { token in
            [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientID)]
        }
        return try await post(fields)
    }

    private func post(_ fields: [(String, String)]) async throws -> TokenResponse {
        let response = try await executor.send(.form(accountsURL.appendingPathComponent("api/token"), fields: fields))
        do {
            let token = try JSONDecoder().decode(TokenResponse.self, from: response.body)
            guard !token.accessToken.isEmpty, token.expiresIn > 0 else { throw AuthError.malformedTokenResponse }
            return token
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError.malformedTokenResponse
        }
    }
}

/// The user, from `GET /me`.
public enum AuthError: UserFacingError, Equatable {
    case notSignedIn
    case malformedTokenResponse
    case malformedProfile

    public var message: String {
        switch self {
        case .notSignedIn: return "not signed in to Spotify"
        case .malformedTokenResponse: return "the accounts service sent a token response timbre cannot read"
        case .malformedProfile: return "Spotify sent a user profile timbre cannot read"
        }
    }

    public var hint: String? {
        switch self {
        case .notSignedIn: return "run `timbre login` (over SSH: `timbre login --paste`; headless: set TIMBRE_REFRESH_TOKEN or use `timbre login --with-token`)"
        default: return "try again; if it persists, check accounts_url and api_url in config.toml"
        }
    }

    public var exitStatus: ExitStatus { self == .notSignedIn ? .authenticationRequired : .failure }
}
